"""Confirming imported records: the user vouches for the choice, with a revision in history.

Why a revision and not an import flag: confirmation changes what a record counts for (it
becomes preference evidence), so it must be visible and reversible like any correction. The
new revision sets `user` provenance on the selection and the rationale, and raises the detector
confidence to the profile's evidence floor: an import has no measured confidence (it is stored
as 0), and the user's confirmation is the judgement that the fork was material. Any correction
given with the confirmation (a reason typed in the window) is applied in the same revision.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace

from core.bulk.parallel_read import read_every_record
from core.errors import JournalError, NoChanges, RevisionConflict
from core.gocompat.text import go_lower
from core.limits import PROFILE_CONFIDENCE_MIN
from core.record.corrections import Correction, apply_correction
from core.record.filters import sort_key
from core.record.models import DecisionRecord
from core.record.shape import RecordShape, StoredRead
from core.store.decisions import DecisionStore

IMPORTED = "imported"
USER = "user"


def is_unconfirmed_import(record: RecordShape) -> bool:
    provenance = record.provenance
    return IMPORTED in (go_lower(provenance.selection), go_lower(provenance.rationale))


def unconfirmed_imports(store: DecisionStore, kind: str = "") -> list[DecisionRecord]:
    """Active imported records not yet confirmed, newest first; `kind` narrows to one source.

    Unreadable records are left out. Every record is read strictly by the reading processes of a
    cold build, and only the waiting ones come back as full models: a journal holds far more records
    than imports waiting, and this is several times faster than the store's listing on a large
    journal (bench/CHANGES.md).
    """
    tag = f"import:{kind}" if kind else ""
    chunks = read_every_record(store, _waiting_import, tag)
    waiting = [o.value for chunk in chunks for o in chunk if o.value is not None]
    waiting.sort(key=sort_key, reverse=True)
    return waiting


def _waiting_import(_name: str, tag: str, read: StoredRead) -> DecisionRecord | None:
    """The record as a full model when it is an active unconfirmed import (with `tag`)."""
    record = read.record
    if record.is_deleted or not is_unconfirmed_import(record) or (tag and tag not in record.tags):
        return None
    if isinstance(record, DecisionRecord):
        return record
    return DecisionRecord.model_validate_json(read.compact)  # validated when read: parse only


def _confirm(record: DecisionRecord, correction: Correction | None) -> None:
    changed = False
    if correction is not None and not correction.is_empty():
        try:
            apply_correction(record, replace(correction, provenance_source=USER))
            changed = True
        except NoChanges:
            pass
    if not is_unconfirmed_import(record) and not changed:
        raise NoChanges(f"decision {record.id} is already confirmed")
    record.provenance.selection = USER
    record.provenance.rationale = USER
    record.detector_confidence = max(record.detector_confidence, PROFILE_CONFIDENCE_MIN)


Reviser = Callable[[str, int, Callable[[DecisionRecord], None]], DecisionRecord]
"""How a confirmation is written: (record id, expected revision, the change) to the new revision.
Adapters pass the store's compare-and-swap through the sync conflict rule
(`core.sync.resolution.revise`, without settling), so confirming a decision that waits for a
choice of version after a sync is refused as any correction is; importers do not load sync."""


def confirmation(correction: Correction | None = None) -> Callable[[DecisionRecord], None]:
    """The change a confirmation makes (with any correction given in the same revision).

    Raises (when applied):
        NoChanges: the record is already confirmed and no correction was given.
    """
    return lambda record: _confirm(record, correction)


def confirm_record(
    record_id: str,
    expected_revision: int,
    correction: Correction | None = None,
    *,
    revise: Reviser,
) -> DecisionRecord:
    """One click on one record: compare-and-swap on the revision the window showed.

    Raises:
        NoChanges: the record is already confirmed and no correction was given.
        RevisionConflict: the record changed since the window read it.
        SyncConflictPending: the record waits for a choice of version (from `revise`).
    """
    return revise(record_id, expected_revision, confirmation(correction))


@dataclass(slots=True)
class ConfirmReport:
    confirmed: list[str] = field(default_factory=list)
    already: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    cancelled: bool = False


def confirm_batch(
    store: DecisionStore,
    record_ids: Iterable[str],
    *,
    revise: Reviser,
    progress: Callable[[int, int], None] | None = None,
    cancel: threading.Event | None = None,
) -> ConfirmReport:
    """One click for a batch: each record at its current revision, written through `revise`;
    failures (a sync conflict among them) are listed."""
    ids = list(record_ids)
    report = ConfirmReport()
    for done, record_id in enumerate(ids, start=1):
        if cancel is not None and cancel.is_set():
            report.cancelled = True
            break
        try:
            current = store.get(record_id)
            confirm_record(record_id, current.revision, revise=revise)
            report.confirmed.append(record_id)
        except NoChanges:
            report.already.append(record_id)
        except (RevisionConflict, JournalError, OSError) as exc:
            report.failed.append((record_id, str(exc)))
        if progress is not None:
            progress(done, len(ids))
    return report
