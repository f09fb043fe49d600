"""Runs one importer: idempotency by source key, dry runs, `--since`, writing and counting.

Why the rules live here and not in each importer: "a second run adds nothing", "a changed
source item is a conflict, never an overwrite" and "every item is counted somewhere" must hold
for every kind alike, so the importers only read and the engine alone writes.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from pathlib import Path

from core.bulk.compact_json import compact_bytes
from core.errors import (
    InvalidDecision,
    JournalError,
    RevisionConflict,
    StorageFailure,
    is_storage_failure,
)
from core.importers.base import (
    Conflict,
    ImportContext,
    Importer,
    ImportOptions,
    ImportReport,
    Item,
    ItemError,
    NoteItem,
    PendingItem,
    RecordItem,
    Skip,
)
from core.importers.ledger import ImportLedger
from core.importers.notes_sink import ImportedNote, NoteSink
from core.journal import Journal
from core.outcomes.signals import OutcomeLog, OutcomeSignal
from core.record.models import DecisionRecord
from core.record.normalize import normalize_record
from core.record.redact_record import redact_record
from core.record.validation import validate_record
from core.store.decisions import derive_record_id

SINCE_REASON = "older than --since"


def run_import(
    journal: Journal, importer: Importer, source: Path, options: ImportOptions | None = None
) -> ImportReport:
    """Imports everything `importer` finds in `source`; safe to repeat, safe to cancel."""
    options = options or ImportOptions()
    report = ImportReport(kind=importer.kind, source=str(source), dry_run=options.dry_run)
    ctx = ImportContext(journal, importer.kind, options, report)
    writer = _Writer(journal, importer.kind, options, report)
    started = time.perf_counter()
    try:
        for item in importer.items(source, ctx):
            if options.cancel is not None and options.cancel.is_set():
                report.cancelled = True
                break
            report.read += 1
            writer.handle(item)
            ctx.tick()
    finally:
        writer.close()
        report.seconds = time.perf_counter() - started
        ctx.finish()
    return report


def _digest(value: object) -> str:
    data = json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(data.encode("utf-8", "surrogatepass")).hexdigest()


class _Writer:
    def __init__(
        self, journal: Journal, kind: str, options: ImportOptions, report: ImportReport
    ) -> None:
        self.journal = journal
        self.options = options
        self.report = report
        self.ledger = ImportLedger(journal.root, kind, before_flush=self._flush_signals)
        self._notes: NoteSink | None = None
        self._signals: list[OutcomeSignal] = []

    def close(self) -> None:
        if not self.options.dry_run:
            self.ledger.flush()

    def handle(self, item: Item) -> None:
        if isinstance(item, Skip):
            self.report.skipped.append(item)
            return
        if isinstance(item, ItemError):
            self.report.errors.append(item)
            return
        since = self.options.since
        if since is not None and item.when is not None and item.when < since:
            self.report.skipped.append(Skip(item.key, SINCE_REASON))
            return
        try:
            if isinstance(item, RecordItem):
                self._record(item)
            elif isinstance(item, NoteItem):
                note = item.note
                self._keyed(
                    item.key, note.digest(), "note", lambda: self._write_note(note), note.check
                )
            elif isinstance(item, PendingItem):
                self._pending(item)
            else:
                signal = item.signal
                self._keyed(
                    item.key, _digest(signal.to_dict()), "signal", lambda: self._signal(signal)
                )
        except (JournalError, OSError) as exc:
            if isinstance(exc, StorageFailure) or (
                isinstance(exc, OSError) and is_storage_failure(exc)
            ):
                raise  # the journal refuses every write (read-only, full): one error, not each
            self.report.errors.append(ItemError(item.key, str(exc), key=item.key))

    # the ledger ------------------------------------------------------------------------------

    def _seen(self, key: str, digest: str) -> bool:
        """True when the key was imported before: unchanged, or a conflict if it changed."""
        entry = self.ledger.get(key)
        if entry is None:
            return False
        if entry.digest == digest:
            self.report.unchanged += 1
        else:
            self.report.conflicts.append(
                Conflict(
                    key,
                    entry.target,
                    "reads differently from when it was imported (its source was edited, or "
                    "a newer importer reads more of it, such as a date or consequences); the "
                    f"journal keeps {entry.target} as it is",
                )
            )
        return True

    def _imported(self, what: str) -> None:
        self.report.imported += 1
        self.report.written[what] += 1

    def _keyed(
        self,
        key: str,
        digest: str,
        what: str,
        write: Callable[[], str],
        check: Callable[[], None] | None = None,
    ) -> None:
        if self._seen(key, digest):
            return
        if self.options.dry_run:
            if check is not None:
                check()
        else:
            self.ledger.add(key, write(), digest, what)
        self._imported(what + "s")

    # records ---------------------------------------------------------------------------------

    def _record(self, item: RecordItem) -> None:
        record = item.record
        if not record.id.strip():
            record = record.model_copy(update={"id": derive_record_id(record)})
        digest = hashlib.sha256(compact_bytes(record)).hexdigest()
        if not item.canonical and self._seen(item.key, digest):
            return
        store = self.journal.store
        existed = store.exists(record.id)
        if self.options.dry_run:
            self._dry_record(record, existed)
            return
        try:
            store.put(record)
        except RevisionConflict as exc:
            if item.canonical or store.get(record.id).revision <= 1:
                self.report.conflicts.append(Conflict(item.key, record.id, str(exc)))
                return
            existed = True  # confirmed or corrected in the journal since: the journal wins
        except InvalidDecision as exc:
            self.report.errors.append(ItemError(item.key, str(exc), key=item.key))
            return
        if not item.canonical:
            self.ledger.add(item.key, record.id, digest, "record")
        if existed:
            self.report.unchanged += 1
        else:
            self._imported("records")

    def _dry_record(self, record: DecisionRecord, existed: bool) -> None:
        if existed:
            self.report.unchanged += 1
            return
        candidate = record.model_copy(update={"revision": 1})
        validate_record(redact_record(normalize_record(candidate)))
        self._imported("records")

    # notes, pending decisions, signals -------------------------------------------------------

    def _write_note(self, note: ImportedNote) -> str:
        if self._notes is None:
            self._notes = NoteSink(self.journal.root)
        return self._notes.write(note)

    def _pending(self, item: PendingItem) -> None:
        pending = item.pending
        digest = _digest(pending.proposal.proposal_fields())
        if self._seen(item.key, digest):
            return
        decision_id = pending.decision_id
        store, waiting = self.journal.store, self.journal.pending
        if store.exists(decision_id) or waiting.exists(decision_id):
            self.report.unchanged += 1
        elif not self.options.dry_run:
            waiting.save(pending)
            self._imported("pending")
        else:
            self._imported("pending")
        if not self.options.dry_run:
            self.ledger.add(item.key, decision_id, digest, "pending")

    def _signal(self, signal: OutcomeSignal) -> str:
        """Buffered: appended (one fsync per batch) before the ledger entries that name them."""
        self._signals.append(signal)
        return signal.decision_id

    def _flush_signals(self) -> None:
        if self._signals:
            OutcomeLog(self.journal.root).append(self._signals)
            self._signals = []
