"""GitHub Copilot CLI: the MCP server in `mcp-config.json` and the `preToolUse` hook in a hooks
file of our own.

User scope: `$COPILOT_HOME` (default `~/.copilot`) holds `mcp-config.json` (`mcpServers`, in
the shape `copilot mcp add` writes: `type: "local"`, `command`, `args`, `tools: ["*"]` and a
`timeout` in ms, raised to an hour for a slow human; a larger one the user set stays) and
`hooks/*.json`, where Copilot loads every user-level hooks file; ours is
`hooks/decision-journal.json`. Project scope: `.github/mcp.json` (Copilot also reads `.mcp.json`,
which Claude Code's project setup owns) and `.github/hooks/decision-journal.json`, which
Copilot reads only in a folder the user trusted. The hook is a `{"type": "command", "bash": …,
"timeoutSec": …}` entry of `hooks.preToolUse`, in a file with `"version": 1`; Copilot runs it
before every tool, ours included (checked with Copilot CLI 1.0.102).
"""

from __future__ import annotations

import os
from pathlib import Path

from app.setup_clients.context import SERVER_NAME, TOOL_TIMEOUT_SECONDS, SetupContext, json_snippet
from app.setup_clients.files import FileEdit
from app.setup_clients.json_merge import ensure_flat_hook, ensure_value, json_transform, set_entry

CLIENT = "copilot"
EVENT = "preToolUse"
HOOK_MARKER = " hook copilot"
HOOK_TIMEOUT_SECONDS = 60
HOOKS_FILE = f"{SERVER_NAME}.json"
NOTES = (
    "Interactive Copilot CLI asks 'Do you want to use this tool?' before its first "
    "present_implementation_decision call opens our window: answer 'Yes, and don't ask again', "
    "or start it with `copilot --allow-tool=decision-journal`.",
)
"""Our hook does not answer `allow` to skip that question: in Copilot CLI 1.0.102 a hook's
`allow` overrides the user's own `--deny-tool` rules (checked with the real client)."""
PROJECT_NOTES = (
    "Project scope: Copilot CLI loads .github/mcp.json and .github/hooks/ only in a folder you "
    "trusted (it asks when `copilot` first starts there; `copilot --trust-folder -p …` trusts "
    "it for one prompt).",
)


def user_config_dir(home: Path) -> Path:
    """`$COPILOT_HOME` (default `~/.copilot`), where Copilot itself reads its user files."""
    copilot_home = os.environ.get("COPILOT_HOME")
    return Path(copilot_home) if copilot_home and os.path.isabs(copilot_home) else home / ".copilot"


def config_dir(ctx: SetupContext) -> Path:
    """The user's Copilot folder for user scope, the project's `.github` for project scope."""
    return ctx.project_dir / ".github" if ctx.scope == "project" else user_config_dir(ctx.home)


def edits(ctx: SetupContext) -> list[FileEdit]:
    base = config_dir(ctx)
    servers = base / ("mcp-config.json" if ctx.scope == "user" else "mcp.json")
    hooks = base / "hooks" / HOOKS_FILE
    server = {"type": "local", **ctx.server_entry(tools=["*"], timeout=TOOL_TIMEOUT_SECONDS * 1000)}
    handler = {
        "type": "command",
        "bash": ctx.hook_command(CLIENT),
        "timeoutSec": HOOK_TIMEOUT_SECONDS,
    }
    return [
        FileEdit(
            servers,
            json_snippet({"mcpServers": {SERVER_NAME: server}}),
            json_transform(
                str(servers),
                set_entry(("mcpServers", SERVER_NAME), server, str(servers), ("timeout",)),
            ),
        ),
        FileEdit(
            hooks,
            json_snippet({"version": 1, "hooks": {EVENT: [handler]}}),
            json_transform(
                str(hooks),
                ensure_value("version", 1, str(hooks)),
                ensure_flat_hook(EVENT, handler, HOOK_MARKER, str(hooks), command_key="bash"),
            ),
        ),
    ]
