"""Cursor: `mcpServers` in `~/.cursor/mcp.json` or `<project>/.cursor/mcp.json`.

Cursor documents no per-server tool timeout we could verify, so none is written; progress
notifications keep the call alive where the client honours them.
"""

from __future__ import annotations

from app.setup_clients.context import SERVER_NAME, SetupContext, json_snippet
from app.setup_clients.files import FileEdit
from app.setup_clients.json_merge import json_transform, set_entry

NOTES = (
    "Cursor has no hook to block edits while a decision is pending; rely on the tool's "
    "instruction text.",
)


def edits(ctx: SetupContext) -> list[FileEdit]:
    base = ctx.home if ctx.scope == "user" else ctx.project_dir
    path = base / ".cursor" / "mcp.json"
    server = ctx.server_entry()
    return [
        FileEdit(
            path,
            json_snippet({"mcpServers": {SERVER_NAME: server}}),
            json_transform(str(path), set_entry(("mcpServers", SERVER_NAME), server, str(path))),
        )
    ]
