"""Cursor: `mcpServers` in `mcp.json` and our hooks in `hooks.json`, both in `~/.cursor`
(user scope) or `<project>/.cursor` (project scope).

Cursor documents no per-server tool timeout we could verify, so none is written; progress
notifications keep the call alive where the client honours them.

Hooks, as Cursor documents them (`{"version": 1, "hooks": {event: [{"command": …}]}}`):
`beforeShellExecution` (terminal commands), `beforeMCPExecution` (MCP tools: ours run, other
servers' wait) and `preToolUse` limited by its `matcher` to Cursor's file-edit tools. File reads
(`beforeReadFile`) are left unhooked: they run whatever is pending, and a hook there would only
cost every read a process.
"""

from __future__ import annotations

from typing import Any

from app.setup_clients.context import SERVER_NAME, SetupContext, json_snippet
from app.setup_clients.files import FileEdit
from app.setup_clients.json_merge import (
    Mutation,
    ensure_flat_hook,
    ensure_value,
    json_transform,
    set_entry,
)

CLIENT = "cursor"
HOOK_MARKER = " hook cursor"
EDIT_TOOLS = "Write|StrReplace|Edit|MultiEdit|Delete|EditNotebook"
"""Cursor's file-edit tools as its `preToolUse` matcher names them."""
EVENTS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("beforeShellExecution", {}),
    ("beforeMCPExecution", {}),
    ("preToolUse", {"matcher": EDIT_TOOLS}),
)
NOTES: tuple[str, ...] = ()


def edits(ctx: SetupContext) -> list[FileEdit]:
    base = (ctx.home if ctx.scope == "user" else ctx.project_dir) / ".cursor"
    path = base / "mcp.json"
    hooks = base / "hooks.json"
    server = ctx.server_entry()
    command = ctx.hook_command(CLIENT)
    handlers = {event: {"command": command, **extra} for event, extra in EVENTS}
    mutations: list[Mutation] = [ensure_value("version", 1, str(hooks))]
    mutations += [
        ensure_flat_hook(event, handler, HOOK_MARKER, str(hooks))
        for event, handler in handlers.items()
    ]
    return [
        FileEdit(
            path,
            json_snippet({"mcpServers": {SERVER_NAME: server}}),
            json_transform(str(path), set_entry(("mcpServers", SERVER_NAME), server, str(path))),
        ),
        FileEdit(
            hooks,
            json_snippet({"version": 1, "hooks": {e: [h] for e, h in handlers.items()}}),
            json_transform(str(hooks), *mutations),
        ),
    ]
