"""Gemini CLI: `mcpServers` and the BeforeTool hook in `~/.gemini/settings.json` or
`<project>/.gemini/settings.json`.

The server's `timeout` (ms) is raised from its 10-minute default (a larger one the user set
stays). The hook has Gemini's documented shape: `hooks.BeforeTool` groups of a `matcher` (a
regular expression; `.*` covers built-in and MCP tools) and `hooks` of
`{name, type: "command", command, timeout (ms)}`. Gemini runs hooks only in a trusted folder
(see `gemini_trust`).

Our server entry has `trust: true` (its tools run without a confirmation): a headless
`gemini -p` in the default approval mode drops every tool that would need one, so without this
the model is never offered them. Asking the human is what `present_implementation_decision`
does itself, and the other four only read or append to the journal. Earlier versions listed
the five tools in `tools.allowed`, which Gemini CLI 0.61.0 warns about on every run as
deprecated ("Migrate to Policy Engine"); a rewrite takes exactly those five out again and keeps
the user's own entries.
"""

from __future__ import annotations

from app.setup_clients.context import SERVER_NAME, TOOL_TIMEOUT_SECONDS, SetupContext, json_snippet
from app.setup_clients.files import FileEdit
from app.setup_clients.gemini_trust import HOW_TO_TRUST
from app.setup_clients.json_merge import ensure_hook, json_transform, set_entry, without_listed
from core.agents.tools import TOOL_NAMES, client_tool_name

CLIENT = "gemini"
EVENT = "BeforeTool"
MATCHER = ".*"
HOOK_MARKER = " hook gemini"
HOOK_TIMEOUT_MS = 60_000
NOTES = (HOW_TO_TRUST,)


def edits(ctx: SetupContext) -> list[FileEdit]:
    base = ctx.home if ctx.scope == "user" else ctx.project_dir
    path = base / ".gemini" / "settings.json"
    server = ctx.server_entry(timeout=TOOL_TIMEOUT_SECONDS * 1000, trust=True)
    handler = {
        "name": SERVER_NAME,
        "type": "command",
        "command": ctx.hook_command(CLIENT),
        "timeout": HOOK_TIMEOUT_MS,
        "description": "Blocks edits while a decision is pending in Decision Journal.",
    }
    ours = [client_tool_name("gemini", tool) for tool in TOOL_NAMES]
    snippet = {
        "mcpServers": {SERVER_NAME: server},
        "hooks": {EVENT: [{"matcher": MATCHER, "hooks": [handler]}]},
    }
    return [
        FileEdit(
            path,
            json_snippet(snippet),
            json_transform(
                str(path),
                set_entry(("mcpServers", SERVER_NAME), server, str(path), ("timeout",)),
                without_listed(("tools", "allowed"), ours, "our server is trusted", str(path)),
                ensure_hook(EVENT, MATCHER, handler, HOOK_MARKER, str(path)),
            ),
        )
    ]
