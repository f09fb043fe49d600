"""Claude Code: the MCP server and the PreToolUse hook.

Server: `~/.claude.json` top-level `mcpServers` (user scope) or `<project>/.mcp.json` (project
scope, shared with the team, approved on first use), with a per-server `timeout` in ms so a
slow human does not hit the tool timeout (a larger one the user set stays).
Hook: `~/.claude/settings.json` or
`<project>/.claude/settings.json`, matcher `*`, so the gate sees every tool and
AskUserQuestion can be answered in the app.
"""

from __future__ import annotations

from app.setup_clients.context import (
    HOOK_TIMEOUT_SECONDS,
    SERVER_NAME,
    TOOL_TIMEOUT_SECONDS,
    SetupContext,
    json_snippet,
)
from app.setup_clients.files import FileEdit
from app.setup_clients.json_merge import ensure_hook, json_transform, set_entry

CLIENT = "claude-code"
HOOK_MARKER = " hook claude-code"
NOTES = (
    "Claude Code moves an MCP call that runs longer than 2 minutes to the background "
    "(CLAUDE_CODE_MCP_AUTO_BACKGROUND_MS, default 120000); the hook keeps edits blocked while "
    'the decision is pending either way. Set it to 0 in settings.json "env" to keep the agent '
    "waiting in the foreground.",
)
PROJECT_NOTES = (
    "Project scope: Claude Code starts a server from .mcp.json only once each user approved it "
    "(`claude mcp list` shows it as 'Pending approval' until then, and the agent gets none of "
    'its tools): approve it when `claude` asks, or add "enabledMcpjsonServers": '
    '["decision-journal"] to ~/.claude/settings.json.',
)


def edits(ctx: SetupContext) -> list[FileEdit]:
    server = ctx.server_entry(type="stdio", timeout=TOOL_TIMEOUT_SECONDS * 1000)
    server = {"type": server.pop("type"), **server}
    handler = {
        "type": "command",
        "command": ctx.hook_command(CLIENT),
        "timeout": HOOK_TIMEOUT_SECONDS,
    }
    if ctx.scope == "user":
        servers_file = ctx.home / ".claude.json"
        settings_file = ctx.home / ".claude" / "settings.json"
    else:
        servers_file = ctx.project_dir / ".mcp.json"
        settings_file = ctx.project_dir / ".claude" / "settings.json"
    return [
        FileEdit(
            servers_file,
            json_snippet({"mcpServers": {SERVER_NAME: server}}),
            json_transform(
                str(servers_file),
                set_entry(("mcpServers", SERVER_NAME), server, str(servers_file), ("timeout",)),
            ),
            private=ctx.scope == "user",
        ),
        FileEdit(
            settings_file,
            json_snippet({"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [handler]}]}}),
            json_transform(
                str(settings_file),
                ensure_hook("PreToolUse", "*", handler, HOOK_MARKER, str(settings_file)),
            ),
        ),
    ]
