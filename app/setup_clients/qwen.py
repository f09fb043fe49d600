"""Qwen Code: `mcpServers` and the PreToolUse hook in `~/.qwen/settings.json` (`$QWEN_HOME`
when set) or `<project>/.qwen/settings.json`.

The server entry is Gemini CLI's shape, which Qwen Code keeps: `timeout` (ms) raised to an
hour for a slow human (a larger one the user set stays), and `trust: true`, so our tools run
without a confirmation (asking the human is what `present_implementation_decision` does
itself; the other four only read or append to the journal). `alwaysLoadTools: true` declares
our five tools to the model from the first request: without it Qwen Code 0.24.4 lists MCP
tools only by name, reachable through its tool_search and tool_call, and the agent would have
to look up the very tool the instructions tell it to call.

The hook is Claude Code's shape, which Qwen Code reads: `hooks.PreToolUse` groups of a
`matcher` (`*`: every tool, ours included) and `hooks` of `{type: "command", name, command,
timeout (s)}`. With folder trust on (`security.folderTrust.enabled`, off by default) Qwen Code
starts MCP servers and reads a project's settings only in a folder it trusts (see
`qwen_trust`); user hooks run everywhere.
"""

from __future__ import annotations

import os
from pathlib import Path

from app.setup_clients.context import SERVER_NAME, TOOL_TIMEOUT_SECONDS, SetupContext, json_snippet
from app.setup_clients.files import FileEdit
from app.setup_clients.json_merge import ensure_hook, json_transform, set_entry, without_hook

CLIENT = "qwen"
EVENT = "PreToolUse"
MATCHER = "*"
HOOK_MARKER = " hook qwen"
HAND_MADE = (
    ("PreToolUse", " hook claude-code", "it blocks read_file in Qwen Code"),
    ("BeforeTool", " hook gemini", "Qwen Code has no BeforeTool event"),
)
"""Our hooks for other clients that Qwen Code users could only configure by hand before
`setup qwen` existed: Claude Code's blocks Qwen's read_file and names Claude's tools, and
Gemini's event never fires in Qwen (which warns about it on every start). Both are taken out."""
HOOK_TIMEOUT_SECONDS = 60
NOTES = (
    "With folder trust on (security.folderTrust.enabled, off by default), Qwen Code starts MCP "
    "servers, ours included, and reads a project's .qwen/settings.json only in a folder you "
    "trusted (it asks when `qwen` first starts there); `decision-journal setup qwen --check` "
    "tells.",
)


def user_dir(home: Path) -> Path:
    """`$QWEN_HOME` (default `~/.qwen`), where Qwen Code reads its user settings."""
    qwen_home = os.environ.get("QWEN_HOME")
    return Path(qwen_home) if qwen_home and os.path.isabs(qwen_home) else home / ".qwen"


def config_dir(ctx: SetupContext) -> Path:
    """The user folder for user scope; the project's `.qwen` folder for project scope."""
    return ctx.project_dir / ".qwen" if ctx.scope == "project" else user_dir(ctx.home)


def edits(ctx: SetupContext) -> list[FileEdit]:
    path = config_dir(ctx) / "settings.json"
    server = ctx.server_entry(timeout=TOOL_TIMEOUT_SECONDS * 1000, trust=True, alwaysLoadTools=True)
    handler = {
        "type": "command",
        "name": SERVER_NAME,
        "command": ctx.hook_command(CLIENT),
        "timeout": HOOK_TIMEOUT_SECONDS,
    }
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
                *(without_hook(event, marker, why, str(path)) for event, marker, why in HAND_MADE),
                ensure_hook(EVENT, MATCHER, handler, HOOK_MARKER, str(path)),
            ),
        )
    ]
