"""The store's rules for a journal file another machine sent, checked before it is written.

Why the same rules as a local write: a remote is hostile until checked, and a file that lands in
`records/` or `history/` is read by every part of the app (the index, the profile agents are
given, KernForge) as if this machine had written it. So a record must be one the store would
write: it decodes under the read contract (schema, id equals its file name, lifecycle, limits),
it holds nothing the redaction rules would remove, a history revision is the revision its name
says, a digest file is the `sha256sum` line of its revision, and a record's history chain is
complete. Logs are read leniently by the journal (a torn line is skipped), so they are only
checked to be UTF-8 text within the size cap.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable

from core import limits
from core.bulk.fast_read import fast_read
from core.bulk.redaction_gate import record_unchanged
from core.errors import InvalidDecision, JournalDamaged
from core.record.codec import decode_stored_record
from core.record.redact_record import redact_record
from core.store.correction_notes import NOTE_MAX
from core.sync.paths import CONFLICTS, HISTORY, RECORDS, history_path, unit_of

_HISTORY_NAME = re.compile(r"revision-(\d{6,})\.json")
_DIGEST_LINE = re.compile(r"([0-9a-f]{64})  (revision-\d{6,}\.json)\n")
_CONFLICT_VERSION = re.compile(r"revision-(\d{6,})\.[0-9a-f]{8}\.json")
_CORRECTION_NAME = re.compile(r"revision-(\d{6,})\.json")
NOTE_FILE_MAX = 4 * NOTE_MAX + 4096
"""A correction note file: the note, its author and time, JSON-escaped at worst."""


def file_problem(path: str, data: bytes) -> str | None:
    """Why the store would not write `data` at journal path `path` (a path `unit_of` knows),
    or None when it would. A digest file is checked for its shape here and against its
    revision by `digest_mismatch`, once the revision's bytes are known."""
    parts = path.split("/")
    unit = unit_of(path)
    if parts[0] == RECORDS:
        return _record_problem(path, data, parts[1].removesuffix(".json"), None)
    if parts[0] == HISTORY:
        return _history_problem(path, data, parts[1], parts[2])
    if parts[0] == CONFLICTS:
        return _conflict_problem(path, data, parts[1], parts[2])
    if parts[0] == "corrections":
        return _note_problem(data, parts[2])
    if unit is not None and unit.kind == "log":
        return _text_problem(data)
    return "it is not a journal file sync moves"


def _conflict_problem(path: str, data: bytes, record_id: str, name: str) -> str | None:
    match = _CONFLICT_VERSION.fullmatch(name)
    if match:
        return _record_problem(path, data, record_id, int(match.group(1)))
    return _json_object_problem(data, limits.RECORD_FILE_MAX)


def _history_problem(path: str, data: bytes, record_id: str, name: str) -> str | None:
    if name.endswith(".sha256"):
        return _digest_problem(data, name.removesuffix(".sha256"))
    match = _HISTORY_NAME.fullmatch(name)
    return _record_problem(path, data, record_id, int(match.group(1)) if match else -1)


def chain_problem(
    record_id: str, current: bytes | None, present: Callable[[str], bool]
) -> str | None:
    """Why a record's history would be broken once applied: every revision below the current
    one must be present (arriving or already here). None when it is complete."""
    if current is None:
        return None
    try:
        revision = int(json.loads(current).get("revision", 0))
    except (ValueError, AttributeError):
        return "the record is not JSON"
    missing = [n for n in range(1, revision) if not present(history_path(record_id, n))]
    if missing:
        return f"its history lacks revision {missing[0]} of {revision - 1} (the chain is broken)"
    return None


def _record_problem(path: str, data: bytes, record_id: str, revision: int | None) -> str | None:
    """`record_problem`, with the bulk reads first: most records another machine sends are
    read in C (`core.bulk.fast_read`) and proven untouched by redaction without redacting them
    (`core.bulk.redaction_gate`); any other record gets the plain checks, which word its
    problem."""
    if len(data) <= limits.RECORD_FILE_MAX:
        read = fast_read(data, record_id)
        if read is not None and record_unchanged(read.record):
            return _revision_problem(read.record.revision, revision)
    return record_problem(path, data, record_id, revision)


def record_problem(path: str, data: bytes, record_id: str, revision: int | None) -> str | None:
    """Why the store would not write the record in `data` at `path` (under the name of
    `record_id`, and for a history file `revision`), or None when it would."""
    if len(data) > limits.RECORD_FILE_MAX:
        return f"it is {len(data):,} bytes, over the record limit of {limits.RECORD_FILE_MAX:,}"
    try:
        record = decode_stored_record(data, what=path, expected_id=record_id)
    except (JournalDamaged, InvalidDecision, ValueError) as exc:
        return f"the store would not write it: {exc}"
    if (problem := _revision_problem(record.revision, revision)) is not None:
        return problem
    if redact_record(record) != record:  # model equality: field by field, no encoding
        return "it holds text the redaction rules remove (a secret), which no machine writes"
    return None


def _revision_problem(found: int, named: int | None) -> str | None:
    if named is not None and found != named:
        return f"it holds revision {found}, not the {named} its name says"
    return None


def _digest_problem(data: bytes, revision_name: str) -> str | None:
    match = _DIGEST_LINE.fullmatch(data.decode("utf-8", "replace"))
    if match is None or match.group(2) != revision_name:
        return f"it is not the sha256sum line of {revision_name}"
    return None


def digest_mismatch(data: bytes, revision: bytes | None) -> bool:
    """Whether a (well-formed) digest file names another content than the revision's."""
    if revision is None:
        return False
    match = _DIGEST_LINE.fullmatch(data.decode("utf-8", "replace"))
    return match is not None and match.group(1) != hashlib.sha256(revision).hexdigest()


def _json_object_problem(data: bytes, limit: int) -> str | None:
    if len(data) > limit:
        return f"it is {len(data):,} bytes, over the limit of {limit:,}"
    try:
        value = json.loads(data)
    except ValueError:
        return "it is not JSON"
    return None if isinstance(value, dict) else "it is not a JSON object"


def _note_problem(data: bytes, name: str) -> str | None:
    if (problem := _json_object_problem(data, NOTE_FILE_MAX)) is not None:
        return problem
    value = json.loads(data)
    match = _CORRECTION_NAME.fullmatch(name)
    note = value.get("note")
    if not isinstance(note, str) or len(note.encode("utf-8")) > NOTE_MAX:
        return f"its note is missing or over {NOTE_MAX} bytes"
    if match is None or int(value.get("revision", match.group(1))) != int(match.group(1)):
        return "it is the note of another revision than its name says"
    return None


def _text_problem(data: bytes) -> str | None:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return "it is not UTF-8 text"
    return None
