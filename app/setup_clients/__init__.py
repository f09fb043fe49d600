"""`decision-journal setup CLIENT`: register the MCP server (and hooks) with each client."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

from app.setup_clients import claude_code, codex, copilot, cursor, gemini, opencode, qwen, vscode
from app.setup_clients.command import on_path
from app.setup_clients.context import SetupContext
from app.setup_clients.files import FileEdit

CLIENTS: dict[str, ModuleType] = {
    "claude-code": claude_code,
    "codex": codex,
    "copilot": copilot,
    "cursor": cursor,
    "gemini": gemini,
    "opencode": opencode,
    "qwen": qwen,
    "vscode": vscode,
}


PROJECT_NOTE = (
    "Project scope: these files run the bare `decision-journal` command, so they work on every "
    "teammate's machine where Decision Journal is installed and `decision-journal` is on PATH."
)
NOT_ON_PATH_NOTE = (
    "`decision-journal` is not on PATH on this machine: install it (or add its folder to PATH) "
    "before starting the client here."
)

PINNED_JOURNAL_NOTE = (
    "--journal {journal} is written into these project files; leave --journal out for files "
    "the team commits, so each teammate's own journal is used."
)


def plan(client: str, ctx: SetupContext) -> tuple[list[FileEdit], tuple[str, ...]]:
    """The files to merge and the notes to print for one client: its `NOTES`, and in project
    scope only, its `PROJECT_NOTES` and ours."""
    module = CLIENTS[client]
    edits: Callable[[SetupContext], list[FileEdit]] = module.edits
    notes = tuple(module.NOTES)
    if ctx.scope == "project":
        notes += tuple(getattr(module, "PROJECT_NOTES", ()))
        notes += (PROJECT_NOTE,) if on_path() else (PROJECT_NOTE, NOT_ON_PATH_NOTE)
        if ctx.journal:
            notes += (PINNED_JOURNAL_NOTE.format(journal=ctx.journal),)
    return edits(ctx), notes
