"""One connected client as handlers see it: reply, notify, close, and learn when it is gone.

Why a facade: the socket itself belongs to the I/O thread (`app.ipc.io_loop`); handlers run on
the GUI thread. A `Connection` turns their calls into frames and hands them over, and keeps the
one piece of state both threads need, the set of unanswered request ids, behind a lock.

Every failure to reply (a reply too large for a frame, an unencodable value, a client already
gone) is logged and ends in a closed connection, never in an exception for the handler.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from enum import Enum
from typing import Any, Protocol

from app.ipc.peercred import PeerCredentials
from app.ipc.policy import MAX_IN_FLIGHT
from core.errors import ErrorCode, FrameTooLarge, ProtocolError
from core.ipc.framing import encode_frame
from core.ipc.protocol import (
    RequestIdType,
    encode_error_frame,
    notification_message,
    result_message,
)
from core.record.redact_record import redact_json
from core.record.redaction import redact_text

log = logging.getLogger(__name__)


class Outlet(Protocol):
    """What a connection needs from the I/O thread; both calls are thread-safe."""

    def send(self, connection_id: int, frame: bytes) -> None: ...

    def close_peer(self, connection_id: int) -> None: ...


class Admission(Enum):
    """How the I/O thread may treat a new request of this connection."""

    ACCEPTED = "accepted"
    DUPLICATE = "duplicate"
    BUSY = "busy"


class ClosedSignal:
    """A Qt-like signal without arguments, kept in plain Python.

    Why not a Qt signal: handlers keep a connection in closures attached to QTimers and
    dialogs. With a QObject connection, the last reference could die inside another QObject's
    destructor, and PySide6 then crashes deleting it re-entrantly (seen in these tests).
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
    """One connected client. Call its public methods on the GUI thread only.

    Replying after the client left is a harmless no-op, so a handler never has to race the
    disconnect.

    Signals:
        closed(): the client went away or was disconnected; drop waits made on its behalf.
    """

    def __init__(
        self,
        outlet: Outlet,
        credentials: PeerCredentials | None,
        connection_id: int,
        gui_thread: int,
    ) -> None:
        self.id = connection_id
        self.closed = ClosedSignal()
        self.peer_pid: int | None = credentials.pid if credentials else None
        self.peer_uid: int | None = credentials.uid if credentials else None
        self._outlet = outlet
        self._gui_thread = gui_thread
        self._lock = threading.Lock()
        self._in_flight: set[RequestIdType] = set()
        self._waiting: set[RequestIdType] = set()
        self._closing = False
        self._gone = False
        self._finished = False

    @property
    def is_closed(self) -> bool:
        return self._gone or self._closing or self._finished

    @property
    def in_flight(self) -> frozenset[RequestIdType]:
        """Ids of requests still waiting for a reply."""
        with self._lock:
            return frozenset(self._in_flight)

    @property
    def is_waiting(self) -> bool:
        """True while a request of this client waits for the person; such a connection holds
        none of the slots other clients need (thread-safe)."""
        with self._lock:
            return bool(self._waiting)

    @property
    def has_in_flight(self) -> bool:
        """Thread-safe: whether any request of this client is unanswered."""
        with self._lock:
            return bool(self._in_flight)

    def reply(self, request_id: RequestIdType, result: Mapping[str, Any]) -> None:
        """Answers `request_id` with `result`; a result that cannot be sent becomes an error."""
        if not self._take(request_id):
            return
        try:
            # Results are built from stored, redacted records (core.capture); errors quote the
            # request and are redacted below. Redacting results here would parse every large
            # reply again on the GUI thread.
            frame = encode_frame(result_message(request_id, result))
        except (ValueError, TypeError) as exc:
            log.exception("reply to %r cannot be encoded", request_id)
            frame = encode_error_frame(request_id, _unsendable(exc))
        self._outlet.send(self.id, frame)

    def reply_error(self, request_id: RequestIdType, error: ProtocolError) -> None:
        """Answers `request_id` with `error`; the connection stays open.

        An error that cannot be sent at all is logged and the connection closed, so the client
        learns at once instead of waiting out its timeout.
        """
        if not self._take(request_id):
            return
        try:
            frame = encode_error_frame(request_id, _redacted_error(error))
        except Exception:
            log.exception("error reply to %r cannot be encoded; disconnecting", request_id)
            self.close()
            return
        self._outlet.send(self.id, frame)

    def notify(self, method: str, params: Mapping[str, Any]) -> None:
        """Sends a notification (e.g. `progress`) unless the client is gone."""
        self._check_thread()
        if self.is_closed:
            return
        try:
            frame = encode_frame(notification_message(method, params))
        except (ValueError, TypeError):
            log.exception("notification %s cannot be encoded", method)
            return
        self._outlet.send(self.id, frame)

    def mark_waiting(self, request_id: RequestIdType) -> None:
        """Tells the server that `request_id` now waits for the person (a window is open), so
        this connection leaves the client slots until it is answered."""
        self._check_thread()
        with self._lock:
            if request_id in self._in_flight:
                self._waiting.add(request_id)

    def close(self) -> None:
        """Disconnects after pending bytes are written; `closed` follows."""
        self._check_thread()
        if self.is_closed:
            return
        self._closing = True
        self._outlet.close_peer(self.id)

    def admit(self, request_id: RequestIdType) -> Admission:
        """I/O thread: records `request_id` as unanswered unless it breaks a per-client rule."""
        with self._lock:
            if request_id in self._in_flight:
                return Admission.DUPLICATE
            if len(self._in_flight) >= MAX_IN_FLIGHT:
                return Admission.BUSY
            self._in_flight.add(request_id)
            return Admission.ACCEPTED

    def mark_gone(self) -> None:
        """I/O thread: the socket is closed; replies from now on go nowhere."""
        self._gone = True

    def finish(self) -> None:
        """GUI thread: the server learned the client is gone; waits made for it end now."""
        if self._finished:
            return
        self._finished = True
        with self._lock:
            self._in_flight.clear()
            self._waiting.clear()
        self.closed.emit()

    def _check_thread(self) -> None:
        if threading.get_ident() != self._gui_thread:
            raise RuntimeError("Connection methods must be called on the GUI thread")

    def _take(self, request_id: RequestIdType) -> bool:
        self._check_thread()
        with self._lock:
            known = request_id in self._in_flight
            self._in_flight.discard(request_id)
            self._waiting.discard(request_id)
        if not known:
            if not self.is_closed:
                log.warning("ignoring a second or unknown reply to request %r", request_id)
            return False
        return not self.is_closed


def _unsendable(exc: Exception) -> ProtocolError:
    if isinstance(exc, FrameTooLarge):
        return ProtocolError(ErrorCode.FRAME_TOO_LARGE, f"the reply is too large: {exc}")
    return ProtocolError(ErrorCode.INTERNAL_ERROR, "the reply could not be encoded")


def _redacted_error(error: ProtocolError) -> ProtocolError:
    """The same error with its message and data redacted: messages quote the request."""
    return ProtocolError(
        error.code,
        redact_text(error.message)[0],
        error.field,
        data=redact_json(error.data),
        request_id=error.request_id,
    )
