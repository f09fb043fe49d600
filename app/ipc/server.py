"""The tray app's local socket server: framing, peer checks and dispatch, on the GUI thread.

Why it looks like this:
- Replies may come much later than requests (`decision.present` answers when a human has
  answered), so the server hands each request to a handler together with a `Connection` to
  reply on, and tells the handler through `Connection.closed` when the client is gone.
- Any process of this user can connect, and it may be broken or hostile. A bad frame gets an
  error and that client is disconnected; nobody else notices. Nothing here blocks the event
  loop: bytes are consumed as they arrive and writes are buffered by Qt.
- One instance serves one journal. A lock file next to the socket decides which instance that
  is, because Qt's `UserAccessOption` binds in a temporary directory and renames over the
  final path: without the lock a second `listen()` would silently steal a live socket.
"""

from __future__ import annotations

import errno
import logging
import os
import sys
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Protocol

from PySide6.QtCore import Q_ARG, QMetaObject, QObject, Qt, Signal, Slot
from PySide6.QtNetwork import QLocalServer, QLocalSocket

import core
from app.ipc.peercred import PeerCredentials, peer_credentials
from core.errors import JournalError
from core.protocol import (
    HELLO,
    PROTOCOL_VERSION,
    ErrorCode,
    FrameDecoder,
    FrameTooLarge,
    HelloParams,
    ProtocolError,
    Request,
    RequestIdType,
    encode_frame,
    error_from_exception,
    error_message,
    notification_message,
    parse_params,
    parse_request,
    result_message,
)
from core.runtime_paths import canonical_journal_path, ensure_runtime_dir, lock_path, socket_path

log = logging.getLogger(__name__)

MAX_CLIENTS = 32
"""More simultaneous clients than any honest setup needs (agents, CLI, hooks)."""
MAX_IN_FLIGHT = 16
"""Unanswered requests one connection may hold; the rest are answered BUSY."""

