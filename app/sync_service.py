"""Automatic sync in the running app: when to sync, running it off the GUI thread, its state.

Why a service of its own: sync is the app's only work that talks to the network and can take
seconds, so it runs in a one-thread pool of its own (a slow remote never holds up capture or
the journal window), one sync at a time; requests made meanwhile coalesce into one more
(`core.sync.schedule`). A `sync now` in a terminal takes the same lock the engine takes here,
so the two wait for each other instead of interleaving. Offline is a normal state: the service
backs off and retries, and shows when. Nothing runs, and nothing is shown, for a journal that
does not sync.

The service learns of writes three ways: this process's commits through the store's listener
(capture, edits, conflict resolutions; the listener runs in the committing thread, so it only
emits a queued signal), other processes' through the app's `journal.changed` notice, and
everything else (notes, outcome signals written by hooks) through the poll.
"""

from __future__ import annotations

import logging
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QTimer, Signal, Slot

from app.workers import WorkerPool
from core.errors import JournalError, SyncNotConfigured
from core.record.redaction import redact_text
from core.sync.indicator import ERROR, OFFLINE, Diagnosis, SyncView, diagnose, view_of
from core.sync.schedule import Outcome, SyncSchedule, SyncTiming

if TYPE_CHECKING:
    from core.record.models import DecisionRecord
    from core.sync.engine import SyncEngine
    from core.sync.report import SyncReport

log = logging.getLogger(__name__)

STOP_WAIT_MS = 2_000
"""At quit, how long the cancelled sync may take to stop (its git is ended at once, and a
stretch of local work between two git commands finishes first); it resumes next time."""


class CommitRelay:
    """The store's commit listener for a service: it holds the service weakly, so the store
    (which outlives no one in the app, but lives on in tests) never keeps a QObject alive, and
    it only emits a queued signal, from whichever thread committed."""

    def __init__(self, service: SyncService) -> None:
        self._service = weakref.ref(service)

    def record_committed(self, record: DecisionRecord) -> None:
        service = self._service()
        if service is None:
            return
        try:
            service.record_committed.emit()
        except RuntimeError:  # the service's Qt object is gone (the app is quitting)
            return


@dataclass(slots=True)
class SyncRun:
    """What one background sync found: its report or error, then the status after it."""

    report: SyncReport | None
    error: BaseException | None
    status: dict[str, Any]


