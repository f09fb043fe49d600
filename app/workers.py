"""Runs blocking work (disk, locks, rebuilds) off the GUI thread and delivers results by signal.

One bridge QObject lives in the GUI thread; worker threads only emit its signal, which Qt
queues back to the GUI thread, so callbacks always run there.
"""

from __future__ import annotations

import itertools
import logging
from collections import deque
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal, Slot

log = logging.getLogger(__name__)

Done = Callable[[Any], None]
Failed = Callable[[BaseException], None]


class _Bridge(QObject):
    """Signals:
    finished(int, bool, object): task id, success flag, result or exception.
    """

    finished = Signal(int, bool, object)


class _Task(QRunnable):
    def __init__(self, bridge: _Bridge, task_id: int, work: Callable[[], Any]) -> None:
        super().__init__()
        self._bridge = bridge
        self._task_id = task_id
        self._work = work

    def run(self) -> None:
        try:
            result = self._work()
        except BaseException as exc:  # noqa: BLE001  # delivered to the caller's error callback
            self._bridge.finished.emit(self._task_id, False, exc)
        else:
            self._bridge.finished.emit(self._task_id, True, result)


class WorkerPool(QObject):
    """Create in the GUI thread; `submit` never blocks it."""

    def __init__(self, parent: QObject | None = None, max_threads: int = 4) -> None:
        super().__init__(parent)
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(max_threads)
        self._bridge = _Bridge(self)
        self._bridge.finished.connect(self._deliver)
        self._callbacks: dict[int, tuple[Done, Failed | None]] = {}
        self._ids = itertools.count(1)
        self._lanes: dict[str, deque[tuple[Callable[[], Any], Done, Failed | None]]] = {}

    def submit(self, work: Callable[[], Any], done: Done, failed: Failed | None = None) -> None:
        task_id = next(self._ids)
        self._callbacks[task_id] = (done, failed)
        self._pool.start(_Task(self._bridge, task_id, work))

    def submit_in_order(
        self, lane: str, work: Callable[[], Any], done: Done, failed: Failed | None = None
    ) -> None:
        """Tasks of one lane run one after another, in submission order.

        A human's answers to one decision (choice, then rationale) must reach the disk in the
        order given, however fast they type; different decisions still run in parallel.
        """
        queue = self._lanes.setdefault(lane, deque())
        queue.append((work, done, failed))
        if len(queue) == 1:
            self._start_lane(lane)

    def _start_lane(self, lane: str) -> None:
        work, done, failed = self._lanes[lane][0]

        def finish(callback: Callable[[Any], None] | None) -> Callable[[Any], None]:
            def run(payload: Any) -> None:
                queue = self._lanes[lane]
                queue.popleft()
                if queue:
                    self._start_lane(lane)
                else:
                    del self._lanes[lane]
                if callback is not None:
                    callback(payload)
                elif isinstance(payload, BaseException):
                    log.error("background task failed: %r", payload)

            return run

        self.submit(work, finish(done), finish(failed))

    def wait_idle(self, msecs: int = 30_000) -> bool:
        """For shutdown and tests: lets queued disk work finish before the app exits."""
        return self._pool.waitForDone(msecs)

    @Slot(int, bool, object)
    def _deliver(self, task_id: int, ok: bool, payload: object) -> None:
        done, failed = self._callbacks.pop(task_id)
        if ok:
            done(payload)
        elif failed is not None:
            failed(payload if isinstance(payload, BaseException) else RuntimeError(payload))
        else:
            log.error("background task failed: %r", payload)
