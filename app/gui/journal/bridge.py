"""The one bridge between the journal's disk work and the journal window: results as signals.

Why one bridge: every read, write, rebuild request, import and export runs in a worker, and
only this QObject (created in the GUI thread) turns their results into signals, so no widget
ever touches the disk or a lock, and none submits work of its own. Work runs in three lanes,
named for what they serve: `browse` (the list's index queries, one thread, so a burst of filter
changes queues instead of competing for the two cores), `records` (one decision, its history,
edits, the profile, the waiting list and the index's catch-up) and `transfers` (imports,
exports, "Confirm all"), so saving never waits behind a slow query or a long import. Answers
carry the generation, decision ID or cancel flag they belong to; the widgets drop answers
that arrive after the user moved on.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal

from app.gui.journal import conflict_jobs, transfer_jobs
from app.gui.journal.requests import (
    PAGE_SIZE,
    SCOPE_CURRENT,
    SORT_NEWEST,
    Catalog,
    ExportRequest,
    FilterState,
    ImportRequest,
    ModesView,
    MovedAside,
    MutationResult,
    OverrideRequest,
    ProfileView,
    RevisionHistory,
    ScopeCount,
    ScopePage,
    sort_ids,
)
from app.workers import WorkerPool
from core.agents.notes import AgentNote, NoteStore
from core.capture.pending import pending_items
from core.decider.service import decider_for
from core.errors import (
    InvalidDecision,
    JournalError,
    NoChanges,
    NotFound,
    ProfileConflict,
    RevisionConflict,
    SnapshotExpired,
    SnapshotTooLarge,
    SyncConflictPending,
    describe,
)
from core.importers.confirm import confirmation
from core.importers.detect import detect_kind
from core.index.journal_index import JournalIndex
from core.index.query import IndexFilter
from core.index.rows import ListRow
from core.index.snapshots import SnapshotCache
from core.journal import Journal, catch_up
from core.profile.model import PreferenceProfile, ProfileStatus
from core.profile.worker import ProfileRebuildWorker
from core.record.corrections import Correction, apply_correction
from core.record.models import DecisionRecord
from core.store.correction_notes import CorrectionNotes
from core.store.decisions import mark_deleted, mark_restored
from core.store.quarantine import move_aside
from core.sync.resolution import CORRECTING, DELETING, RESTORING, Revision

log = logging.getLogger(__name__)
NOTES_SHOWN = 200
PROGRESS_STEPS = 200
"""At most this many progress signals per export, so 100,000 records do not flood the queue."""
KEYS_KEPT = 16
"""Filter keys remembered per snapshot; the cache itself keeps at most four snapshots."""
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


def filter_key(flt: IndexFilter) -> str:
    return repr(flt)


class JournalBridge(QObject):
    """Signals:
    scope_loaded(object): a `ScopePage`, the first page of a newly applied filter.
    scope_counted(object): a `ScopeCount`, its snapshot and total, right after.
    scope_failed(int, str): (generation, message).
    page_loaded(int, int, object): (generation, offset, rows) of a later page.
    page_expired(int): the snapshot of that generation is gone or changed.
    catalog_loaded(object): a `Catalog`.
    reconciled(object): a `ReconcileReport` after the index caught up with the disk.
    record_committed(str): this process committed a revision of that decision (its index row
        is already current); emitted in the committing thread, delivered queued.
    index_progressed(int, int): (files read, files to read) while a reconcile reads files.
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
    reconciled = Signal(object)
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
        self.snapshots = snapshots if snapshots is not None else SnapshotCache()
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
        self._latest_scope = 0
        self._keys: dict[str, str] = {}
        self._keys_lock = threading.Lock()
        self._closed = False
        self._current = ""
        """The project "Current project" names until the window is closed ("" until found)."""

    # the list ----------------------------------------------------------------------------------

    def open_scope(self, generation: int, state: FilterState, kept: str = "") -> None:
        """Shows the first page at once, then freezes every matching ID in a snapshot.

        Two steps because a broad text query over 100,000 decisions spends most of its time
        collecting every matching ID: the newest 100 (a LIMIT query) are on screen first, and
        the count and the snapshot follow. If a capture landed in between, the snapshot's
        first page replaces the one shown, so paging never skips or repeats a row. Any order
        but newest first needs every match before the first page, so it takes one step. The
        count says whether the snapshot holds `kept` (the decision on screen).
        """
        self._latest_scope = generation

        def work() -> ScopeCount | None:
            if generation != self._latest_scope:
                return None  # superseded while queued: skip the query entirely
            current = self.current_project() if state.scope == SCOPE_CURRENT else ""
            flt = state.to_index_filter(current)
            if state.sort != SORT_NEWEST:
                return self._sorted_scope(generation, state, flt, current, kept)
            first = self.index.query_ids(replace(flt, limit=PAGE_SIZE))
            rows = self.index.rows(first)
            if not self._closed:
                self.scope_loaded.emit(self._page(generation, rows, current, flt))
            if len(first) == PAGE_SIZE and generation != self._latest_scope:
                return None  # the user typed on: the count of this filter is not needed
            ids = first if len(first) < PAGE_SIZE else self.index.query_ids(flt)
            snapshot, ids, truncated = self._freeze(filter_key(flt), ids)
            fresh = None if ids[:PAGE_SIZE] == first else self.index.rows(ids[:PAGE_SIZE])
            return ScopeCount(
                generation, snapshot, len(ids), fresh, truncated, kept, bool(kept) and kept in ids
            )

        def done(count: ScopeCount | None) -> None:
            if count is not None:
                self.scope_counted.emit(count)

        self._run(
            BROWSE, work, done, lambda exc: self.scope_failed.emit(generation, str(describe(exc)))
        )

    def _sorted_scope(
        self, generation: int, state: FilterState, flt: IndexFilter, current: str, kept: str
    ) -> ScopeCount:
        """Every match, in the order the user chose, frozen in one snapshot of its own."""
        ids = sort_ids(self.index.query_ids(flt), state.sort, self.index.rows)
        snapshot, ids, truncated = self._freeze(f"{filter_key(flt)}|{state.sort}", ids)
        rows = self.index.rows(ids[:PAGE_SIZE])
        if not self._closed:
            self.scope_loaded.emit(self._page(generation, rows, current, flt))
        listed = bool(kept) and kept in ids
        return ScopeCount(generation, snapshot, len(ids), None, truncated, kept, listed)

    def _page(
        self, generation: int, rows: list[ListRow], current: str, flt: IndexFilter
    ) -> ScopePage:
        """The first page; an empty one says where else the filter finds decisions, or that
        the journal holds none at all."""
        if rows:
            return ScopePage(generation, rows, current)
        elsewhere = len(self.index.query_ids(replace(flt, project_id=""))) if flt.project_id else 0
        anything = IndexFilter(include_deleted=True, limit=1)
        empty = not elsewhere and not self.index.query_ids(anything)
        return ScopePage(generation, rows, current, elsewhere, journal_empty=empty)

    def _freeze(self, key: str, ids: list[str]) -> tuple[str, list[str], int]:
        """(snapshot ID, the IDs kept, how many matched when over the cache's bounds)."""
        if not ids:
            return "", ids, 0
        truncated = 0
        try:
            snapshot = self.snapshots.create(key, ids)
        except SnapshotTooLarge:
            truncated = len(ids)
            ids = ids[: self.snapshots.max_ids]
            snapshot = self.snapshots.create(key, ids)
        with self._keys_lock:
            self._keys[snapshot] = key
            while len(self._keys) > KEYS_KEPT:
                del self._keys[next(iter(self._keys))]
        return snapshot, ids, truncated

    def fetch_page(self, generation: int, snapshot_id: str, offset: int, limit: int) -> None:
        def work() -> list[Any] | None:
            with self._keys_lock:
                key = self._keys.get(snapshot_id)
            try:
                ids = self.snapshots.page(snapshot_id, offset, limit, key)
            except (SnapshotExpired, ValueError):
                return None
            rows = self.index.rows(ids)
            return rows if len(rows) == len(ids) else None  # a record vanished: changed

        def done(rows: list[Any] | None) -> None:
            if rows is None:
                self.page_expired.emit(generation)
            else:
                self.page_loaded.emit(generation, offset, rows)

        self._run(BROWSE, work, done, lambda _exc: self.page_expired.emit(generation))

    def load_catalog(self) -> None:
        def work() -> Catalog:
            current = self.current_project()
            return Catalog(
                self.index.projects(),
                self.index.facets(),
                current,
                self.index.issues(),
                self.waiting_project() or current,
            )

        self._run(BROWSE, work, self.catalog_loaded.emit)

    def current_project(self) -> str:
        """The project of the newest active decision: what "Current project" lists.

        Runs in a worker. Why not the waiting agent's project: a waiting decision is not in the
        journal yet, so a scope named after it would open on an empty list. Once found it is
        kept until `forget_current_project`: an answer in another project, an edit or a delete
        while the window is open must not swap the list (or its label) under the user.
        """
        if not self._current:
            self._current = self.index.current_project_id()
        return self._current

    def forget_current_project(self) -> None:
        """The next query looks for the current project again (the window was closed)."""
        self._current = ""

    def waiting_project(self) -> str:
        """The project of the newest waiting decision, "" when none waits (runs in a worker)."""
        try:
            waiting = self.journal.pending.list().items
        except (JournalError, OSError):
            waiting = []
        newest = max(
            waiting,
            key=lambda item: item.updated_at.unix_ns if item.updated_at else 0,
            default=None,
        )
        return newest.proposal.project_id if newest is not None else ""

    def reconcile(self) -> None:
        """Catches the index up with files other processes wrote; runs beside queries."""
        self._run(
            RECORDS,
            lambda: catch_up(self.index, self.profile_worker, self.index_progressed.emit),
            self.reconciled.emit,
        )

    def move_aside(self, paths: list[str]) -> None:
        """Moves damaged files into the journal's quarantine folder, then catches up the index."""

        def work() -> MovedAside:
            moved, failed = [], []
            for path in paths:
                try:
                    target = move_aside(self.journal.root, Path(path))
                    moved.append((path, str(target)))
                except (JournalError, OSError) as exc:
                    failed.append((path, str(describe(exc))))
            catch_up(self.index, self.profile_worker, self.index_progressed.emit)
            if moved:
                self.profile_worker.request_rebuild()  # a rebuild it blocked failed: try again
            return MovedAside(moved, failed)

        self._run(RECORDS, work, self.moved_aside.emit)

    def load_labels(self, ids: list[str]) -> None:
        def work() -> dict[str, str]:
            return {row.id: row.problem for row in self.index.rows(ids)}

        self._run(BROWSE, work, self.labels_loaded.emit)

    # one record --------------------------------------------------------------------------------

    def load_record(self, decision_id: str) -> None:
        """From the store, not the index: the inspector and the editor need the latest revision."""
        self._run(
            RECORDS,
            lambda: self.journal.store.get(decision_id),
            self.record_loaded.emit,
            lambda exc: self.record_failed.emit(decision_id, str(describe(exc))),
        )

    def load_history(self, decision_id: str) -> None:
        def work() -> RevisionHistory:
            revisions = self.journal.store.history(decision_id)
            return RevisionHistory(revisions, CorrectionNotes(self.journal.root).read(decision_id))

        self._run(
            RECORDS,
            work,
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
            lambda: conflict_jobs.revise(
                self.journal,
                decision_id,
                expected,
                lambda record: apply_correction(record, correction),
                settle=settle,
                how=CORRECTING,
                note=note,
            ),
        )

    def soft_delete(self, decision_id: str, expected: int, *, settle: bool = False) -> None:
        self._mutate(
            "delete",
            decision_id,
            lambda: conflict_jobs.revise(
                self.journal, decision_id, expected, mark_deleted, settle=settle, how=DELETING
            ),
        )

    def restore(self, decision_id: str, expected: int, *, settle: bool = False) -> None:
        self._mutate(
            "restore",
            decision_id,
            lambda: conflict_jobs.revise(
                self.journal, decision_id, expected, mark_restored, settle=settle, how=RESTORING
            ),
        )

    def confirm_import(self, decision_id: str, expected: int) -> None:
        """Confirms an imported record as the user's own, on the revision the window showed."""
        self._mutate(
            "confirm",
            decision_id,
            lambda: conflict_jobs.revise(  # a confirmation is a correction: the conflict rule
                self.journal, decision_id, expected, confirmation(), settle=False, how=CORRECTING
            ),
        )

    def _mutate(self, action: str, decision_id: str, run: Callable[[], Revision]) -> None:
        """Returns as soon as the revision is committed; the profile worker hears the commit."""

        def work() -> MutationResult:
            try:
                done = run()
            except NoChanges:
                return MutationResult(action, decision_id, no_changes=True)
            except InvalidDecision as exc:
                return MutationResult(action, decision_id, error=str(exc), field=exc.field or "")
            except SyncConflictPending as exc:
                return MutationResult(action, decision_id, error=str(exc), settled=True)
            except RevisionConflict as exc:
                try:
                    newer = self.journal.store.get(decision_id)
                except (NotFound, OSError):
                    newer = None
                return MutationResult(action, decision_id, newer=newer, error=str(exc))
            return MutationResult(
                action,
                decision_id,
                record=done.record,
                warning=done.note_warning,
                settled=done.settled is not None,
            )

        self._run(
            RECORDS,
            work,
            self.mutation_finished.emit,
            lambda exc: self.mutation_finished.emit(
                MutationResult(action, decision_id, error=str(describe(exc)))
            ),
        )

    # the profile -------------------------------------------------------------------------------

    def load_profile(self) -> None:
        def work() -> ProfileView:
            status = self.profile_worker.status()
            try:
                return ProfileView(self.journal.profile.load(), status)
            except Exception as exc:  # noqa: BLE001  # a corrupt profile is shown, never fatal
                return ProfileView(PreferenceProfile.empty(), status, str(describe(exc)))

        self._run(RECORDS, work, self.profile_loaded.emit)

    def save_override(self, request: OverrideRequest) -> None:
        def work() -> ProfileView:
            profile = self.journal.profile.set_rule(
                request.rule_id,
                request.expected_revision,
                enabled=request.enabled,
                pinned=request.pinned,
                note=request.note,
            )
            return ProfileView(profile, None)

        def failed(exc: BaseException) -> None:
            if isinstance(exc, ProfileConflict):
                self.profile_conflicted.emit(exc.current_revision or 0)
            else:
                self.profile_loaded.emit(
                    ProfileView(PreferenceProfile.empty(), None, str(describe(exc)))
                )
            self.load_profile()

        self._run(RECORDS, work, self.profile_loaded.emit, failed)

    def load_modes(self) -> None:
        self._run(
            RECORDS,
            lambda: ModesView(decider_for(self.journal).scores()),
            self.modes_loaded.emit,
            self._modes_failed,
        )

    def set_mode(self, kind: str, mode: str) -> None:
        """`ask` always; `auto` only when recommended (the refusal's reason is shown)."""

        def work() -> ModesView:
            decider = decider_for(self.journal)
            decider.set_mode(kind, mode)
            return ModesView(decider.scores())

        self._run(RECORDS, work, self.modes_loaded.emit, self._modes_failed)

    def _modes_failed(self, exc: BaseException) -> None:
        self.modes_loaded.emit(ModesView([], str(describe(exc))))

    def request_rebuild(self) -> None:
        """Never blocks: the worker coalesces requests and reports its state by signal."""
        self.profile_worker.request_rebuild()

    # waiting -----------------------------------------------------------------------------------

    def load_pending(self) -> None:
        self._run(RECORDS, lambda: pending_items(self.journal.pending), self.pending_loaded.emit)

    def load_notes(self, project_id: str) -> None:
        def work() -> tuple[list[AgentNote], int]:
            listing = NoteStore(self.journal.root).read(project_id)
            notes = list(reversed(listing.notes))[:NOTES_SHOWN]
            return notes, listing.damaged_lines

        self._run(
            RECORDS,
            work,
            lambda result: self.notes_loaded.emit(project_id, result[0], result[1]),
            lambda exc: log.warning("cannot read agent notes of %s: %s", project_id, exc),
        )

    # imports, exports, confirmations -----------------------------------------------------------

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

        def progress(done: int, total: int) -> None:
            step = max(1, total // PROGRESS_STEPS)
            if done == total or done % step == 0:
                self.export_progressed.emit(done, total)

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

    def shutdown(self, timeout_ms: int = 30_000) -> None:
        """Lets running tasks finish, detaches from the profile worker, stops our own worker."""
        self._closed = True
        self._relay.detach()
        for pool in self._lanes.values():
            pool.wait_idle(timeout_ms)
        if self._owns_worker:
            self.profile_worker.stop()