class SyncService(QObject):
    """Schedules and runs one journal's syncs; create it in the GUI thread.

    Args:
        journal_root: the journal directory.
        timing: the intervals (tests pass short ones).
        clock: monotonic seconds, for the schedule.
        wall: seconds since the epoch, for the times shown.
        engine: the sync engine (default: one for journal_root, never prompting, built in
            the sync thread on first use: its import loads keyring and age, which the app's
            start does not wait for).
        parent: the owning QObject.

    Signals:
        view_changed(object): the `SyncView` to show.
        records_arrived(): a sync brought files: the index and the profile must catch up.
        conflicts_found(object): the ids of decisions a sync found in conflict (a tuple).
        error_started(str, str): the runbook entry and message of a failure that follows a
            sync that did not fail (told once, not on every retry).
        record_committed(): this process committed a record (`CommitRelay` emits it in the
            committing thread; Qt delivers it to `note_commit` in the GUI thread).
    """

    view_changed = Signal(object)
    records_arrived = Signal()
    conflicts_found = Signal(object)
    error_started = Signal(str, str)
    record_committed = Signal()

    def __init__(
        self,
        journal_root: Path,
        *,
        timing: SyncTiming | None = None,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
        engine: SyncEngine | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._root = journal_root
        self._engine = engine
        self.schedule = SyncSchedule(timing)
        self._clock = clock
        self._wall = wall
        self._workers = WorkerPool(self, max_threads=1)
        self._timer = QTimer(self)
        self._timer.setObjectName("sync-timer")
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._due)
        self.record_committed.connect(self.note_commit)
        self.listener = CommitRelay(self)
        """What the journal's store is given (`DecisionStore.add_listener`)."""
        self._view = SyncView()
        self._status: dict[str, Any] = {"configured": False}
        self._failure: Diagnosis | None = None
        self._offline_reason = ""
        self._last_synced: datetime | None = None
        self._checking = False
        self._stopped = False

    @property
    def engine(self) -> SyncEngine:
        if self._engine is None:
            from core.sync.engine import SyncEngine  # noqa: PLC0415  # see `engine` above

            self._engine = SyncEngine(self._root)
        return self._engine

    @property
    def view(self) -> SyncView:
        return self._view

    @property
    def configured(self) -> bool:
        return bool(self._status.get("configured"))

    # what happened ------------------------------------------------------------------------

    def start(self) -> None:
        """At app start: reads whether the journal syncs, and if so syncs soon."""
        self._check_configured(started=True)

    @Slot()
    def note_commit(self) -> None:
        """A commit made in this process: a debounced sync."""
        if self._stopped or not self.configured:
            return
        self.schedule.committed(self._clock())
        self._show()
        self._arm()

    @Slot()
    def note_external_change(self) -> None:
        """Another process changed the journal (its notice): it may also have set sync up
        or turned it off, so that is read again first."""
        if self._stopped:
            return
        if self.configured:
            self.note_commit()
        self._check_configured(started=False)

    @Slot()
    def sync_now(self) -> None:
        """The tray's "Sync now": at once, even while backing off; during a sync, right after it."""
        if self._stopped or not self.configured:
            return
        self.schedule.requested(self._clock())
        self._arm()

    def stop(self) -> None:
        """For quit: no new sync starts, and a running one is cancelled (as if killed: the
        next sync resumes it); waits for it to stop."""
        self._stopped = True
        self._timer.stop()
        if self._engine is None:
            # No engine yet: nothing of sync's has started to change (a worker may be loading
            # the engine's modules, and `_run` syncs nothing once stopped); do not wait for it.
            return
        if self.schedule.running:
            self._engine.cancel()
        if not self._workers.wait_idle(STOP_WAIT_MS):
            log.warning("a sync was still running at quit; the next sync resumes it")

    # running ------------------------------------------------------------------------------

    def _check_configured(self, *, started: bool) -> None:
        if self._checking:
            return
        self._checking = True
        self._workers.submit(self._read_status, lambda run: self._configured_read(run, started))

    def _read_status(self) -> SyncRun:
        """In the sync thread: the status alone (a status that cannot be read is an error
        to show when the journal syncs)."""
        from core.sync.status import sync_status  # noqa: PLC0415  # loads the engine

        try:
            return SyncRun(None, None, sync_status(self.engine))
        except Exception as exc:  # noqa: BLE001  # shown with its runbook entry
            return SyncRun(None, exc.with_traceback(None), {"configured": self.engine.configured})

    def _configured_read(self, run: SyncRun, started: bool) -> None:
        self._checking = False
        if self._stopped:
            return
        was = self.configured
        self._status = run.status
        if not self.configured:
            self._turn_off()
            return
        if started or not was:
            self.schedule.started(self._clock())
        if run.error is not None:
            self._fail(diagnose(run.error))
        else:
            self._show()
        self._arm()

    def _turn_off(self) -> None:
        self._timer.stop()
        self._failure = None
        self._status = {"configured": False}
        self._show()

    def _arm(self) -> None:
        due = self.schedule.due_at()
        if due is None or self._stopped:
            self._timer.stop()
            return
        self._timer.start(max(0, round((due - self._clock()) * 1000)))

    @Slot()
    def _due(self) -> None:
        if self._stopped or not self.schedule.begin(self._clock()):
            return
        self._show()
        self._workers.submit(self._run, self._finished, self._crashed)

    def _run(self) -> SyncRun:
        """In the sync thread: one sync, then the status after it (also after a failure)."""
        from core.sync.status import sync_status  # noqa: PLC0415  # loads the engine

        report: SyncReport | None = None
        error: BaseException | None = None
        try:
            engine = self.engine
            if self._stopped:  # quit came while the engine loaded: sync nothing
                return SyncRun(None, None, {"configured": engine.configured})
            report = engine.sync()
        except Exception as exc:  # shown with its runbook entry; the next sync retries
            if not isinstance(exc, JournalError | OSError):
                log.warning("sync stopped on an unexpected error", exc_info=exc)
            error = exc.with_traceback(None)  # its frames would hold this service in a cycle
        try:
            status = sync_status(self.engine)
        except Exception as exc:  # noqa: BLE001  # the sync's own error says more
            log.info("sync status unreadable after a sync: %s", exc)
            status = {"configured": self.engine.configured}
        return SyncRun(report, error, status)

    def _finished(self, run: SyncRun) -> None:
        if self._stopped:
            return  # quitting: a cancelled sync is no failure to show
        if isinstance(run.error, SyncNotConfigured) or not run.status.get("configured"):
            self.schedule.finish(self._clock(), Outcome.SYNCED)
            self._turn_off()
            return
        self._status = run.status
        if run.error is not None:
            self._failed_run(run.error)
        else:
            assert run.report is not None
            self._succeeded(run.report)
        if not self._stopped:
            self._arm()

    def _crashed(self, error: BaseException) -> None:
        """`_run` itself failed (it catches what a sync raises): shown like a failed sync."""
        self._failed_run(error)
        self._arm()

    def _succeeded(self, report: SyncReport) -> None:
        offline = report.result == OFFLINE
        self.schedule.finish(self._clock(), Outcome.OFFLINE if offline else Outcome.SYNCED)
        self._failure = None
        self._offline_reason = redact_text(report.detail)[0] if offline else ""
        if not offline:
            self._last_synced = datetime.fromtimestamp(self._wall(), UTC)
        if report.received:
            self.records_arrived.emit()
        if report.new_conflicts:
            self.conflicts_found.emit(tuple(report.new_conflicts))
        self._show()
        if report.refused:  # told like a failure, with its entry: never a silent success
            first = report.refused[0]
            message = (
                f"the remote sent {len(report.refused)} file(s) that were refused (first: "
                f"{first.kind} {first.name}: {first.message}); everything else was applied"
            )
            self.error_started.emit(first.entry, redact_text(message)[0])

    def _failed_run(self, error: BaseException) -> None:
        diagnosis = diagnose(error)
        if diagnosis.outcome is Outcome.FAILED:
            log.warning("sync failed (%s): %s", diagnosis.entry, diagnosis.message)
        self.schedule.finish(self._clock(), diagnosis.outcome)
        if diagnosis.outcome is Outcome.BUSY:
            self._show()
            return
        self._fail(diagnosis)

    def _fail(self, diagnosis: Diagnosis) -> None:
        first = self._view.state != ERROR
        self._failure = replace(diagnosis, message=redact_text(diagnosis.message)[0])
        self._show()
        if first:
            self.error_started.emit(self._failure.entry, self._failure.message)

    # showing ------------------------------------------------------------------------------

    def _show(self) -> None:
        retry = self.schedule.retry_at
        retry_at = None
        if retry is not None:
            # whole seconds: a view that did not change compares equal, and is not sent again
            retry_at = datetime.fromtimestamp(round(self._wall() + retry - self._clock()), UTC)
        view = view_of(
            self._status,
            failure=self._failure,
            offline_reason=self._offline_reason,
            last_synced=self._last_synced,
            retry_at=retry_at,
            changes_waiting=self.schedule.changes_waiting,
            running=self.schedule.running,
        )
        if view != self._view:
            self._view = view
            self.view_changed.emit(view)
