"""Agent notes: the agent's own account of small choices, one append-only JSONL file per project.

Why a separate, append-only trail: a woken or resumed agent should start from what it already
decided instead of re-deriving it, and an owner auditing a finished task should see what the
agent chose and why even after the conversation is gone. Those choices are model-authored, so a
note carries provenance `model` and lives under `notes/`, which the preference profile never
reads: a note is context, never preference evidence.

Durability rules: each append holds the file's lock, writes one whole line with `O_APPEND` and
fsyncs. A crash can still leave a torn last line; readers skip it, and the next writer starts a
new line after it instead of rewriting or truncating anything.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import secrets
import stat
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from core.errors import NoteInvalid, UnsafePath, Violation
from core.gocompat.gotime import GoTime
from core.gocompat.text import go_trim, utf8_len
from core.messages.wording import too_large
from core.record.identity import project_identity, redacted_stable_id
from core.record.redaction import looks_sensitive, redact_text
from core.store.append_log import encode_line
from core.store.locking import locked
from core.store.safefs import FILE_MODE, check_no_links, ensure_private_dir, fsync_dir

NOTES_DIR = "notes"
NOTE_SCHEMA_VERSION = 1
PROVENANCE = "model"
DECISION_MAX = 4096
WHY_MAX = 4096
EVIDENCE_MAX = 2048
GOAL_MAX = 256
AGENT_MAX = 128
SESSION_MAX = 1024
TAIL_BYTES = 1024 * 1024
"""Readers look at the last MiB only: recent context is what agents ask for, and a long-lived
project's file must not make every read slower."""
LOCK_TIMEOUT = 10.0

_PROJECT_ID = re.compile(r"project-[0-9a-f]{16}")
_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_O_BINARY = getattr(os, "O_BINARY", 0)
_FIELDS = (
    "schema_version",
    "id",
    "created_at",
    "project_id",
    "project_alias",
    "workspace",
    "session_id",
    "agent",
    "goal",
    "decision",
    "why",
    "evidence",
    "provenance",
    "redacted",
)


@dataclass(frozen=True, slots=True)
class AgentNote:
    """One line of a project's notes file; free text already redacted."""

    id: str
    created_at: str
    project_id: str
    project_alias: str
    workspace: str
    session_id: str
    agent: str
    goal: str
    decision: str
    why: str
    evidence: str = ""
    provenance: str = PROVENANCE
    redacted: bool = False
    schema_version: int = NOTE_SCHEMA_VERSION

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        return {name: data[name] for name in _FIELDS}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> AgentNote:
        """Reads a stored line; anything but the documented shape raises ValueError."""
        if set(data) != set(_FIELDS):
            raise ValueError("unexpected or missing fields")
        text = {name: data[name] for name in _FIELDS if name not in ("schema_version", "redacted")}
        if not all(isinstance(value, str) for value in text.values()):
            raise ValueError("a text field is not a string")
        if data["schema_version"] != NOTE_SCHEMA_VERSION or not isinstance(data["redacted"], bool):
            raise ValueError("unsupported schema_version or redacted flag")
        return cls(**text, redacted=data["redacted"])


@dataclass(slots=True)
class NotesListing:
    """Notes oldest first, plus what could not be read (never fatal for a reader)."""

    notes: list[AgentNote] = field(default_factory=list)
    damaged_lines: int = 0
    torn_tail: bool = False


def _check_text(
    found: list[Violation], name: str, value: str, limit: int, *, required: bool
) -> None:
    if required and not go_trim(value):
        found.append(Violation(name, "is required and must not be blank"))
        return
    size = utf8_len(value)
    if size > limit:
        found.append(Violation(name, too_large(size, limit), limit))


def check_note(
    *, decision: str, why: str, evidence: str, goal: str, agent: str, session_id: str
) -> None:
    """Every broken rule at once, so an agent fixes a rejected note in one retry.

    Raises:
        NoteInvalid: naming each field, its size and the limit.
    """
    found: list[Violation] = []
    _check_text(found, "decision", decision, DECISION_MAX, required=True)
    _check_text(found, "why", why, WHY_MAX, required=True)
    _check_text(found, "evidence", evidence, EVIDENCE_MAX, required=False)
    _check_text(found, "goal", goal, GOAL_MAX, required=False)
    _check_text(found, "agent", agent, AGENT_MAX, required=False)
    _check_text(found, "session_id", session_id, SESSION_MAX, required=False)
    if found:
        raise NoteInvalid(found)


