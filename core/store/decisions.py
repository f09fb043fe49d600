"""The canonical, revisioned decision store: records/, history/ and their locks.

Every mutation is idempotent or compare-and-swap, preserves the previous revision in history
before replacing the current file, and is atomic on disk.
"""

from __future__ import annotations

import builtins
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from core import limits
from core.errors import (
    HistoryBroken,
    InvalidDecision,
    JournalDamaged,
    JournalError,
    NotFound,
    RevisionConflict,
    unreadable_records,
)
from core.gocompat.gotime import GoTime
from core.gocompat.text import go_lower
from core.messages.wording import too_large
from core.record.filters import ListFilter, matches, sort_key
from core.record.identity import decision_id
from core.record.shape import SCHEMA_VERSION, STATUS_COMPLETED, STATUS_CORRECTED, STATUS_DELETED
from core.record.validation import check_decision_id, validate_record
from core.store.history_files import (
    check_orphan_digests,
    read_revision,
    revision_name,
    scan_history,
    verify_digest,
    write_digest,
)
from core.store.locking import locked
from core.store.record_files import ListIssue, record_file_names
from core.store.safefs import (
    atomic_write,
    check_no_links,
    ensure_private_dir,
    read_regular_file,
)
from core.store.temp_sweep import remove_stale_temps, sweep_on_open

if TYPE_CHECKING:
    from core.record.models import DecisionRecord

# The record's model and codec (pydantic) load with the first record read or written, in the
# methods below: a command that only lists the index (`list`) never needs them.

MAX_REVISION = sys.maxsize

Mutation = Callable[["DecisionRecord"], None]


class CommitListener(Protocol):
    """Told after a revision is durably committed (the index, the profile worker)."""

    def record_committed(self, record: DecisionRecord) -> None: ...


@dataclass(slots=True)
class HistoryCheck:
    """A verified history: revisions 1..N, and those with no digest yet (written before
    digests were kept, or by KernForge)."""

    revisions: list[DecisionRecord] = field(default_factory=list)
    unsealed: list[int] = field(default_factory=list)


@dataclass(slots=True)
class ListResult:
    records: list[DecisionRecord] = field(default_factory=list)
    issues: list[ListIssue] = field(default_factory=list)


def _summary_is_curated(record: DecisionRecord) -> bool:
    return go_lower(record.provenance.summary) == "user"


