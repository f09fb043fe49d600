"""OpenAI Codex: `[mcp_servers.decision-journal]` in config.toml and the PreToolUse hook.

Codex's default tool timeout is 60 s, far too short for a human, so `tool_timeout_sec` is
raised to an hour. The hook goes to `hooks.json` beside config.toml (JSON keeps the merge
simple); Codex asks the user to review and trust a new command hook before it runs.
"""

from __future__ import annotations

from app.setup_clients.context import SERVER_NAME, TOOL_TIMEOUT_SECONDS, SetupContext, json_snippet
from app.setup_clients.files import FileEdit
from app.setup_clients.json_merge import ensure_hook, json_transform
from app.setup_clients.toml_table import render_table, upsert_table

CLIENT = "codex"
HOOK_MARKER = " hook codex"
HOOK_TIMEOUT_SECONDS = 60
MATCHER = ".*"
NOTES = (
    "Codex runs a new command hook only after you review and trust it (/hooks in Codex).",
    "Project scope (.codex/config.toml) is read only for trusted projects.",
)


def edits(ctx: SetupContext) -> list[FileEdit]:
    base = ctx.home / ".codex" if ctx.scope == "user" else ctx.project_dir / ".codex"
    config = base / "config.toml"
    hooks = base / "hooks.json"
    server = ctx.server_entry(startup_timeout_sec=30, tool_timeout_sec=TOOL_TIMEOUT_SECONDS)
    table = ("mcp_servers", SERVER_NAME)
    handler = {
        "type": "command",
        "command": ctx.hook_command(CLIENT),
        "timeout": HOOK_TIMEOUT_SECONDS,
    }
    return [
        FileEdit(
            config,
            render_table(table, server).rstrip("\n"),
            upsert_table(table, server, str(config)),
        ),
        FileEdit(
            hooks,
            json_snippet({"hooks": {"PreToolUse": [{"matcher": MATCHER, "hooks": [handler]}]}}),
            json_transform(
                str(hooks), ensure_hook("PreToolUse", MATCHER, handler, HOOK_MARKER, str(hooks))
            ),
        ),
    ]
