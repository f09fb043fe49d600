"""A Qt-free client of the tray app's local socket, shared by scripts, the CLI, the MCP server
and the hooks.

Why plain `socket.AF_UNIX`: every client but the app itself must start fast and run where Qt
cannot be imported, so the client speaks the protocol of `core.ipc.protocol` over the standard
library alone. A call may wait for a human for minutes; meanwhile the app can send `progress`
notifications, which reach an optional callback.
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import select
import socket
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from pathlib import Path
from types import TracebackType
from typing import Any

from core.errors import (
    AppNotRunning,
    ConnectionLost,
    IpcTimeout,
    IpcUnsupported,
    JournalError,
    ProtocolError,
    RemoteError,
    UnexpectedReply,
)
from core.ipc.framing import FrameDecoder, encode_frame
from core.ipc.methods import HELLO, HelloResult
from core.ipc.protocol import (
    PROTOCOL_VERSION,
    Notification,
    Response,
    parse_server_message,
    request_message,
)
from core.ipc.runtime_paths import check_runtime_dir

NotificationCallback = Callable[[str, dict[str, Any]], None]

DEFAULT_TIMEOUT = 5.0
PROBE_TIMEOUT = 0.5
_RECV_SIZE = 64 * 1024
_PARTING_READ_TIMEOUT = 0.2
_BACKLOG_RETRY_SECONDS = 0.01
_NOT_LISTENING = {errno.ENOENT, errno.ECONNREFUSED, errno.ENOTSOCK}


class IpcClient:
    """One connection to the app; one call at a time (a second caller waits for the first).

    Args:
        socket_path: the app's socket, from `core.ipc.runtime_paths.socket_path(journal_dir)`.
        timeout: seconds for connecting and, unless a call says otherwise, for each call.
        on_notification: receives `(method, params)` of notifications that arrive while a call
            waits, on the calling thread.
        client_name: how the app's log names this client in `hello`.
    """

    def __init__(
        self,
        socket_path: Path,
        timeout: float = DEFAULT_TIMEOUT,
        *,
        on_notification: NotificationCallback | None = None,
        client_name: str = "python",
    ) -> None:
        self.socket_path = Path(socket_path)
        self.timeout = timeout
        self.on_notification = on_notification
        self.client_name = client_name
        self._sock: socket.socket | None = None
        self._decoder = FrameDecoder()
        self._bodies: deque[bytes] = deque()
        self._ids = itertools.count(1)
        self._call_lock = threading.Lock()

    @property
    def connected(self) -> bool:
        return self._sock is not None

    def __enter__(self) -> IpcClient:
        self.connect()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def connect(self) -> None:
        """Connects unless connected; the directory must be private to us before we trust it.

        Raises:
            AppNotRunning: the runtime directory or socket is absent, or nobody accepts.
            RuntimeDirUnsafe: the socket's directory is not private to this user.
            IpcTimeout: the app did not accept within the timeout.
            IpcUnsupported: no transport on this platform.
        """
        if self._sock is not None:
            return
        if sys.platform == "win32":
            raise IpcUnsupported("the socket client does not support Windows named pipes yet")
        try:
            check_runtime_dir(self.socket_path.parent)
        except FileNotFoundError:
            raise AppNotRunning(
                f"no app is running: {self.socket_path.parent} does not exist"
            ) from None
        try:
            sock = self._open_socket(time.monotonic() + self.timeout)
        except TimeoutError:
            raise IpcTimeout(f"the app did not accept within {self.timeout:g} s") from None
        except OSError as exc:
            if exc.errno in _NOT_LISTENING:
                raise AppNotRunning(f"no app is listening on {self.socket_path}") from None
            raise AppNotRunning(f"cannot connect to {self.socket_path}: {exc}") from exc
        self._sock = sock
        self._decoder = FrameDecoder()
        self._bodies.clear()

    def _open_socket(self, deadline: float) -> socket.socket:
        """A connected socket. A listener whose backlog is full (a flood of connections)
        answers EAGAIN at once; that is retried until `deadline`, as a busy line would be."""
        while True:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.settimeout(max(deadline - time.monotonic(), 0.001))
            try:
                sock.connect(str(self.socket_path))
            except BlockingIOError:
                sock.close()
                if time.monotonic() >= deadline:
                    raise TimeoutError from None
                time.sleep(_BACKLOG_RETRY_SECONDS)
                continue
            except BaseException:
                sock.close()
                raise
            sock.settimeout(self.timeout)
            return sock

    def close(self) -> None:
        """Closes the connection; safe from another thread to abort a waiting call.

        The app sees the disconnect and withdraws whatever the call was waiting for.
        """
        sock, self._sock = self._sock, None
        if sock is None:
            return
        with contextlib.suppress(OSError):  # the peer may have gone already
            sock.shutdown(socket.SHUT_RDWR)
        sock.close()

    def call(
        self,
        method: str,
        params: Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,
        on_notification: NotificationCallback | None = None,
    ) -> dict[str, Any]:
        """Sends one request and waits for its result, connecting first if needed.

        Args:
            method: the method name, e.g. `decision.present`.
            params: the method's params object.
            timeout: seconds to wait for the reply; None uses the client's timeout. Pass a long
                one for calls that wait for a human.
            on_notification: overrides the client's callback for this call. An exception it
                raises aborts the call and closes the connection.

        Returns:
            The `result` object.

        Raises:
            RemoteError: the app answered with an error.
            AppNotRunning, ConnectionLost, IpcTimeout, UnexpectedReply: transport failures;
                the connection is closed afterwards.
        """
        wait = self.timeout if timeout is None else timeout
        callback = on_notification or self.on_notification
        with self._call_lock:
            self._drop_if_app_hung_up()
            self.connect()
            sock = self._sock
            assert sock is not None
            request_id = next(self._ids)
            frame = encode_frame(request_message(request_id, method, params or {}))
            deadline = time.monotonic() + wait
            try:
                self._send(sock, frame, deadline)
                return self._await_reply(sock, request_id, deadline, callback)
            except RemoteError as exc:
                if exc.request_id is None:
                    self.close()
                raise
            except BaseException:
                self.close()
                raise

    def _drop_if_app_hung_up(self) -> None:
        """Between calls the app sends nothing but a parting error (an idle timeout, a slot
        given to a newcomer) before it hangs up; such a connection is replaced by a new one.
        The request was not sent yet, so reconnecting cannot repeat it."""
        sock = self._sock
        if sock is None:
            return
        if self._parted_already():
            self.close()
            return
        try:
            readable, _, _ = select.select([sock], [], [], 0)
        except (OSError, ValueError):
            readable = [sock]
        if readable:
            self.close()

    def _parted_already(self) -> bool:
        """A reply left over from the last read answers no request: the parting error came in
        the same read as the last answer, so the socket no longer shows it as readable."""
        for body in self._bodies:
            try:
                if isinstance(self._read_message(body), Response):
                    return True
            except UnexpectedReply:
                return True
        return False

    def hello(self) -> HelloResult:
        """Says hello and checks that the app speaks our protocol version.

        Raises:
            UnexpectedReply: the app answered with a different shape or version.
        """
        params = {"protocol": PROTOCOL_VERSION, "client": self.client_name}
        result = self.call(HELLO, params)
        try:
            hello = HelloResult.model_validate(result)
        except ValueError as exc:
            raise UnexpectedReply(f"invalid hello result: {exc}") from None
        if hello.protocol != PROTOCOL_VERSION:
            raise UnexpectedReply(
                f"the app speaks protocol {hello.protocol}; this client speaks {PROTOCOL_VERSION}"
            )
        return hello

    def _send(self, sock: socket.socket, frame: bytes, deadline: float) -> None:
        try:
            sock.settimeout(max(deadline - time.monotonic(), 0.001))
            sock.sendall(frame)
        except TimeoutError:
            raise IpcTimeout("the app did not read the request in time") from None
        except OSError as exc:
            self._raise_parting_error(sock)
            raise ConnectionLost(f"the connection to the app broke: {exc}") from None

    def _raise_parting_error(self, sock: socket.socket) -> None:
        """The app may refuse us (wrong uid, too many clients) and hang up before we write:
        read what it said so the caller gets that error, not a bare broken pipe."""
        with contextlib.suppress(OSError, ProtocolError):  # closed meanwhile: nothing to read
            sock.settimeout(_PARTING_READ_TIMEOUT)
            while data := sock.recv(_RECV_SIZE):
                self._bodies.extend(self._decoder.feed(data))
        for body in self._bodies:
            with contextlib.suppress(UnexpectedReply):
                message = self._read_message(body)
                if isinstance(message, Response) and message.error is not None:
                    error = message.error
                    raise RemoteError(error.code, error.message, error.data, request_id=message.id)

    def _await_reply(
        self,
        sock: socket.socket,
        request_id: int,
        deadline: float,
        callback: NotificationCallback | None,
    ) -> dict[str, Any]:
        while True:
            while self._bodies:
                message = self._read_message(self._bodies.popleft())
                if isinstance(message, Notification):
                    if callback is not None:
                        callback(message.method, dict(message.params))
                    continue
                return self._result_of(message, request_id)
            self._receive(sock, deadline)

    def _receive(self, sock: socket.socket, deadline: float) -> None:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise IpcTimeout("the app did not answer in time")
        try:  # settimeout too: close() from another thread may have closed it meanwhile
            sock.settimeout(remaining)
            data = sock.recv(_RECV_SIZE)
        except TimeoutError:
            raise IpcTimeout("the app did not answer in time") from None
        except OSError as exc:
            raise ConnectionLost(f"the connection to the app broke: {exc}") from None
        if not data:
            raise ConnectionLost("the app closed the connection before answering")
        try:
            self._bodies.extend(self._decoder.feed(data))
        except ProtocolError as exc:
            raise UnexpectedReply(f"the app sent a broken frame: {exc}") from None

    @staticmethod
    def _read_message(body: bytes) -> Response | Notification:
        try:
            return parse_server_message(body)
        except ProtocolError as exc:
            raise UnexpectedReply(f"the app sent an invalid message: {exc}") from None

    @staticmethod
    def _result_of(response: Response, request_id: int) -> dict[str, Any]:
        if response.id is not None and response.id != request_id:
            raise UnexpectedReply(f"reply to id {response.id!r} while waiting for {request_id}")
        if response.error is not None:
            error = response.error
            raise RemoteError(error.code, error.message, error.data, request_id=response.id)
        if response.id is None or response.result is None:
            raise UnexpectedReply("a result reply without the request's id")
        return dict(response.result)


def app_is_running(socket_path: Path, timeout: float = PROBE_TIMEOUT) -> bool:
    """True when an app answers `hello` on `socket_path` within `timeout` seconds.

    Any failure, including an unsafe runtime directory, counts as "not running"; the caller
    that then starts the app meets the real error there.
    """
    try:
        with IpcClient(socket_path, timeout, client_name="probe") as client:
            client.hello()
    except JournalError:
        return False
    return True
