"""The Waiting tab's work, run in the bridge's `records` lane: waiting decisions and notes.

Why a module of its own, without Qt: which project the Waiting tab opens on and how many of
an agent's notes it shows are rules of the tab, not signal wiring; kept here they are tested
without a window.
"""

from __future__ import annotations

from typing import Any

from core.agents.notes import AgentNote, NoteStore
from core.capture.pending import pending_items
from core.errors import JournalError
from core.journal import Journal

NOTES_SHOWN = 200
"""The newest notes of a project the tab lists."""


def pending(journal: Journal) -> list[dict[str, Any]]:
    """The waiting decisions, as `pending_items` lists them."""
    return pending_items(journal.pending)


def waiting_project(journal: Journal) -> str:
    """The project of the newest waiting decision, "" when none waits (or it cannot be read)."""
    try:
        waiting = journal.pending.list().items
    except (JournalError, OSError):
        waiting = []
    newest = max(
        waiting,
        key=lambda item: item.updated_at.unix_ns if item.updated_at else 0,
        default=None,
    )
    return newest.proposal.project_id if newest is not None else ""


def notes(journal: Journal, project_id: str) -> tuple[list[AgentNote], int]:
    """(the project's notes newest first, at most `NOTES_SHOWN`; lines that were damaged)."""
    listing = NoteStore(journal.root).read(project_id)
    return list(reversed(listing.notes))[:NOTES_SHOWN], listing.damaged_lines
