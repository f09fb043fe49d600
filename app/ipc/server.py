"""The tray app's local socket server: one journal's socket, its instance lock, and dispatch.

Why it looks like this:
- Replies may come much later than requests (`decision.present` answers when a human has
  answered), so the server hands each request to a handler together with a `Connection` to
  reply on, and tells the handler through `Connection.closed` when the client is gone.
- Any process of this user can connect, and it may be broken, slow or hostile. Reading,
  parsing and validating happen on the I/O thread (`app.ipc.io_loop`); only validated requests
  reach the GUI thread, in batches, so no client can freeze the app or starve another.
- One instance serves one journal. A lock file next to the socket decides which instance that
  is; the socket file alone cannot tell a live instance from a crashed one.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import sys
import threading
from collections import deque
from pathlib import Path
from typing import Any, Protocol

from PySide6.QtCore import Q_ARG, QMetaObject, QObject, Qt, Signal, Slot

import core
from app.ipc.connection import ClosedSignal, Connection
from app.ipc.events import Arrived, Closed, Event, Opened, Rejected
from app.ipc.instance_lock import InstanceLock
from app.ipc.io_loop import CredentialsReader, IoLoop
from app.ipc.listener import bind_listener
from app.ipc.peercred import peer_credentials
from app.ipc.policy import MAX_CLIENTS, MAX_IN_FLIGHT, Limits
from core.errors import JournalError
from core.ipc.protocol import PROTOCOL_VERSION, Request, error_from_exception, shutting_down_error
from core.ipc.runtime_paths import (
    canonical_journal_path,
    ensure_runtime_dir,
    lock_path,
    socket_path,
)

__all__ = [
    "MAX_CLIENTS",
    "MAX_IN_FLIGHT",
    "ClosedSignal",
    "Connection",
    "IpcListenError",
    "IpcServer",
    "Limits",
    "RequestHandler",
]

log = logging.getLogger(__name__)

EVENTS_PER_TURN = 256
"""Events handled per event-loop turn; the rest wait for the next, so input stays responsive."""


def _emit(owner: QObject, signal: str, *args: Any) -> None:
    """Emits `owner.signal(*args)` through the meta-object system, never `SignalInstance.emit`.

    Why: PySide6 6.12.0's `emit()` releases one reference to `True` it never took. On CPython
    3.11 (bools become immortal only in 3.12) every emit brings the interpreter closer to
    "Fatal Python error: bool_dealloc", which a long-running tray app reaches.
    """
    QMetaObject.invokeMethod(owner, signal, Qt.ConnectionType.DirectConnection, *args)


class IpcListenError(JournalError):
    """The socket could not be bound (a path, permission or platform problem)."""


class RequestHandler(Protocol):
    """Receives every request except `hello`, on the GUI thread.

    It must answer each request exactly once through `connection.reply` or
    `connection.reply_error`, now or later, and must not block. It may instead raise a
    `ProtocolError` or a core error synchronously; the server turns that into the reply.
    Unknown methods are the handler's to refuse with METHOD_NOT_FOUND. A request that will
    wait for the person should be marked with `connection.mark_waiting`.
    """

    def handle(self, connection: Connection, request: Request) -> None: ...


class IpcServer(QObject):
    """The local socket server of one journal.

    Args:
        journal_dir: the journal this instance serves; the socket name derives from it.
        handler: receives every request except `hello`.
        parent: the owning QObject.
        app_version: reported by `hello`.
        max_clients: connections not waiting for the person (see `Limits.max_clients`).
        read_credentials: learns a peer's uid and pid from its descriptor (tests replace it).
        limits: caps and deadlines; `max_clients` overrides its field of the same name.

    Signals:
        client_connected(int): a peer passed the uid check; the argument is `Connection.id`.
        client_rejected(str): a peer was refused; the argument says why.
        client_disconnected(int): the client with this `Connection.id` went away.
    """

    client_connected = Signal(int)
    client_rejected = Signal(str)
    client_disconnected = Signal(int)

    def __init__(
        self,
        journal_dir: Path,
        handler: RequestHandler,
        parent: QObject | None = None,
        *,
        app_version: str = core.__version__,
        max_clients: int | None = None,
        read_credentials: CredentialsReader = peer_credentials,
        limits: Limits | None = None,
    ) -> None:
        super().__init__(parent)
        self.journal_dir = Path(journal_dir)
        self._handler = handler
        self._app_version = app_version
        chosen = limits or Limits()
        if max_clients is not None:
            chosen = dataclasses.replace(chosen, max_clients=max_clients)
        self._limits = chosen
        self._read_credentials = read_credentials
        self._connections: dict[int, Connection] = {}
        self._lock: InstanceLock | None = None
        self._loop: IoLoop | None = None
        self._events: deque[Event] = deque()
        self._posted = False
        self._post_lock = threading.Lock()
        self._socket_inode: int | None = None
        self.socket_path = socket_path(self.journal_dir)

    @property
    def is_listening(self) -> bool:
        return self._loop is not None

    @property
    def connections(self) -> tuple[Connection, ...]:
        return tuple(self._connections.values())

    def listen(self) -> bool:
        """Becomes the instance for this journal, or returns False when another one is.

        The lock decides without any network wait, so the GUI thread never blocks here: when
        it is held, a live instance owns the journal (the caller forwards `app.show` to it and
        exits); when it is free, any socket file left behind is stale and is replaced.

        Raises:
            RuntimeDirUnsafe: the runtime directory is a symlink or not ours alone.
            IpcListenError: the socket could not be bound.
        """
        if self._lock is not None:
            return True
        if sys.platform == "win32":
            return self._listen_windows()
        path = self.socket_path
        ensure_runtime_dir(path.parent)
        lock = InstanceLock.try_acquire(lock_path(self.journal_dir))
        if lock is None:
            log.info("another instance serves %s", self.journal_dir)
            return False
        try:
            listener = bind_listener(path)
        except OSError as exc:
            lock.release()
            raise IpcListenError(f"cannot listen on {path}: {exc}") from exc
        self._lock = lock
        self._socket_inode = os.stat(path).st_ino
        self._loop = IoLoop(
            listener,
            self,
            hello=self._hello_result(),
            limits=self._limits,
            read_credentials=self._read_credentials,
            gui_thread=threading.get_ident(),
            own_uid=os.getuid(),
        )
        self._loop.start()
        log.info("listening on %s", path)
        return True

    def _listen_windows(self) -> bool:
        """Windows: the lock alone keeps one instance per journal. Neither the server nor the
        client speaks named pipes yet, so there is nothing to listen on."""
        lock = InstanceLock.try_acquire(ensure_runtime_dir() / lock_path(self.journal_dir).name)
        if lock is None:
            return False
        self._lock = lock
        log.warning("no local socket on Windows yet: agents cannot reach this app")
        return True

    def close(self) -> None:
        """Stops listening, tells waiting clients the app is going away, frees the lock."""
        loop, self._loop = self._loop, None
        if loop is not None:
            gone = shutting_down_error()
            for connection in list(self._connections.values()):
                for request_id in sorted(connection.in_flight, key=str):
                    connection.reply_error(request_id, gone)
            loop.stop()
            self._drain_events(limit=None)
            self._remove_socket_file()
        for connection in list(self._connections.values()):
            self._forget(connection)
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def _remove_socket_file(self) -> None:
        """Removes our socket file unless another instance has replaced it since."""
        with contextlib.suppress(OSError):
            if os.stat(self.socket_path).st_ino == self._socket_inode:
                os.unlink(self.socket_path)

    def _hello_result(self) -> dict[str, Any]:
        return {
            "protocol": PROTOCOL_VERSION,
            "app_version": self._app_version,
            "journal": canonical_journal_path(self.journal_dir),
        }

    # --- events from the I/O thread -------------------------------------------------------

    def post(self, event: Event) -> None:
        """I/O thread: queues `event` and wakes the GUI thread once per batch."""
        self._events.append(event)
        with self._post_lock:
            if self._posted:
                return
            self._posted = True
        QMetaObject.invokeMethod(self, "_on_events", Qt.ConnectionType.QueuedConnection)

    @Slot()
    def _on_events(self) -> None:
        self._drain_events(limit=EVENTS_PER_TURN)

    def _drain_events(self, limit: int | None) -> None:
        with self._post_lock:
            self._posted = False
        handled = 0
        while self._events and (limit is None or handled < limit):
            self._handle_event(self._events.popleft())
            handled += 1
        if self._events and limit is not None:
            with self._post_lock:
                if self._posted:
                    return
                self._posted = True
            QMetaObject.invokeMethod(self, "_on_events", Qt.ConnectionType.QueuedConnection)

    def _handle_event(self, event: Event) -> None:
        if isinstance(event, Arrived):
            if not event.connection.is_closed:
                self._dispatch(event.connection, event.request)
        elif isinstance(event, Opened):
            self._connections[event.connection.id] = event.connection
            _emit(self, "client_connected", Q_ARG(int, event.connection.id))
        elif isinstance(event, Closed):
            self._forget(event.connection)
        elif isinstance(event, Rejected):
            _emit(self, "client_rejected", Q_ARG(str, event.reason))

    def _forget(self, connection: Connection) -> None:
        connection.mark_gone()
        connection.finish()
        if self._connections.pop(connection.id, None) is not None:
            _emit(self, "client_disconnected", Q_ARG(int, connection.id))

    def _dispatch(self, connection: Connection, request: Request) -> None:
        try:
            self._handler.handle(connection, request)
        except Exception as exc:
            if not isinstance(exc, JournalError):
                log.exception("handler failed on %s", request.method)
            connection.reply_error(request.id, error_from_exception(exc))
