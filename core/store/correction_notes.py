"""Why a decision was corrected: an optional note per revision, kept beside the journal.

Why a sidecar and not a record field: KernForge reads records strictly (unknown fields are
rejected), and a tag would change the record's content, its digest and so the preference
profile, for text that is about the edit rather than the decision. So each note is its own
small JSON file, `corrections/<decision id>/revision-NNNNNN.json`, written atomically and
privately (0700 folders, 0600 files) like the history beside it, and redacted at write time
like every other text the journal keeps. A damaged or oversized note is skipped on reading:
it never makes a decision's history unreadable.
"""

from __future__ import annotations

import getpass
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from core import limits
from core.errors import InvalidDecision
from core.gocompat.gotime import GoTime
from core.gocompat.text import go_trim, utf8_len
from core.messages.wording import too_large
from core.record.fields import rule
from core.record.redaction import redact_text
from core.record.validation import check_decision_id
from core.store.safefs import atomic_write, ensure_private_dir, read_regular_file

NOTE_MAX = limits.REASON_MAX
"""A note's limit in UTF-8 bytes: as long as a rationale may be."""
AUTHOR_MAX = 256
FOLDER = "corrections"
_NAME = re.compile(r"revision-(\d{6})\.json")
_FILE_MAX = 4 * NOTE_MAX + 4096
"""A note file is at most this big (JSON escapes can quadruple the note's bytes)."""


@dataclass(frozen=True, slots=True)
class CorrectionNote:
    """The note saved with one revision of a decision."""

    revision: int
    note: str
    author: str
    created_at: GoTime
    redacted: bool = False


def check_note(note: str) -> str:
    """The trimmed note; raises InvalidDecision (field `correction_note`) over its limit."""
    text, limit = go_trim(note), rule("correction_note")
    size = utf8_len(text)
    if not limit.fits(size):
        raise InvalidDecision(
            f"correction_note {too_large(size, limit.most)}",
            field="correction_note",
            limit=limit.most,
        )
    return text


def current_author() -> str:
    """The local account name, as the note's author ("" when the system cannot say)."""
    try:
        return getpass.getuser()[:AUTHOR_MAX]
    except (KeyError, OSError):
        return ""


class CorrectionNotes:
    """Reads and writes the notes of one journal.

    Args:
        root: the journal folder; notes live in its `corrections` folder.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self.folder = root / FOLDER

    def path(self, decision_id: str, revision: int) -> Path:
        check_decision_id(decision_id)
        return self.root / note_path(decision_id, revision)

    def write(
        self, decision_id: str, revision: int, note: str, *, author: str | None = None
    ) -> CorrectionNote | None:
        """Saves the note of `revision`; an empty note writes nothing and returns None."""
        text = check_note(note)
        if not text:
            return None
        if revision <= 0:
            raise InvalidDecision("revision must be positive", field="revision")
        redacted, report = redact_text(text)
        who, who_report = redact_text(current_author() if author is None else author)
        saved = CorrectionNote(
            revision,
            redacted,
            go_trim(who)[:AUTHOR_MAX],
            GoTime.now(),
            report.redacted or who_report.redacted,
        )
        target = self.path(decision_id, revision)
        ensure_private_dir(self.root, self.folder)
        ensure_private_dir(self.root, target.parent)
        atomic_write(self.root, target, _encode(saved))
        return saved

    def read(self, decision_id: str) -> dict[int, CorrectionNote]:
        """Every readable note of a decision by revision; damaged files are left out."""
        directory = self.folder / decision_id
        check_decision_id(decision_id)
        try:
            names = sorted(os.listdir(directory))
        except (FileNotFoundError, NotADirectoryError):
            return {}
        notes: dict[int, CorrectionNote] = {}
        for name in names:
            match = _NAME.fullmatch(name)
            if match is None:
                continue
            note = read_note_file(self.root, directory / name, int(match.group(1)))
            if note is not None:
                notes[note.revision] = note
        return notes


def read_note_file(root: Path, path: Path, revision: int) -> CorrectionNote | None:
    """The note in one file, as the note of `revision`; None when it is damaged, oversized or
    names another revision (a sync conflict keeps each version's note in such a file)."""
    try:
        data = json.loads(read_regular_file(root, path, _FILE_MAX))
        note = CorrectionNote(
            revision,
            str(data["note"]),
            str(data.get("author", "")),
            GoTime.parse(str(data["created_at"])),
            bool(data.get("redacted", False)),
        )
    except (OSError, ValueError, KeyError, TypeError, InvalidDecision):
        return None
    if int(data.get("revision", revision)) != revision or utf8_len(note.note) > NOTE_MAX:
        return None
    return note


def note_path(decision_id: str, revision: int) -> str:
    """The journal-relative POSIX path of a revision's note."""
    return f"{FOLDER}/{decision_id}/revision-{revision:06d}.json"


def _encode(note: CorrectionNote) -> bytes:
    body = {
        "revision": note.revision,
        "note": note.note,
        "author": note.author,
        "created_at": str(note.created_at),
        "redacted": note.redacted,
    }
    return (json.dumps(body, ensure_ascii=False, indent=2) + "\n").encode("utf-8")
