"""The one bridge between the journal's disk work and the journal window: results as signals.

Why one bridge: every read, write, rebuild request, import and export runs in a worker, and
only this QObject (created in the GUI thread) turns their results into signals, so no widget
ever touches the disk or a lock, and none submits work of its own. The work itself lives in
Qt-free job modules, one job each (`browse_jobs`, `record_jobs`, `profile_jobs`,
`waiting_jobs`, `transfer_jobs`, `conflict_jobs`); this class only queues it and wires its
answers to signals. Work runs in three lanes, named for what they serve: `browse` (the list's
index queries, one thread, so a burst of filter changes queues instead of competing for the
two cores), `records` (one decision, its history, edits, the profile, the waiting list and the
index's catch-up) and `transfers` (imports, exports, "Confirm all"), so saving never waits
behind a slow query or a long import. Answers carry the generation, decision ID or cancel
flag they belong to; the widgets drop answers that arrive after the user moved on.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal

from app.gui.journal import (
    conflict_jobs,
    profile_jobs,
    record_jobs,
    transfer_jobs,
    waiting_jobs,
)
from app.gui.journal.browse_jobs import ScopeBrowser
from app.gui.journal.requests import (
    PAGE_SIZE,
    ExportRequest,
    FilterState,
    ImportRequest,
    OverrideRequest,
    ScopeCount,
    ScopePage,
)
from app.workers import WorkerPool
from core.errors import ProfileConflict, describe
from core.importers.detect import detect_kind
from core.index.journal_index import JournalIndex
from core.index.query import IndexFilter
from core.index.snapshots import SnapshotCache
from core.journal import Journal
from core.profile.model import ProfileStatus
from core.profile.worker import ProfileRebuildWorker
from core.record.corrections import Correction
from core.record.models import DecisionRecord
from core.sync.resolution import Revision

log = logging.getLogger(__name__)
BROWSE = "browse"
RECORDS = "records"
TRANSFERS = "transfers"


@dataclass(slots=True)
class _Relay:
    """Hands what a worker thread reports to a signal until detached (before the bridge is
    destroyed), so a profile worker or a store that outlives the bridge (in tests) never
    reaches a deleted QObject. It is the profile worker's observer and the store's commit
    listener: a commit (a capture, an edit, an import, the transcript watch) emits the
    decision's ID, in whichever thread committed; Qt delivers it queued."""

    emit_status: Callable[[ProfileStatus], None]
    emit_commit: Callable[[str], None]
    attached: bool = True
    lock: threading.Lock = field(default_factory=threading.Lock)

    def on_state_changed(self, status: ProfileStatus) -> None:
        with self.lock:
            if self.attached:
                self.emit_status(status)

    def record_committed(self, record: DecisionRecord) -> None:
        with self.lock:
            if self.attached:
                self.emit_commit(record.id)

    def detach(self) -> None:
        with self.lock:
            self.attached = False


