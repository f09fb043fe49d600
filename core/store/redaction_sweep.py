"""Finds and removes secrets that records written before newer redaction patterns still hold.

Redaction runs on every write, so a record only keeps a secret when it was written by a
version that did not yet recognise it. ``decision-journal doctor --redact`` uses this module:

1. `find_unredacted` reads every current record and every history revision and reports those
   the present patterns would change;
2. `redact_current` rewrites each current record as a new revision through the store's normal
   compare-and-swap path (the old revision moves to history unchanged, as every edit does);
3. `purge_history` rewrites history revisions in place, the one exception to history being
   immutable, and only when the user asks for it;
4. `redact_other_file` rewrites a pending decision, draft, agent or correction note, or
   outcome log that holds one, every string of it redacted, in its writer's layout;
5. then `core.index.scrub.scrub_index` builds the search index again in a new file.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from core.errors import JournalError
from core.gocompat.gojson import dumps_indented_bytes
from core.record.codec import compact_record, encode_record
from core.record.models import DecisionRecord
from core.record.redact_record import redact_json, redact_record
from core.record.redaction import EMPTY_REPORT, redact_text
from core.store.append_log import encode_line
from core.store.decisions import DecisionStore, read_record_file
from core.store.history_files import DIGEST_SUFFIX, rewrite_revision, verify_digest
from core.store.locking import locked
from core.store.record_files import is_record_file_name
from core.store.safefs import atomic_write, read_regular_file

_HISTORY_FILE = re.compile(r"revision-(\d{6,})\.json")


@dataclass(frozen=True, slots=True)
class Unredacted:
    """One stored revision that the present patterns would change."""

    record_id: str
    revision: int
    path: str
    patterns: tuple[str, ...]
    in_history: bool


@dataclass(frozen=True, slots=True)
class SweepProblem:
    """A file the sweep could not read or rewrite; it is reported and the sweep goes on."""

    path: str
    error: str


@dataclass(frozen=True, slots=True)
class OtherFile:
    """A file outside records/ and history/ holding text the present patterns redact.

    Pending decisions, drafts, agent notes, correction notes and outcome signals are rewritten
    (`redact_other_file`); the profile is derived from the records and only named.
    """

    path: str
    patterns: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Survey:
    """What `find_unredacted` found, current records first, then history revisions."""

    found: tuple[Unredacted, ...]
    problems: tuple[SweepProblem, ...]
    others: tuple[OtherFile, ...] = ()

    @property
    def current(self) -> tuple[Unredacted, ...]:
        return tuple(item for item in self.found if not item.in_history)

    @property
    def history(self) -> tuple[Unredacted, ...]:
        return tuple(item for item in self.found if item.in_history)


def newly_found(record: DecisionRecord) -> tuple[str, ...] | None:
    """The pattern names the present redaction adds to ``record``, or None if it is clean.

    A record counts as holding a secret when redacting it again changes any stored text; the
    names are those of the new report that the record's own redaction metadata lacks.
    """
    redacted = redact_record(record)
    if compact_record(redacted) == compact_record(record):
        return None
    known = {name.casefold() for name in record.redaction.patterns}
    return tuple(name for name in redacted.redaction.patterns if name.casefold() not in known)


def find_unredacted(store: DecisionStore) -> Survey:
    """Every current record and history revision holding text the present patterns redact."""
    found: list[Unredacted] = []
    problems: list[SweepProblem] = []
    for current in sorted(store.record_files()):
        _check_file(store, str(current), current.stem, None, found=found, problems=problems)
    for record_id, path, revision in _history_files(store, problems):
        _check_file(store, path, record_id, revision, found=found, problems=problems)
    return Survey(tuple(found), tuple(problems), tuple(_other_files(store.root, problems)))


OTHER_FOLDERS = ("pending", "drafts", "notes", "corrections", "outcomes", "profiles")
"""The journal's other writers' folders, each redacting on write since its own first version."""
_OTHER_FILE_MAX = 64 * 1024 * 1024


def _other_files(root: Path, problems: list[SweepProblem]) -> Iterable[OtherFile]:
    for folder in OTHER_FOLDERS:
        for path in sorted((root / folder).rglob("*")):
            if path.name.startswith(".") or path.suffix.lower() == ".lock":
                continue
            if path.is_symlink() or not path.is_file():
                continue
            try:
                text = read_regular_file(root, path, _OTHER_FILE_MAX).decode("utf-8", "replace")
            except (JournalError, OSError) as exc:
                problems.append(SweepProblem(str(path), str(exc)))
                continue
            names = _patterns_in(text)
            if names:
                yield OtherFile(str(path), names)


def _patterns_in(text: str) -> tuple[str, ...]:
    """The patterns that would change any string of a JSON or NDJSON file (or its raw text).

    Strings are checked decoded, because JSON escapes (``\\u0021``, ``\\n``) hide a secret's
    characters from the raw bytes.
    """
    report = EMPTY_REPORT
    for value in _strings(text):
        report = report.merge(redact_text(value)[1])
    return report.patterns


REWRITTEN_FOLDERS = ("pending", "drafts", "notes", "corrections", "outcomes")
"""The folders whose files `redact_other_file` rewrites; the profile is rebuilt from records."""


def rewritable(root: Path, other: OtherFile) -> bool:
    """Whether `redact_other_file` rewrites ``other`` (it lies in one of REWRITTEN_FOLDERS)."""
    relative = Path(other.path).relative_to(root)
    return relative.parts[0] in REWRITTEN_FOLDERS


def redact_other_file(root: Path, path: Path) -> bool:
    """Rewrites one pending, draft, note, correction-note or outcome file with every string in
    it redacted (keys too, as the reference's session sanitizer does), under the file's lock.

    A JSON document keeps its layout (indented as Go's MarshalIndent when it was indented,
    compact otherwise), an NDJSON log stays one compact object per line, and anything else is
    redacted as text. Returns whether the file changed.
    """
    with locked(root, path):
        raw = read_regular_file(root, path, _OTHER_FILE_MAX).decode("utf-8", "replace")
        redacted = _redacted_layout(raw)
        if redacted == raw:
            return False
        atomic_write(root, path, redacted.encode("utf-8"))
    return True


def _redacted_layout(raw: str) -> str:
    newline = "\n" if raw.endswith("\n") else ""
    try:
        document = json.loads(raw)
    except ValueError:
        pass
    else:
        if "\n " in raw.strip():
            indented = dumps_indented_bytes(redact_json(document)).decode("utf-8")
            return indented.rstrip("\n") + newline
        return json.dumps(redact_json(document), ensure_ascii=False) + newline
    lines = raw.splitlines()
    try:
        entries = [json.loads(line) if line.strip() else None for line in lines]
    except ValueError:
        return redact_text(raw)[0]
    out = [
        "" if entry is None else encode_line(redact_json(entry)).decode("utf-8").rstrip("\n")
        for entry in entries
    ]
    return "\n".join(out) + newline


def _strings(text: str) -> Iterable[str]:
    try:
        documents = [json.loads(text)]
    except ValueError:
        try:
            documents = [json.loads(line) for line in text.splitlines() if line.strip()]
        except ValueError:
            yield text
            return
    stack: list[object] = documents
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def _check_file(
    store: DecisionStore,
    path: str,
    record_id: str,
    revision: int | None,
    *,
    found: list[Unredacted],
    problems: list[SweepProblem],
) -> None:
    try:
        record = read_record_file(store.root, Path(path), record_id)
    except (JournalError, OSError) as exc:
        problems.append(SweepProblem(path, str(exc)))
        return
    names = newly_found(record)
    if names is not None:
        number = record.revision if revision is None else revision
        found.append(Unredacted(record.id, number, path, names, revision is not None))


def _history_files(
    store: DecisionStore, problems: list[SweepProblem]
) -> Iterable[tuple[str, str, int]]:
    try:
        record_ids = sorted(os.listdir(store.history_dir))
    except FileNotFoundError:
        return
    for record_id in record_ids:
        directory = store.history_dir / record_id
        try:
            names = sorted(os.listdir(directory))
        except OSError as exc:
            problems.append(SweepProblem(str(directory), str(exc)))
            continue
        for name in names:
            match = _HISTORY_FILE.fullmatch(name)
            if match is not None:
                yield record_id, str(directory / name), int(match.group(1))
            elif is_record_file_name(name):
                problems.append(SweepProblem(str(directory / name), "not a history file name"))


def redact_current(store: DecisionStore, item: Unredacted) -> DecisionRecord:
    """Writes the redacted record as revision N+1; the store redacts while preparing it.

    Raises:
        RevisionConflict: when the record changed since it was surveyed; nothing is written.
    """
    return store.revise(item.record_id, item.revision, _unchanged)


def _unchanged(record: DecisionRecord) -> None:
    """The mutation of a redaction rewrite: none; `DecisionStore.revise` redacts on save."""


def purge_history(store: DecisionStore, record_id: str) -> list[int]:
    """Rewrites, in place, every history revision of one record that holds a secret.

    History is otherwise never changed; this runs only on the user's explicit request. Each
    file is replaced atomically under the record's lock, keeping its revision, timestamps and
    status, with the redaction metadata merged as on any save, and its digest is written
    again. A revision that no longer matches its digest is refused, not re-sealed: purging
    must never make tampered history look genuine.

    Raises:
        HistoryTampered: a revision holding a secret was changed after it was written.

    Returns:
        The revisions rewritten, in order.
    """
    directory = store.history_dir / record_id
    rewritten: list[int] = []
    with locked(store.root, store.record_path(record_id), timeout=store.lock_timeout):
        for name in sorted(os.listdir(directory)):
            match = _HISTORY_FILE.fullmatch(name)
            if match is None:
                continue
            path = directory / name
            record = read_record_file(store.root, path, record_id)
            if newly_found(record) is None:
                continue
            if os.path.lexists(directory / (name + DIGEST_SUFFIX)):
                verify_digest(store.root, directory, name, path.read_bytes())
            rewrite_revision(store.root, directory, name, encode_record(redact_record(record)))
            rewritten.append(int(match.group(1)))
    return rewritten
