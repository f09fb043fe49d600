"""Gemini CLI: `mcpServers` in `~/.gemini/settings.json` or `<project>/.gemini/settings.json`,
with the per-server `timeout` (ms) raised from its 10-minute default."""

from __future__ import annotations

from app.setup_clients.context import SERVER_NAME, TOOL_TIMEOUT_SECONDS, SetupContext, json_snippet
from app.setup_clients.files import FileEdit
from app.setup_clients.json_merge import json_transform, set_entry

NOTES = ("Gemini CLI has no hook to block edits while a decision is pending.",)


def edits(ctx: SetupContext) -> list[FileEdit]:
    base = ctx.home if ctx.scope == "user" else ctx.project_dir
    path = base / ".gemini" / "settings.json"
    server = ctx.server_entry(timeout=TOOL_TIMEOUT_SECONDS * 1000)
    return [
        FileEdit(
            path,
            json_snippet({"mcpServers": {SERVER_NAME: server}}),
            json_transform(
                str(path), set_entry(("mcpServers", SERVER_NAME), server, str(path), ("timeout",))
            ),
        )
    ]