class DecisionStore:
    """One journal directory. Thread-safe and safe across processes."""

    def __init__(
        self, root: Path, *, lock_timeout: float | None = 30.0, sweep_temps: bool = True
    ) -> None:
        """Opens the journal at root; `sweep_temps` removes stale temp files of killed writers
        (cheaply: see `core.store.temp_sweep.sweep_on_open`)."""
        self.root = Path(os.path.abspath(root))
        self.records_dir = self.root / "records"
        self.history_dir = self.root / "history"
        self.lock_timeout = lock_timeout
        self._listeners: list[CommitListener] = []
        if sweep_temps and os.path.isdir(self.root) and not os.path.islink(self.root):
            sweep_on_open(self.root)

    def add_listener(self, listener: CommitListener) -> None:
        self._listeners.append(listener)

    def record_path(self, record_id: str) -> Path:
        check_decision_id(record_id)
        return self.records_dir / f"{record_id}.json"

    # reading ---------------------------------------------------------------------------------

    def get(self, record_id: str) -> DecisionRecord:
        path = self.record_path(record_id)
        try:
            return self._read(path, record_id)
        except NotFound as exc:  # the file's name means nothing to someone asking for an ID
            raise NotFound(f"decision {record_id} does not exist") from exc

    def _read(
        self, path: Path, expected_id: str, *, parents_checked: bool = False
    ) -> DecisionRecord:
        return read_record_file(self.root, path, expected_id, parents_checked=parents_checked)

    def exists(self, record_id: str) -> bool:
        return self.record_path(record_id).exists()

    def record_files(self) -> list[Path]:
        """Current record files: `*.json` (any case), ignoring locks and temp files."""
        return [self.records_dir / name for name in record_file_names(self.records_dir)]

    def list_with_issues(self, flt: ListFilter | None = None) -> ListResult:
        """Healthy records plus one issue per unreadable file; never hides healthy ones.

        The plain listing, one file after another; `core.bulk.listing` runs it with the cycle
        collector paused, for callers that list a whole journal on a user's behalf.
        """
        flt = flt or ListFilter()
        result = ListResult()
        check_no_links(self.root, self.records_dir)
        for path in self.record_files():
            try:
                record = self._read(path, path.name[: -len(".json")], parents_checked=True)
            except (JournalError, OSError) as exc:
                result.issues.append(ListIssue(str(path), str(exc)))
                continue
            if matches(record, flt):
                result.records.append(record)
        result.records.sort(key=sort_key, reverse=True)
        result.issues.sort(key=lambda issue: issue.path)
        if flt.limit > 0:
            del result.records[flt.limit :]
        return result

    def list(self, flt: ListFilter | None = None) -> list[DecisionRecord]:
        """Fails closed when any record is unreadable: for export and derivation."""
        result = self.list_with_issues(flt)
        if result.issues:
            first = result.issues[0]
            raise unreadable_records(len(result.issues), first.path, first.error)
        return result.records

    # writing ---------------------------------------------------------------------------------

    def put(self, record: DecisionRecord) -> DecisionRecord:
        """Inserts revision 1; the same content again returns the stored record; else conflict."""
        from core.record.models import Redaction  # noqa: PLC0415  # see the imports

        candidate = record.model_copy(deep=True)
        if not candidate.id.strip():
            candidate.id = derive_record_id(candidate)
        path = self.record_path(candidate.id.strip())
        ensure_private_dir(self.root, self.records_dir)
        with locked(self.root, path, timeout=self.lock_timeout):
            if path.exists() or os.path.islink(path):
                return self._put_existing(path, candidate)
            now = GoTime.now()
            candidate.created_at = candidate.created_at or now
            candidate.updated_at = now
            candidate.revision = 1
            candidate.redaction = Redaction()
            if not candidate.status.strip():
                candidate.status = STATUS_COMPLETED
            stored = self._prepare(candidate)
            self._write_current(path, stored)
        self._notify(stored)
        return stored

    def _put_existing(self, path: Path, candidate: DecisionRecord) -> DecisionRecord:
        from core.record.codec import compact_record  # noqa: PLC0415  # see the imports
        from core.record.normalize import normalize_record  # noqa: PLC0415
        from core.record.redact_record import redact_record  # noqa: PLC0415

        existing = self._read(path, candidate.id.strip())
        candidate.schema_version = existing.schema_version
        candidate.revision = existing.revision
        candidate.created_at = existing.created_at
        candidate.updated_at = existing.updated_at
        candidate.redaction = existing.redaction.model_copy(deep=True)
        prepared = redact_record(normalize_record(candidate))
        if compact_record(prepared) == compact_record(existing):
            return existing
        raise RevisionConflict(
            f"implementation decision revision conflict: decision {existing.id} already exists "
            f"at revision {existing.revision} with different content",
            current_revision=existing.revision,
        )

    def _prepare(self, record: DecisionRecord) -> DecisionRecord:
        from core.record.codec import encode_record  # noqa: PLC0415  # see the imports
        from core.record.normalize import normalize_record  # noqa: PLC0415
        from core.record.redact_record import redact_record  # noqa: PLC0415

        if record.schema_version == 0:
            record.schema_version = SCHEMA_VERSION
        prepared = redact_record(normalize_record(record))
        validate_record(prepared)
        data = encode_record(prepared)
        if len(data) > limits.RECORD_FILE_MAX:
            raise InvalidDecision(
                "implementation decision record exceeds the storage limit: the record "
                f"{too_large(len(data), limits.RECORD_FILE_MAX)}",
                field="record",
                limit=limits.RECORD_FILE_MAX,
            )
        return prepared

    def _write_current(self, path: Path, record: DecisionRecord) -> None:
        from core.record.codec import encode_record  # noqa: PLC0415  # see the imports

        atomic_write(self.root, path, encode_record(record))

    def revise(self, record_id: str, expected_revision: int, mutate: Mutation) -> DecisionRecord:
        """Compare-and-swap edit: history first, then the atomic replace of the current file."""
        if expected_revision <= 0:
            raise InvalidDecision("expected revision must be positive", field="expected_revision")
        path = self.record_path(record_id)
        with locked(self.root, path, timeout=self.lock_timeout):
            original = self._read_for_update(path, record_id)
            self._check_revision(original, expected_revision)
            self._verified_history(record_id, original, seal=True)
            updated = original.model_copy(deep=True)
            mutate(updated)
            revised = self._apply_revision(original, updated)
            self._preserve_history(original)
            self._write_current(path, revised)
        self._notify(revised)
        return revised

    def _read_for_update(self, path: Path, record_id: str) -> DecisionRecord:
        if not path.exists() and not os.path.islink(path):
            raise NotFound(f"decision {record_id} does not exist")
        return self._read(path, record_id)

    @staticmethod
    def _check_revision(record: DecisionRecord, expected: int) -> None:
        if record.revision != expected:
            raise RevisionConflict(
                f"implementation decision revision conflict: decision {record.id} is revision "
                f"{record.revision}, expected {expected}",
                current_revision=record.revision,
            )
        if expected >= MAX_REVISION:
            raise InvalidDecision(
                f"implementation decision revision cannot advance beyond {MAX_REVISION}",
                field="revision",
            )

    def _apply_revision(self, original: DecisionRecord, updated: DecisionRecord) -> DecisionRecord:
        updated.id = original.id
        updated.created_at = original.created_at
        updated.redaction = original.redaction.model_copy(deep=True)
        updated.revision = original.revision + 1
        updated.updated_at = GoTime.now()
        if not updated.is_deleted:
            updated.status = STATUS_CORRECTED
            updated.deleted_at = None
        if not _summary_is_curated(updated):
            updated.summary_sentence = ""
        return self._prepare(updated)

    def _preserve_history(self, original: DecisionRecord) -> None:
        """Writes the revision being replaced, then its digest; the chain was checked first."""
        directory = self.history_dir / original.id
        ensure_private_dir(self.root, directory)
        name = revision_name(original.revision)
        from core.record.codec import encode_record  # noqa: PLC0415  # see the imports

        data = encode_record(original)
        if os.path.lexists(directory / name):  # left by a writer stopped before its replace
            if read_revision(self.root, directory, name) != data:
                raise HistoryBroken(
                    f"implementation decision history revision {original.revision} already "
                    f"exists with different content: {directory / name}",
                    path=str(directory / name),
                )
        else:
            atomic_write(self.root, directory / name, data)
        write_digest(self.root, directory, name, data)

    def soft_delete(self, record_id: str, expected_revision: int) -> DecisionRecord:
        return self.revise(record_id, expected_revision, mark_deleted)

    def restore(self, record_id: str, expected_revision: int) -> DecisionRecord:
        return self.revise(record_id, expected_revision, mark_restored)

    # history ---------------------------------------------------------------------------------

    def history(self, record_id: str) -> builtins.list[DecisionRecord]:
        """Revisions 1..N, verified continuous, consistent and unchanged, under the lock."""
        return self.check_history(record_id).revisions

    def check_history(self, record_id: str, *, seal: bool = False) -> HistoryCheck:
        """The verified chain, and which revisions had no digest (`seal` writes them)."""
        path = self.record_path(record_id)
        if not self.records_dir.exists():
            return HistoryCheck()
        with locked(self.root, path, timeout=self.lock_timeout):
            current = None
            if path.exists() or os.path.islink(path):
                current = self._read(path, record_id)
            return self._verified_history(record_id, current, seal=seal)

    def _verified_history(
        self, record_id: str, current: DecisionRecord | None, *, seal: bool
    ) -> HistoryCheck:
        """Fails closed unless history is exactly revisions 1..N-1 of regular files whose
        digests, where written, still match; the current record is N. Call under the lock."""
        directory = self.history_dir / record_id
        folder = scan_history(directory)
        if seal:
            remove_stale_temps(directory, folder.temps)
        revisions: dict[int, DecisionRecord] = {}
        unsealed: dict[int, bytes] = {}
        for number, name in sorted(folder.revisions.items()):
            data = read_revision(self.root, directory, name)
            revisions[number] = _decode_history(directory / name, data, record_id, number)
            if name in folder.digests:
                verify_digest(self.root, directory, name, data)
            else:
                unsealed[number] = data
        if current is not None:
            self._merge_revision(revisions, current, "current")
        ordered = _continuous(record_id, revisions)
        check_orphan_digests(directory, folder)
        if current is not None and ordered and ordered[-1].revision != current.revision:
            raise HistoryBroken(
                f"implementation decision history for {record_id} holds revision "
                f"{ordered[-1].revision}, newer than the current revision {current.revision}",
                path=str(directory),
            )
        if seal:  # only a chain found whole: a digest must never vouch for a broken one
            for number, data in unsealed.items():
                write_digest(self.root, directory, revision_name(number), data)
        return HistoryCheck(ordered, list(unsealed))

    @staticmethod
    def _merge_revision(
        revisions: dict[int, DecisionRecord], record: DecisionRecord, where: str
    ) -> None:
        from core.record.codec import compact_record  # noqa: PLC0415  # see the imports

        known = revisions.get(record.revision)
        if known is None:
            revisions[record.revision] = record
        elif compact_record(known) != compact_record(record):
            what = "conflicts with current" if where == "current" else "has conflicting"
            raise HistoryBroken(
                f"implementation decision history {what} revision {record.revision}"
            )

    def _notify(self, record: DecisionRecord) -> None:
        for listener in self._listeners:
            listener.record_committed(record)


