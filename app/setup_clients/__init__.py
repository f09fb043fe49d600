"""`decision-journal setup CLIENT`: register the MCP server (and hooks) with each client."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

from app.setup_clients import claude_code, codex, cursor, gemini, vscode
from app.setup_clients.context import SetupContext
from app.setup_clients.files import FileEdit

CLIENTS: dict[str, ModuleType] = {
    "claude-code": claude_code,
    "codex": codex,
    "cursor": cursor,
    "gemini": gemini,
    "vscode": vscode,
}


def plan(client: str, ctx: SetupContext) -> tuple[list[FileEdit], tuple[str, ...]]:
    """The files to merge and the notes to print for one client."""
    module = CLIENTS[client]
    edits: Callable[[SetupContext], list[FileEdit]] = module.edits
    return edits(ctx), tuple(module.NOTES)
