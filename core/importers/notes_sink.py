"""Imported agent notes, written through `core.agents.notes.NoteStore` like notes an agent adds
itself.

Why a small wrapper: an import must check a note before writing it (a dry run writes nothing
yet reports the same errors), and needs a content digest for the import ledger, which is what
keeps a repeated import from appending the same note twice (the note store itself appends).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from pathlib import Path

from core.agents.notes import (
    DECISION_MAX,
    EVIDENCE_MAX,
    GOAL_MAX,
    WHY_MAX,
    NoteStore,
    check_agent_note,
)
from core.gocompat.text import go_trim, utf8_len

NOT_RECORDED = "(not recorded in the source)"


def clip_bytes(text: str, limit: int) -> str:
    """Cuts text to `limit` UTF-8 bytes on a character boundary, marking the cut with '…'."""
    text = go_trim(text)
    if utf8_len(text) <= limit:
        return text
    cut = text.encode("utf-8", "surrogatepass")[: max(0, limit - 3)]
    return cut.decode("utf-8", "ignore").rstrip() + "…"


@dataclass(frozen=True, slots=True)
class ImportedNote:
    """A note as a source gives it; `workspace` chooses the project file it lands in."""

    workspace: str
    decision: str
    why: str
    evidence: str = ""
    goal: str = ""
    session_id: str = ""
    agent: str = ""

    @classmethod
    def of(
        cls,
        *,
        workspace: str,
        decision: str,
        why: str,
        evidence: str = "",
        goal: str = "",
        session_id: str = "",
        agent: str = "",
    ) -> ImportedNote:
        """Fits the texts to the note limits; a missing reason is said to be missing."""
        return cls(
            workspace=workspace,
            decision=clip_bytes(decision, DECISION_MAX),
            why=clip_bytes(why, WHY_MAX) or NOT_RECORDED,
            evidence=clip_bytes(evidence, EVIDENCE_MAX),
            goal=clip_bytes(goal, GOAL_MAX),
            session_id=clip_bytes(session_id, 1024),
            agent=clip_bytes(agent, 128),
        )

    def digest(self) -> str:
        data = json.dumps(asdict(self), sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(data.encode("utf-8", "surrogatepass")).hexdigest()

    def check(self) -> None:
        """Raises NoteInvalid exactly as the note store would."""
        check_agent_note(
            decision=self.decision,
            why=self.why,
            evidence=self.evidence,
            goal=self.goal,
            agent=self.agent,
            session_id=self.session_id,
        )


class NoteSink:
    """Writes imported notes into the journal's note store."""

    def __init__(self, journal_root: Path) -> None:
        self.store = NoteStore(journal_root)

    def write(self, note: ImportedNote) -> str:
        """Appends the note and returns its id."""
        written = self.store.append(
            workspace=note.workspace,
            decision=note.decision,
            why=note.why,
            evidence=note.evidence,
            goal=note.goal,
            session_id=note.session_id,
            agent=note.agent,
        )
        return written.id