class JournalBridge(QObject):
    """Signals:
    scope_loaded(object): a `ScopePage`, the first page of a newly applied filter.
    scope_counted(object): a `ScopeCount`, its snapshot and total, right after.
    scope_failed(int, str): (generation, message).
    page_loaded(int, int, object): (generation, offset, rows) of a later page.
    page_expired(int): the snapshot of that generation is gone or changed.
    catalog_loaded(object): a `Catalog`.
    files_read(object): an `IndexReadReport` after the index caught up with the disk.
    record_committed(str): this process committed a revision of that decision (its index row
        is already current); emitted in the committing thread, delivered queued.
    index_progressed(int, int): (files read, files to read) while a catch-up reads files.
    record_loaded(object): a `DecisionRecord` read from the store.
    record_failed(str, str): (decision ID, message).
    history_loaded(str, object): (decision ID, a `RevisionHistory`).
    history_failed(str, str): (decision ID, message).
    mutation_finished(object): a `MutationResult`.
    profile_loaded(object): a `ProfileView`.
    profile_conflicted(int): the profile's current revision after a lost CAS.
    profile_state_changed(object): a `ProfileStatus` from the rebuild worker.
    labels_loaded(object): {decision ID: problem}.
    pending_loaded(object): pending decisions as `pending_items` lists them.
    notes_loaded(str, object, int): (project ID, notes newest first, damaged lines).
    export_progressed(int, int): (records written, records in total), throttled.
    export_finished(object): an `ExportOutcome`.
    moved_aside(object): a `MovedAside` after damaged files were moved to quarantine.
    source_detected(str, str): (source as typed, import kind) for the Import dialog.
    source_undetected(str, str): (source as typed, why no importer recognised it).
    import_progressed(object): an `ImportProgress`, emitted on the importing thread.
    import_finished(object): an `ImportOutcome` of a finished, cancelled or failed import.
    imports_confirmed(object): a `ConfirmReport` after "Confirm all imported".
    imports_unconfirmed(str): why "Confirm all imported" could not run.
    outcomes_loaded(object): the profile tab's `OutcomeFigures`.
    outcomes_failed(str): why they could not be counted.
    conflicts_listed(object): the frozenset of decision IDs with a sync conflict.
    conflict_loaded(str, object): (decision ID, its `ConflictVersions`, None without one).
    conflict_failed(str, str): (decision ID, message) when its versions cannot be read.
    conflict_resolved(object): a `ConflictOutcome` after "Keep this one" or a merge.
    """

    scope_loaded = Signal(object)
    scope_counted = Signal(object)
    scope_failed = Signal(int, str)
    page_loaded = Signal(int, int, object)
    page_expired = Signal(int)
    catalog_loaded = Signal(object)
    files_read = Signal(object)
    record_committed = Signal(str)
    index_progressed = Signal(int, int)
    record_loaded = Signal(object)
    record_failed = Signal(str, str)
    history_loaded = Signal(str, object)
    history_failed = Signal(str, str)
    mutation_finished = Signal(object)
    profile_loaded = Signal(object)
    modes_loaded = Signal(object)
    """A `ModesView`: every decision kind's score and mode, or the error reading them."""
    profile_conflicted = Signal(int)
    profile_state_changed = Signal(object)
    labels_loaded = Signal(object)
    pending_loaded = Signal(object)
    notes_loaded = Signal(str, object, int)
    export_progressed = Signal(int, int)
    export_finished = Signal(object)
    moved_aside = Signal(object)
    source_detected = Signal(str, str)
    source_undetected = Signal(str, str)
    import_progressed = Signal(object)
    import_finished = Signal(object)
    imports_confirmed = Signal(object)
    imports_unconfirmed = Signal(str)
    outcomes_loaded = Signal(object)
    outcomes_failed = Signal(str)
    # sync conflicts (see the "sync conflicts" block below)
    conflicts_listed = Signal(object)
    conflict_loaded = Signal(str, object)
    conflict_failed = Signal(str, str)
    conflict_resolved = Signal(object)

    def __init__(
        self,
        journal: Journal,
        *,
        snapshots: SnapshotCache | None = None,
        profile_worker: ProfileRebuildWorker | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.journal = journal
        self.index: JournalIndex = journal.index
        self.browser = ScopeBrowser(journal.index, snapshots)
        self.snapshots = self.browser.snapshots
        self._owns_worker = profile_worker is None
        self.profile_worker = profile_worker or journal.start_profile_worker()
        self._relay = _Relay(self.profile_state_changed.emit, self.record_committed.emit)
        self.profile_worker.add_observer(self._relay)
        journal.store.add_listener(self._relay)
        self._lanes = {
            BROWSE: WorkerPool(self, max_threads=1),
            RECORDS: WorkerPool(self, max_threads=2),
            TRANSFERS: WorkerPool(self, max_threads=2),
        }
        self._closed = False

    # the list (`browse_jobs`) ------------------------------------------------------------------

    def open_scope(
        self, generation: int, state: FilterState, kept: str = "", *, rows: int = PAGE_SIZE
    ) -> None:
        """The first `rows` as `scope_loaded` at once, then its `ScopeCount` (which says
        whether it holds `kept`, the decision on screen) as `scope_counted`."""
        self.browser.latest = generation

        def show_first(page: ScopePage) -> None:
            if not self._closed:
                self.scope_loaded.emit(page)

        def done(count: ScopeCount | None) -> None:
            if count is not None:
                self.scope_counted.emit(count)

        self._run(
            BROWSE,
            lambda: self.browser.open_scope(generation, state, kept, show_first, first_rows=rows),
            done,
            lambda exc: self.scope_failed.emit(generation, str(describe(exc))),
        )

    def fetch_page(self, generation: int, snapshot_id: str, offset: int, limit: int) -> None:
        def done(rows: list[Any] | None) -> None:
            if rows is None:
                self.page_expired.emit(generation)
            else:
                self.page_loaded.emit(generation, offset, rows)

        self._run(
            BROWSE,
            lambda: self.browser.page(snapshot_id, offset, limit),
            done,
            lambda _exc: self.page_expired.emit(generation),
        )

    def load_catalog(self) -> None:
        self._run(
            BROWSE,
            lambda: self.browser.catalog(waiting_jobs.waiting_project(self.journal)),
            self.catalog_loaded.emit,
        )

    def load_labels(self, ids: list[str]) -> None:
        self._run(BROWSE, lambda: self.browser.labels(ids), self.labels_loaded.emit)

    def current_project(self) -> str:
        """What "Current project" lists (runs in a worker): `ScopeBrowser.current_project`."""
        return self.browser.current_project()

    def forget_current_project(self) -> None:
        """The next query looks for the current project again (the window was closed)."""
        self.browser.forget_current_project()

    def waiting_project(self) -> str:
        """The project of the newest waiting decision, "" when none waits (runs in a worker)."""
        return waiting_jobs.waiting_project(self.journal)

    # the index's upkeep (`record_jobs`) ------------------------------------------------------

    def read_changed_files(self) -> None:
        """Catches the index up with files other processes wrote; runs beside queries."""
        self._run(
            RECORDS,
            lambda: record_jobs.read_changed_files(
                self.journal, self.profile_worker, self.index_progressed.emit
            ),
            self.files_read.emit,
        )

    def move_aside(self, paths: list[str]) -> None:
        """Moves damaged files into the journal's quarantine folder, then catches up the index."""
        self._run(
            RECORDS,
            lambda: record_jobs.move_damaged_aside(
                self.journal, self.profile_worker, paths, self.index_progressed.emit
            ),
            self.moved_aside.emit,
        )

    # one record (`record_jobs`) ----------------------------------------------------------------

    def load_record(self, decision_id: str) -> None:
        """From the store, not the index: the inspector and the editor need the latest revision."""
        self._run(
            RECORDS,
            lambda: self.journal.store.get(decision_id),
            self.record_loaded.emit,
            lambda exc: self.record_failed.emit(decision_id, str(describe(exc))),
        )

    def load_history(self, decision_id: str) -> None:
        self._run(
            RECORDS,
            lambda: record_jobs.history(self.journal, decision_id),
            lambda history: self.history_loaded.emit(decision_id, history),
            lambda exc: self.history_failed.emit(decision_id, str(describe(exc))),
        )

    def save_correction(
        self,
        decision_id: str,
        expected: int,
        correction: Correction,
        note: str = "",
        *,
        settle: bool = False,
    ) -> None:
        """Saves the revision with its "why corrected" note (if any) beside the history.

        Args:
            settle: the form said that saving settles the decision's sync conflict.
        """
        self._mutate(
            "edit",
            decision_id,
            lambda: record_jobs.correct(
                self.journal, decision_id, expected, correction, note, settle=settle
            ),
        )

    def soft_delete(self, decision_id: str, expected: int, *, settle: bool = False) -> None:
        self._mutate(
            "delete",
            decision_id,
            lambda: record_jobs.soft_delete(self.journal, decision_id, expected, settle=settle),
        )

    def restore(self, decision_id: str, expected: int, *, settle: bool = False) -> None:
        self._mutate(
            "restore",
            decision_id,
            lambda: record_jobs.restore(self.journal, decision_id, expected, settle=settle),
        )

    def confirm_import(self, decision_id: str, expected: int) -> None:
        """Confirms an imported record as the user's own, on the revision the window showed."""
        self._mutate(
            "confirm",
            decision_id,
            lambda: record_jobs.confirm_import(self.journal, decision_id, expected),
        )

    def _mutate(self, action: str, decision_id: str, run: Callable[[], Revision]) -> None:
        """Returns as soon as the revision is committed; the profile worker hears the commit."""
        self._run(
            RECORDS,
            lambda: record_jobs.mutate(self.journal, action, decision_id, run),
            self.mutation_finished.emit,
            lambda exc: self.mutation_finished.emit(
                record_jobs.failed_mutation(action, decision_id, exc)
            ),
        )

    # the profile (`profile_jobs`) ------------------------------------------------------------

    def load_profile(self) -> None:
        self._run(
            RECORDS,
            lambda: profile_jobs.profile_view(self.journal, self.profile_worker),
            self.profile_loaded.emit,
        )

    def save_override(self, request: OverrideRequest) -> None:
        def failed(exc: BaseException) -> None:
            if isinstance(exc, ProfileConflict):
                self.profile_conflicted.emit(exc.current_revision or 0)
            else:
                self.profile_loaded.emit(profile_jobs.failed_override(exc))
            self.load_profile()

        self._run(
            RECORDS,
            lambda: profile_jobs.save_override(self.journal, request),
            self.profile_loaded.emit,
            failed,
        )

    def load_modes(self) -> None:
        self._run(
            RECORDS,
            lambda: profile_jobs.modes(self.journal),
            self.modes_loaded.emit,
            lambda exc: self.modes_loaded.emit(profile_jobs.failed_modes(exc)),
        )

    def set_mode(self, kind: str, mode: str) -> None:
        """`ask` always; `auto` only when recommended (the refusal's reason is shown)."""
        self._run(
            RECORDS,
            lambda: profile_jobs.set_mode(self.journal, kind, mode),
            self.modes_loaded.emit,
            lambda exc: self.modes_loaded.emit(profile_jobs.failed_modes(exc)),
        )

    def request_rebuild(self) -> None:
        """Never blocks: the worker coalesces requests and reports its state by signal."""
        self.profile_worker.request_rebuild()

    # waiting (`waiting_jobs`) ------------------------------------------------------------------

    def load_pending(self) -> None:
        self._run(RECORDS, lambda: waiting_jobs.pending(self.journal), self.pending_loaded.emit)

    def load_notes(self, project_id: str) -> None:
        self._run(
            RECORDS,
            lambda: waiting_jobs.notes(self.journal, project_id),
            lambda result: self.notes_loaded.emit(project_id, result[0], result[1]),
            lambda exc: log.warning("cannot read agent notes of %s: %s", project_id, exc),
        )

    # imports, exports, confirmations (`transfer_jobs`) -----------------------------------------

    def detect_source(self, source: str) -> None:
        """Which importer reads `source` (a path as typed; "~" is expanded)."""
        self._run(
            TRANSFERS,
            lambda: detect_kind(Path(source).expanduser()),
            lambda kind: self.source_detected.emit(source, kind),
            lambda exc: self.source_undetected.emit(source, str(describe(exc))),
        )

    def start_import(self, request: ImportRequest) -> None:
        """Runs one import; its ticks arrive as `import_progressed`, its end as an outcome."""
        self._run(
            TRANSFERS,
            lambda: transfer_jobs.import_source(self.journal, request, self.import_progressed.emit),
            self.import_finished.emit,
        )

    def confirm_imported(self, flt: IndexFilter) -> None:
        """Confirms every imported decision `flt` lists as the user's own (one revision each)."""
        self._run(
            TRANSFERS,
            lambda: transfer_jobs.confirm_imported(self.journal, flt),
            self.imports_confirmed.emit,
            lambda exc: self.imports_unconfirmed.emit(str(describe(exc))),
        )

    def load_outcomes(self) -> None:
        """Acceptance per kind and per-rule outcomes, for the profile tab (an index query)."""
        self._run(
            BROWSE,
            lambda: transfer_jobs.outcome_figures(self.journal),
            self.outcomes_loaded.emit,
            lambda exc: self.outcomes_failed.emit(str(describe(exc))),
        )

    def export(self, request: ExportRequest) -> None:
        """Writes the filter's records in the request's format, with throttled progress."""
        progress = transfer_jobs.throttled(self.export_progressed.emit)
        self._run(
            TRANSFERS,
            lambda: transfer_jobs.export(self.journal, request, progress),
            self.export_finished.emit,
        )

    # sync conflicts ----------------------------------------------------------------------------
    # Kept together and apart from the rest: the work itself is in `conflict_jobs`.

    def list_conflicts(self) -> None:
        self._run(
            RECORDS, lambda: conflict_jobs.conflicted_ids(self.journal), self.conflicts_listed.emit
        )

    def load_conflict(self, decision_id: str) -> None:
        self._run(
            RECORDS,
            lambda: conflict_jobs.load_versions(self.journal, decision_id),
            lambda view: self.conflict_loaded.emit(decision_id, view),
            lambda exc: self.conflict_failed.emit(decision_id, str(describe(exc))),
        )

    def resolve_conflict(
        self,
        decision_id: str,
        machine: str,
        expected: int,
        correction: Correction | None = None,
        note: str = "",
    ) -> None:
        """Writes `machine`'s version (merged with `correction`) as the next revision."""
        self._run(
            RECORDS,
            lambda: conflict_jobs.resolve(
                self.journal, decision_id, machine, expected, correction=correction, note=note
            ),
            self.conflict_resolved.emit,
        )

    # lanes and shutdown ------------------------------------------------------------------------

    def _run(
        self,
        lane: str,
        work: Callable[[], Any],
        done: Callable[[Any], None],
        failed: Callable[[BaseException], None] | None = None,
    ) -> None:
        """Queues `work` on `lane`; nothing is queued, and nothing delivered, after `shutdown`."""
        if not self._closed:
            self._lanes[lane].submit(work, self._guard(done), self._guard(failed or self._log))

    def _guard(self, callback: Callable[[Any], None]) -> Callable[[Any], None]:
        """Results that arrive after `shutdown` are dropped instead of reaching closed widgets."""

        def deliver(value: Any) -> None:
            if not self._closed:
                callback(value)

        return deliver

    @staticmethod
    def _log(exc: BaseException) -> None:
        log.warning("journal task failed: %s", describe(exc))

    def wait_idle(self, timeout_ms: int = 30_000) -> bool:
        """Lets the running jobs of every lane finish (their answers are then queued)."""
        return all([pool.wait_idle(timeout_ms) for pool in self._lanes.values()])

    def shutdown(self, timeout_ms: int = 30_000) -> None:
        """Lets running tasks finish, detaches from the profile worker, stops our own worker."""
        self._closed = True
        self._relay.detach()
        self.wait_idle(timeout_ms)
        if self._owns_worker:
            self.profile_worker.stop()