class NoteStore:
    """`<journal>/notes/<project_id>.jsonl`: 0700 directory, 0600 files, append-only."""

    def __init__(self, journal_root: Path, *, lock_timeout: float = LOCK_TIMEOUT) -> None:
        self.root = Path(os.path.abspath(journal_root))
        self.directory = self.root / NOTES_DIR
        self.lock_timeout = lock_timeout

    def path(self, project_id: str) -> Path:
        if not _PROJECT_ID.fullmatch(project_id):
            raise UnsafePath(f"invalid project id for a notes file: {project_id[:80]!r}")
        return self.directory / f"{project_id}.jsonl"

    def append(
        self,
        *,
        workspace: str,
        decision: str,
        why: str,
        evidence: str = "",
        goal: str = "",
        session_id: str = "",
        agent: str = "",
    ) -> AgentNote:
        """Validates, redacts and appends one note for the workspace's project.

        Raises:
            NoteInvalid: blank or oversized fields, all named at once.
            JournalDamaged: the notes path is a link or not a regular file.
            LockCancelled: another writer held the lock for too long.
        """
        check_note(
            decision=decision,
            why=why,
            evidence=evidence,
            goal=goal,
            agent=agent,
            session_id=session_id,
        )
        identity = project_identity(workspace)
        clean: dict[str, str] = {}
        redacted = False
        for name, value in (("decision", decision), ("why", why), ("evidence", evidence)):
            clean[name], report = redact_text(go_trim(value))
            redacted = redacted or report.redacted
        clean_goal, goal_report = redact_text(go_trim(goal))
        now = GoTime.now()
        note = AgentNote(
            id=f"note-{now.compact_stamp()}-{secrets.token_hex(4)}",
            created_at=now.format(),
            project_id=identity.project_id,
            project_alias=redact_text(identity.alias)[0],
            workspace=redact_text(identity.workspace)[0],
            session_id=_safe_identifier("session", session_id),
            agent=_safe_identifier("agent", agent),
            goal=clean_goal,
            decision=clean["decision"],
            why=clean["why"],
            evidence=clean["evidence"],
            redacted=redacted or goal_report.redacted,
        )
        self._append_line(self.path(identity.project_id), note)
        return note

    def _append_line(self, path: Path, note: AgentNote) -> None:
        line = encode_line(note.to_dict())
        ensure_private_dir(self.root, self.directory)
        with locked(self.root, path, timeout=self.lock_timeout):
            created = not path.exists()
            with _open_regular(path, os.O_RDWR | os.O_APPEND | os.O_CREAT) as fd:
                size = os.fstat(fd).st_size
                if size and os.pread(fd, 1, size - 1) != b"\n":
                    line = b"\n" + line  # a torn tail stays as it is, on a line of its own
                os.write(fd, line)
                os.fsync(fd)
            if created:
                fsync_dir(self.directory)

    def read(self, project_id: str, *, tail_bytes: int = TAIL_BYTES) -> NotesListing:
        """The notes in the last `tail_bytes` of the project's file, oldest first.

        A line that does not parse is counted, never fatal: notes are context for an agent,
        and one damaged line must not hide the rest.
        """
        path = self.path(project_id)
        check_no_links(self.root, path)
        try:
            with _open_regular(path, os.O_RDONLY) as fd:
                size = os.fstat(fd).st_size
                start = max(0, size - tail_bytes)
                data = os.pread(fd, size - start, start)
        except FileNotFoundError:
            return NotesListing()
        return _parse_lines(data, skip_first=start > 0)

    def recent(
        self, workspace: str, *, goal: str = "", limit: int = 20
    ) -> tuple[list[AgentNote], NotesListing]:
        """Newest first, optionally only one goal's notes; also returns the raw listing."""
        listing = self.read(project_identity(workspace).project_id)
        wanted = go_trim(goal)
        notes = [n for n in listing.notes if not wanted or n.goal == wanted]
        notes.reverse()
        return notes[: max(limit, 0)], listing


def _safe_identifier(prefix: str, value: str) -> str:
    """Identifiers are replaced by a stable non-secret id when they look like a secret."""
    text = go_trim(value)
    return redacted_stable_id(prefix, text) if looks_sensitive(text) else text


@contextlib.contextmanager
def _open_regular(path: Path, flags: int) -> Iterator[int]:
    """Opens without following a link in the last component and insists on a regular file."""
    try:
        fd = os.open(path, flags | _O_NOFOLLOW | _O_CLOEXEC | _O_BINARY, FILE_MODE)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise UnsafePath(f"notes file is a symbolic link: {path}", path=str(path)) from exc
        raise
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise UnsafePath(f"notes file is not a regular file: {path}", path=str(path))
        yield fd
    finally:
        os.close(fd)


def _parse_lines(data: bytes, *, skip_first: bool) -> NotesListing:
    listing = NotesListing()
    lines = data.split(b"\n")
    tail = lines.pop()  # after the last newline: empty, or a torn line
    if tail.strip():
        listing.torn_tail = True
    if skip_first and lines:
        lines.pop(0)  # the tail window began mid-line
    for raw in lines:
        if not raw.strip():
            continue
        try:
            value = json.loads(raw.decode("utf-8"))
            if not isinstance(value, dict):
                raise ValueError("not an object")
            listing.notes.append(AgentNote.from_dict(value))
        except (ValueError, TypeError):
            listing.damaged_lines += 1
    return listing
