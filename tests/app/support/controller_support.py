"""The capture controller behind a real socket server, and agents calling it from threads."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from app.capture_controller import CaptureController
from app.ipc.server import IpcServer
from app.workers import WorkerPool
from core.capture.machine import CaptureService
from core.capture.pending import PendingStore
from core.ipc.client import IpcClient
from core.ipc.runtime_paths import socket_path
from core.store.decisions import DecisionStore


class SocketCall(threading.Thread):
    """One agent (or hook) waiting on a socket method in its own thread.

    Tests wait for it with qtbot while the event loop runs, never with `join`: the reply is
    produced on the GUI thread.
    """

    def __init__(self, journal: Path, method: str, params: dict[str, Any], wait: float = 60):
        super().__init__(daemon=True)
        self._journal = journal
        self._method = method
        self._params = params
        self._wait = wait
        self.result: dict[str, Any] | None = None
        self.error: BaseException | None = None
        self._client: IpcClient | None = None

    def run(self) -> None:
        try:
            with IpcClient(socket_path(self._journal), timeout=10) as client:
                self._client = client
                self.result = client.call(self._method, self._params, timeout=self._wait)
        except BaseException as exc:
            self.error = exc

    def hang_up(self) -> None:
        """The agent goes away while it waits, as a killed process does: the socket closes."""
        assert self._client is not None, "the call has not started"
        self._client.close()


@contextmanager
def serving_controller(journal: Path) -> Iterator[CaptureController]:
    """A listening server whose handler is a real controller; closed (and drained) after."""
    pending = PendingStore(journal)
    workers = WorkerPool()
    controller = CaptureController(
        CaptureService(DecisionStore(journal), pending), pending, workers
    )
    server = IpcServer(journal, controller)
    assert server.listen()
    try:
        yield controller
    finally:
        for window in controller.open_windows():
            window.close_after_record()
        for questions in controller.question_windows():
            questions.withdraw()
        server.close()
        workers.wait_idle()


QUESTION = "Which database should the cache use?"
QUESTION_PARAMS: dict[str, Any] = {
    "questions": [
        {
            "question": QUESTION,
            "header": "Cache DB",
            "options": [
                {"label": "SQLite", "description": "Embedded"},
                {"label": "Redis", "description": "A service"},
            ],
            "multi_select": False,
        },
        {
            "question": "Which signals should the worker emit?",
            "header": "Signals",
            "options": [
                {"label": "Logging", "description": ""},
                {"label": "Metrics", "description": ""},
                {"label": "Tracing", "description": ""},
            ],
            "multi_select": True,
        },
    ],
    "workspace": "/tmp/project",
    "session_id": "claude-session-1",
    "agent": "claude-code",
}
"""A `questions.ask` of two questions, one of them multi-select, as the hook sends it."""