def read_record_file(
    root: Path, path: Path, expected_id: str, *, parents_checked: bool = False
) -> DecisionRecord:
    """One record file under the read contract; a module function so worker processes share it."""
    data = read_regular_file(root, path, limits.RECORD_FILE_MAX, parents_checked=parents_checked)
    return decode_record_file(path, data, expected_id)


def decode_record_file(path: Path, data: bytes, expected_id: str) -> DecisionRecord:
    """The record in the bytes of the record file at `path`, under the read contract; an error
    names the file."""
    from core.record.codec import decode_stored_record  # noqa: PLC0415  # see the imports

    try:
        return decode_stored_record(data, what=path.name, expected_id=expected_id)
    except JournalDamaged as exc:
        exc.path = str(path)
        raise


def derive_record_id(record: DecisionRecord) -> str:
    return decision_id(
        project_id=record.project_id,
        task_fp=record.task_fingerprint,
        evidence_fp=record.evidence_fingerprint,
        problem=record.problem,
        options=list(record.options),
    )


def _decode_history(path: Path, data: bytes, record_id: str, number: int) -> DecisionRecord:
    try:
        record = decode_record_file(path, data, record_id)
    except JournalDamaged as exc:
        raise HistoryBroken(
            f"implementation decision history file {path.name} cannot be read: {exc}",
            path=str(path),
        ) from exc
    if record.revision != number:
        raise HistoryBroken(
            f"implementation decision history file {path.name} holds revision {record.revision}",
            path=str(path),
        )
    return record


def _continuous(record_id: str, revisions: dict[int, DecisionRecord]) -> list[DecisionRecord]:
    ordered = [revisions[number] for number in sorted(revisions)]
    for expected, record in enumerate(ordered, start=1):
        if record.revision != expected:
            raise HistoryBroken(
                f"implementation decision history for {record_id} is missing revision {expected}"
            )
    return ordered


def mark_deleted(record: DecisionRecord) -> None:
    """The change a soft-delete makes (a `revise` mutation)."""
    record.status = STATUS_DELETED
    record.deleted_at = GoTime.now()


def mark_restored(record: DecisionRecord) -> None:
    """The change a restore makes; raises RevisionConflict when the record is not deleted."""
    if not record.is_deleted:
        raise RevisionConflict(
            f"implementation decision revision conflict: decision {record.id} is not deleted",
            current_revision=record.revision,
        )
    record.status = STATUS_CORRECTED
    record.deleted_at = None
