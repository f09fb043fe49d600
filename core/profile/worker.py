"""The background profile rebuild worker: coalescing, serialized, cancellable, Qt-free.

Why: a decision mutation must return as soon as its revision is committed, yet the profile
should follow the journal. Commits only set a flag here; one thread rebuilds, requests made
while it runs fold into exactly one more rebuild, and the profile lock serializes rebuilds with
other threads and processes. Observers (a GUI bridge, a status line) get state callbacks on the
worker thread; core never imports Qt, so a GUI adapter forwards them as signals.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Protocol

from core.errors import describe
from core.profile.model import (
    STATE_CURRENT,
    STATE_ERROR,
    STATE_REBUILDING,
    ProfileStatus,
)
from core.profile.store import CancelScope, ProfileStore, RebuildResult
from core.record.models import DecisionRecord

_log = logging.getLogger(__name__)
Rebuild = Callable[[CancelScope], object]


class ProfileObserver(Protocol):
    """Told when the profile state changes; called on the worker thread."""

    def on_state_changed(self, status: ProfileStatus) -> None: ...


class ProfileRebuildWorker:
    """Rebuilds the profile on one thread; also a `store.CommitListener`.

    Args:
        profiles: the profile store to rebuild.
        rebuild: replaces the rebuild call (tests use it to make a rebuild slow or failing).
    """

    def __init__(self, profiles: ProfileStore, *, rebuild: Rebuild | None = None) -> None:
        self._profiles = profiles
        self._rebuild: Rebuild = rebuild or self._default_rebuild
        self._scope = CancelScope()
        self._cond = threading.Condition()
        self._observers: list[ProfileObserver] = []
        self._thread: threading.Thread | None = None
        self._requested = False
        self._running = False
        self._stopping = False
        self._error = ""
        self._last_emitted: tuple[str, str] | None = None
        self.rebuilds_started = 0

    def _default_rebuild(self, scope: CancelScope) -> RebuildResult:
        return self._profiles.rebuild(cancel=scope, timeout=None)

    def add_observer(self, observer: ProfileObserver) -> None:
        with self._cond:
            self._observers.append(observer)

    # requests ----------------------------------------------------------------------------------

    def request_rebuild(self) -> None:
        """Never blocks: sets the one request flag and wakes (or starts) the worker thread."""
        with self._cond:
            if self._stopping:
                return
            self._requested = True
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._loop, name="profile-rebuild", daemon=True
                )
                self._thread.start()
            self._cond.notify_all()

    def record_committed(self, record: DecisionRecord) -> None:
        """CommitListener: every committed revision may change the profile."""
        self.request_rebuild()

    # state -------------------------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        with self._cond:
            return self._requested or self._running

    def status(self) -> ProfileStatus:
        """rebuilding while work is pending; otherwise the disk state, or the last error.

        A profile that matches the journal clears a remembered error: another process may
        have repaired and rebuilt it since.
        """
        with self._cond:
            if self._requested or self._running:
                return ProfileStatus(STATE_REBUILDING)
            error = self._error
        disk = self._profiles.status()
        if disk.state == STATE_CURRENT or not error:
            with self._cond:
                if disk.state == STATE_CURRENT and self._error == error:
                    self._error = ""
            return disk
        return ProfileStatus(STATE_ERROR, error, disk.revision, disk.source_hash, disk.journal_hash)

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Waits until no rebuild is running or requested; False on timeout."""
        with self._cond:
            return self._cond.wait_for(
                lambda: self._stopping or not (self._requested or self._running), timeout
            )

    # shutdown ----------------------------------------------------------------------------------

    def stop(self, timeout: float = 2.0) -> bool:
        """Cancels a running rebuild (also one blocked on the profile lock) and ends the thread.

        After this returns no profile is written by this worker, even if the thread is still
        finishing a read. Returns whether the thread ended within `timeout`.
        """
        with self._cond:
            self._stopping = True
            self._requested = False
            thread = self._thread
            self._cond.notify_all()
        self._scope.cancel()
        if thread is None:
            return True
        thread.join(timeout)
        return not thread.is_alive()

    # the thread --------------------------------------------------------------------------------

    def _loop(self) -> None:
        while self._next():
            self._emit(ProfileStatus(STATE_REBUILDING))
            result, error = self._run_once()
            status = self._finish(result, error)
            if status is not None:
                self._emit(status)

    def _next(self) -> bool:
        """Blocks until a request or stop; consumes the request flag."""
        with self._cond:
            self._cond.wait_for(lambda: self._requested or self._stopping)
            if self._stopping:
                return False
            self._requested = False
            self._running = True
            self.rebuilds_started += 1
            return True

    def _run_once(self) -> tuple[object, str]:
        try:
            return self._rebuild(self._scope), ""
        except Exception as exc:  # noqa: BLE001  # any failure is reported; the worker lives on
            return None, str(describe(exc))

    def _finish(self, result: object, error: str) -> ProfileStatus | None:
        with self._cond:
            self._running = False
            self._cond.notify_all()
            if self._stopping:
                return None
            self._error = error
            if self._requested:
                return None  # runs once more; still "rebuilding"
        if error:
            _log.warning("preference profile rebuild failed: %s", error)
            return ProfileStatus(STATE_ERROR, error)
        if isinstance(result, RebuildResult):
            profile = result.profile
            return ProfileStatus(
                STATE_CURRENT, "", profile.revision, profile.source_hash, profile.source_hash
            )
        return ProfileStatus(STATE_CURRENT)

    def _emit(self, status: ProfileStatus) -> None:
        key = (status.state, status.error)
        with self._cond:
            if key == self._last_emitted or self._stopping:
                return
            self._last_emitted = key
            observers = list(self._observers)
        for observer in observers:
            try:
                observer.on_state_changed(status)
            except Exception:  # noqa: BLE001  # one broken observer must not stop rebuilds
                _log.exception("profile state observer failed")