CredentialsReader = Callable[[int], PeerCredentials | None]


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
    Unknown methods are the handler's to refuse with METHOD_NOT_FOUND.
    """

    def handle(self, connection: Connection, request: Request) -> None: ...


class _InstanceLock:
    """An exclusive, non-blocking lock on a file, held for the life of the listening server.

    The kernel drops it when the process dies, so a crash never leaves a live-looking lock.
    """

    def __init__(self, fd: int) -> None:
        self._fd: int | None = fd

    @classmethod
    def try_acquire(cls, path: Path) -> _InstanceLock | None:
        flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
        fd = os.open(path, flags, 0o600)
        try:
            if sys.platform == "win32":
                import msvcrt  # noqa: PLC0415 -- Windows-only module

                msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
            else:
                import fcntl  # noqa: PLC0415 -- POSIX-only module

                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(fd)
            if exc.errno in (errno.EAGAIN, errno.EWOULDBLOCK, errno.EACCES):
                return None
            raise
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        return cls(fd)

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)


class ClosedSignal:
    """A Qt-like signal without arguments, kept in plain Python.

    Why not a Qt signal: handlers keep a connection in closures attached to QTimers and
    dialogs. With a QObject connection, the last reference could die inside another QObject's
    destructor, and PySide6 6.12 then crashes deleting it re-entrantly (seen in these tests).
    A plain object has no C++ side to delete. Unlike Qt, connecting after the connection has
    closed calls the slot at once, so a late handler cannot wait forever for a gone client.
    """

    def __init__(self) -> None:
        self._slots: list[Callable[[], object]] | None = []

    def connect(self, slot: Callable[[], object]) -> None:
        if self._slots is None:
            slot()
        else:
            self._slots.append(slot)

    def disconnect(self, slot: Callable[[], object]) -> None:
        if self._slots is not None and slot in self._slots:
            self._slots.remove(slot)

    def emit(self) -> None:
        """Calls every slot once, then forgets them; a failing slot does not stop the rest."""
        slots, self._slots = self._slots or [], None
        for slot in slots:
            try:
                slot()
            except Exception:
                log.exception("a closed() slot failed")


class Connection:
    """One connected client. Lives on the GUI thread; call its methods only from there.

    Replying after the client left is a harmless no-op, so a handler never has to race the
    disconnect.

    Signals:
        closed(): the client went away or was disconnected; drop waits made on its behalf.
    """

    def __init__(
        self,
        sock: QLocalSocket,
        server: IpcServer,
        credentials: PeerCredentials | None,
        connection_id: int,
    ) -> None:
        self.id = connection_id
        self.closed = ClosedSignal()
        self.peer_pid: int | None = credentials.pid if credentials else None
        self.peer_uid: int | None = credentials.uid if credentials else None
        self._thread_id = threading.get_ident()
        self._socket = sock
        self._server = server
        self._decoder = FrameDecoder()
        self._in_flight: set[RequestIdType] = set()
        self._closing = False
        self._closed = False
        sock.readyRead.connect(self._on_ready_read)
        sock.disconnected.connect(self._on_disconnected)

    @property
    def is_closed(self) -> bool:
        return self._closed or self._closing

    @property
    def in_flight(self) -> frozenset[RequestIdType]:
        """Ids of requests still waiting for a reply."""
        return frozenset(self._in_flight)

    def reply(self, request_id: RequestIdType, result: Mapping[str, Any]) -> None:
        """Answers `request_id` with `result`; a result that cannot be sent becomes an error."""
        if not self._take(request_id):
            return
        try:
            frame = encode_frame(result_message(request_id, result))
        except (ValueError, TypeError) as exc:
            log.exception("reply to %r cannot be encoded", request_id)
            frame = encode_frame(error_message(request_id, _unsendable(exc)))
        self._write(frame)

    def reply_error(self, request_id: RequestIdType, error: ProtocolError) -> None:
        """Answers `request_id` with `error`; the connection stays open."""
        if self._take(request_id):
            self._write(encode_frame(error_message(request_id, error)))

    def notify(self, method: str, params: Mapping[str, Any]) -> None:
        """Sends a notification (e.g. `progress`) unless the client is gone."""
        self._check_thread()
        if not self.is_closed:
            self._write(encode_frame(notification_message(method, params)))

    def close(self) -> None:
        """Disconnects after pending bytes are written; `closed` follows."""
        self._check_thread()
        if self.is_closed:
            return
        self._closing = True
        self._socket.disconnectFromServer()

    def _check_thread(self) -> None:
        if threading.get_ident() != self._thread_id:
            raise RuntimeError("Connection methods must be called on the GUI thread")

    def _take(self, request_id: RequestIdType) -> bool:
        self._check_thread()
        if request_id not in self._in_flight:
            if not self.is_closed:
                log.warning("ignoring a second or unknown reply to request %r", request_id)
            return False
        self._in_flight.discard(request_id)
        return not self.is_closed

    def _write(self, frame: bytes) -> None:
        if self._socket.state() == QLocalSocket.LocalSocketState.ConnectedState:
            self._socket.write(frame)

    def _fail(self, request_id: RequestIdType | None, error: ProtocolError) -> None:
        """Answers a protocol violation and disconnects this client only."""
        log.info("disconnecting client (pid %s): %s", self.peer_pid, error.message)
        self._write(encode_frame(error_message(request_id, error)))
        self.close()

    def _on_ready_read(self) -> None:
        data = bytes(self._socket.readAll().data())
        if self.is_closed:
            return
        try:
            for body in self._decoder.feed(data):
                self._accept(body)
                if self.is_closed:
                    return
        except FrameTooLarge as exc:
            self._fail(None, exc)

    def _accept(self, body: bytes) -> None:
        try:
            request = parse_request(body)
        except ProtocolError as exc:
            self._fail(exc.request_id, exc)
            return
        if request.id in self._in_flight:
            message = f"request id {request.id!r} is already waiting for a reply"
            self._fail(None, ProtocolError(ErrorCode.INVALID_REQUEST, message, "id"))
            return
        if len(self._in_flight) >= MAX_IN_FLIGHT:
            message = f"{MAX_IN_FLIGHT} requests are already waiting on this connection"
            busy = ProtocolError(ErrorCode.BUSY, message, data={"limit": MAX_IN_FLIGHT})
            self._write(encode_frame(error_message(request.id, busy)))
            return
        self._in_flight.add(request.id)
        self._server._dispatch(self, request)

    def _on_disconnected(self) -> None:
        self._finish()

    def _finish(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._in_flight.clear()
        self._socket.deleteLater()
        self.closed.emit()
        self._server._forget(self)

    def _shutdown(self) -> None:
        """Server shutdown: tell waiting callers, write what the kernel takes, and drop."""
        if self._closed:
            return
        gone = ProtocolError(ErrorCode.BUSY, "the app is shutting down")
        for request_id in sorted(self._in_flight, key=str):
            self._write(encode_frame(error_message(request_id, gone)))
        self._in_flight.clear()
        self._closing = True
        self._socket.flush()
        self._socket.abort()
        self._finish()


def _unsendable(exc: Exception) -> ProtocolError:
    if isinstance(exc, FrameTooLarge):
        return ProtocolError(ErrorCode.FRAME_TOO_LARGE, f"the reply is too large: {exc}")
    return ProtocolError(ErrorCode.INTERNAL_ERROR, "the reply could not be encoded")


class IpcServer(QObject):
    """The local socket server of one journal.

    Args:
        journal_dir: the journal this instance serves; the socket name derives from it.
        handler: receives every request except `hello`.
        parent: the owning QObject.
        app_version: reported by `hello`.
        max_clients: connections beyond this are refused BUSY.
        read_credentials: learns a peer's uid and pid from its descriptor (tests replace it).

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
        max_clients: int = MAX_CLIENTS,
        read_credentials: CredentialsReader = peer_credentials,
    ) -> None:
        super().__init__(parent)
        self.journal_dir = Path(journal_dir)
        self._handler = handler
        self._app_version = app_version
        self._max_clients = max_clients
        self._read_credentials = read_credentials
        self._server = QLocalServer(self)
        self._server.newConnection.connect(self._on_new_connection)
        self._connections: list[Connection] = []
        self._lock: _InstanceLock | None = None
        self._next_id = 0
        self.socket_path = socket_path(self.journal_dir)

    @property
    def is_listening(self) -> bool:
        return self._server.isListening()

    @property
    def connections(self) -> tuple[Connection, ...]:
        return tuple(self._connections)

    def listen(self) -> bool:
        """Becomes the instance for this journal, or returns False when another one is.

        The lock decides without any network wait, so the GUI thread never blocks here: when
        it is held, a live instance owns the journal (the caller forwards `app.show` to it and
        exits); when it is free, any socket file left behind is stale and is removed.

        Raises:
            RuntimeDirUnsafe: the runtime directory is a symlink or not ours alone.
            IpcListenError: the socket could not be bound.
        """
        if self.is_listening:
            return True
        path = self.socket_path
        if sys.platform == "win32":
            lock_file = ensure_runtime_dir() / lock_path(self.journal_dir).name
        else:
            ensure_runtime_dir(path.parent)
            lock_file = lock_path(self.journal_dir)
        lock = _InstanceLock.try_acquire(lock_file)
        if lock is None:
            log.info("another instance serves %s", self.journal_dir)
            return False
        QLocalServer.removeServer(str(path))
        self._server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        if not self._server.listen(str(path)):
            lock.release()
            raise IpcListenError(f"cannot listen on {path}: {self._server.errorString()}")
        self._lock = lock
        log.info("listening on %s", path)
        return True

    def close(self) -> None:
        """Stops listening, tells waiting clients the app is going away, frees the lock."""
        for connection in list(self._connections):
            connection._shutdown()
        if self._server.isListening():
            self._server.close()
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    @Slot()
    def _on_new_connection(self) -> None:
        while self._server.hasPendingConnections():
            sock = self._server.nextPendingConnection()
            if sock is not None:
                self._admit(sock)

    def _admit(self, sock: QLocalSocket) -> None:
        credentials = self._read_credentials(int(sock.socketDescriptor()))
        if sys.platform != "win32":
            own_uid = os.getuid()
            if credentials is None or credentials.uid != own_uid:
                uid = "unknown" if credentials is None else str(credentials.uid)
                error = ProtocolError(
                    ErrorCode.FORBIDDEN_PEER, f"peer uid {uid} is not this user (uid {own_uid})"
                )
                self._refuse(sock, error, f"forbidden peer uid {uid}")
                return
        if len(self._connections) >= self._max_clients:
            message = f"{self._max_clients} clients are already connected"
            error = ProtocolError(ErrorCode.BUSY, message, data={"limit": self._max_clients})
            self._refuse(sock, error, message)
            return
        self._next_id += 1
        connection = Connection(sock, self, credentials, self._next_id)
        self._connections.append(connection)
        _emit(self, "client_connected", Q_ARG(int, connection.id))
        if sock.bytesAvailable() > 0:
            connection._on_ready_read()

    def _refuse(self, sock: QLocalSocket, error: ProtocolError, reason: str) -> None:
        log.warning("refused a client: %s", reason)
        sock.disconnected.connect(sock.deleteLater)
        sock.write(encode_frame(error_message(None, error)))
        sock.disconnectFromServer()
        _emit(self, "client_rejected", Q_ARG(str, reason))

    def _forget(self, connection: Connection) -> None:
        if connection in self._connections:
            self._connections.remove(connection)
            _emit(self, "client_disconnected", Q_ARG(int, connection.id))

    def _dispatch(self, connection: Connection, request: Request) -> None:
        if request.method == HELLO:
            self._answer_hello(connection, request)
            return
        try:
            self._handler.handle(connection, request)
        except Exception as exc:
            if not isinstance(exc, JournalError):
                log.exception("handler failed on %s", request.method)
            connection.reply_error(request.id, error_from_exception(exc))

    def _answer_hello(self, connection: Connection, request: Request) -> None:
        try:
            params = parse_params(HelloParams, request)
        except ProtocolError as exc:
            connection.reply_error(request.id, exc)
            return
        if params.protocol is not None and params.protocol != PROTOCOL_VERSION:
            error = ProtocolError(
                ErrorCode.UNSUPPORTED_PROTOCOL,
                f"protocol {params.protocol} is not supported; this app speaks {PROTOCOL_VERSION}",
                "protocol",
                data={"supported": [PROTOCOL_VERSION]},
            )
            connection.reply_error(request.id, error)
            return
        result = {
            "protocol": PROTOCOL_VERSION,
            "app_version": self._app_version,
            "journal": canonical_journal_path(self.journal_dir),
        }
        connection.reply(request.id, result)
