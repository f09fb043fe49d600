"""The socket's I/O thread: accepts, checks peers, reads, frames, parses, validates and writes.

Why a thread of its own: any process of this user may connect, slowly or with 4 MiB of JSON.
Reading and parsing on the GUI thread froze the app for seconds, so here the GUI thread only
ever sees validated requests (through `Sink.post`), and its replies come back as frames.

Why one selector thread and one parse thread: a selector serves hundreds of idle or slow
connections without a thread each, and reading stays fair (one read per ready client per
turn). Small bodies are parsed right here; a large body goes to the parse thread, and its
client is not read again until it is parsed, so a client that floods large frames holds one
body at a time and never delays small requests of others.

Every client resource is capped (`app.ipc.policy.Limits`): slots, unanswered requests,
buffered replies, and deadlines for the first frame, each frame and idleness.
"""

from __future__ import annotations

import contextlib
import logging
import os
import queue
import selectors
import socket
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from app.ipc.connection import Admission, Connection
from app.ipc.peercred import PeerCredentials
from app.ipc.policy import INLINE_PARSE_MAX, MAX_IN_FLIGHT, RECV_SIZE, Limits
from core.protocol import (
    HELLO,
    PARAMS_MODELS,
    PROTOCOL_VERSION,
    ErrorCode,
    FrameDecoder,
    FrameTooLarge,
    HelloParams,
    ProtocolError,
    Request,
    RequestIdType,
    encode_error_frame,
    encode_frame,
    parse_params,
    parse_request,
    result_message,
)

log = logging.getLogger(__name__)

CredentialsReader = Callable[[int], PeerCredentials | None]
SWEEP_SECONDS = 0.1
"""How often deadlines are checked; a deadline is met to within this."""
_ACCEPTS_PER_TURN = 64
SWITCH_INTERVAL = 0.001
_PARSED = "parsed"
_SEND = "send"
_CLOSE = "close"


@dataclass(frozen=True, slots=True)
class Opened:
    connection: Connection


@dataclass(frozen=True, slots=True)
class Arrived:
    connection: Connection
    request: Request


@dataclass(frozen=True, slots=True)
class Closed:
    connection: Connection


@dataclass(frozen=True, slots=True)
class Rejected:
    reason: str


Event = Opened | Arrived | Closed | Rejected


class Sink(Protocol):
    """Receives events on the I/O thread; must hand them to the GUI thread without blocking."""

    def post(self, event: Event) -> None: ...


@dataclass(eq=False, slots=True)
class _Peer:
    sock: socket.socket
    connection: Connection
    opened_at: float
    quiet_since: float
    decoder: FrameDecoder = field(default_factory=FrameDecoder)
    outbox: deque[bytes] = field(default_factory=deque)
    out_offset: int = 0
    out_bytes: int = 0
    proven: bool = False
    parsing: bool = False
    parse_bytes: int = 0
    held_bytes: int = 0
    closing: bool = False
    close_by: float = 0.0
    frame_started: float | None = None
    interest: int = 0


def parse_body(body: bytes) -> Request | ProtocolError:
    """The request in `body`, or the error that refuses it (never raises)."""
    try:
        request = parse_request(body)
        model = PARAMS_MODELS.get(request.method)
        if model is not None:
            parse_params(model, request)
    except ProtocolError as exc:
        return exc
    except Exception:
        log.exception("a request body could not be read")
        return ProtocolError(ErrorCode.INTERNAL_ERROR, "the request could not be read")
    return request


class IoLoop:
    """Serves one listening socket on a thread of its own.

    Args:
        listener: a bound, listening Unix socket; the loop owns and closes it.
        sink: receives `Opened`, `Arrived`, `Closed` and `Rejected` events.
        hello: the `hello` result (protocol, app version, journal), answered here.
        limits: caps and deadlines.
        read_credentials: learns a peer's uid and pid from its descriptor.
        gui_thread: the thread handlers run on (connections check it).
        own_uid: the only user admitted.
    """

    def __init__(
        self,
        listener: socket.socket,
        sink: Sink,
        *,
        hello: Mapping[str, Any],
        limits: Limits,
        read_credentials: CredentialsReader,
        gui_thread: int,
        own_uid: int,
    ) -> None:
        self._listener = listener
        self._sink = sink
        self._hello = dict(hello)
        self._limits = limits
        self._read_credentials = read_credentials
        self._gui_thread = gui_thread
        self._own_uid = own_uid
        self._selector = selectors.DefaultSelector()
        self._wake_r, self._wake_w = socket.socketpair()
        self._commands: deque[tuple[Any, ...]] = deque()
        self._peers: dict[int, _Peer] = {}
        self._held_total = 0
        self._parse_queue: queue.SimpleQueue[tuple[_Peer, bytes] | None] = queue.SimpleQueue()
        self._next_id = 0
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="ipc-io", daemon=True)
        self._parser = threading.Thread(target=self._parse_loop, name="ipc-parse", daemon=True)

    # --- other threads ------------------------------------------------------------------------

    def start(self) -> None:
        """Starts serving. The interpreter's switch interval drops to a millisecond: while the
        parse thread or a worker holds the interpreter, the GUI and I/O threads must get it
        back within that, or every waiting client pays the default five."""
        sys.setswitchinterval(min(sys.getswitchinterval(), SWITCH_INTERVAL))
        for sock in (self._listener, self._wake_r, self._wake_w):
            sock.setblocking(False)
        self._selector.register(self._listener, selectors.EVENT_READ, None)
        self._selector.register(self._wake_r, selectors.EVENT_READ, self._wake_r)
        self._thread.start()
        self._parser.start()

    def stop(self, timeout: float = 1.0) -> None:
        """Stops accepting, writes what clients will take within `timeout`, closes all."""
        self._stopping.set()
        self._wake()
        self._thread.join(timeout + 1.0)
        self._parse_queue.put(None)
        self._parser.join(1.0)

    def send(self, connection_id: int, frame: bytes) -> None:
        self._commands.append((_SEND, connection_id, frame))
        self._wake()

    def close_peer(self, connection_id: int) -> None:
        self._commands.append((_CLOSE, connection_id))
        self._wake()

    def _wake(self) -> None:
        with contextlib.suppress(BlockingIOError, OSError):
            self._wake_w.send(b"\0")

    # --- the loop -----------------------------------------------------------------------------

    def _run(self) -> None:
        next_sweep = 0.0
        try:
            while not self._stopping.is_set():
                for key, mask in self._selector.select(SWEEP_SECONDS):
                    self._on_ready(key.data, mask)
                self._run_commands()
                now = time.monotonic()
                if now >= next_sweep:
                    self._sweep(now)
                    next_sweep = now + SWEEP_SECONDS
        except Exception:
            log.exception("the socket's I/O thread failed")
        finally:
            self._shut_down()

    def _on_ready(self, data: Any, mask: int) -> None:
        if data is None:
            self._accept_all()
        elif data is self._wake_r:
            with contextlib.suppress(BlockingIOError, OSError):
                self._wake_r.recv(4096)
        else:
            peer: _Peer = data
            try:
                if mask & selectors.EVENT_READ:
                    self._read(peer)
                if mask & selectors.EVENT_WRITE and peer.connection.id in self._peers:
                    self._write(peer)
            except Exception:
                log.exception("serving client %s failed; disconnecting it", peer.connection.id)
                self._drop(peer)

    def _run_commands(self) -> None:
        while self._commands:
            command = self._commands.popleft()
            peer = command[1] if command[0] == _PARSED else self._peers.get(command[1])
            if peer is None:
                continue
            try:
                if command[0] == _PARSED:
                    self._on_parsed(peer, command[2])
                elif command[0] == _SEND:
                    self._queue(peer, command[2], answered=True)
                else:
                    self._close_after_flush(peer)
            except Exception:
                log.exception("serving client %s failed; disconnecting it", peer.connection.id)
                self._drop(peer)

    # --- admission ----------------------------------------------------------------------------

    def _accept_all(self) -> None:
        for _ in range(_ACCEPTS_PER_TURN):
            try:
                sock, _address = self._listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:
                log.warning("accepting a client failed: %s", exc)
                return
            sock.setblocking(False)
            self._admit(sock)

    def _admit(self, sock: socket.socket) -> None:
        credentials = self._read_credentials(sock.fileno())
        if credentials is None or credentials.uid != self._own_uid:
            uid = "unknown" if credentials is None else str(credentials.uid)
            error = ProtocolError(
                ErrorCode.FORBIDDEN_PEER, f"peer uid {uid} is not this user (uid {self._own_uid})"
            )
            self._refuse(sock, error, f"forbidden peer uid {uid}")
            return
        refusal = self._make_room()
        if refusal is not None:
            self._refuse(sock, refusal, refusal.message)
            return
        self._next_id += 1
        connection = Connection(self, credentials, self._next_id, self._gui_thread)
        now = time.monotonic()
        peer = _Peer(sock, connection, opened_at=now, quiet_since=now)
        self._peers[connection.id] = peer
        self._sink.post(Opened(connection))
        self._update_interest(peer)

    def _make_room(self) -> ProtocolError | None:
        """None when a newcomer fits; otherwise the quietest idle client gives up its slot, or
        the newcomer is refused BUSY when every client is busy."""
        limits = self._limits
        live = [p for p in self._peers.values() if not p.closing]
        active = [p for p in live if not p.connection.is_waiting]
        if len(active) < limits.max_clients and len(live) < limits.max_clients + limits.max_waiting:
            return None
        idle = [p for p in active if not p.connection.has_in_flight]
        if not idle:
            message = f"{limits.max_clients} clients are already connected and busy"
            return ProtocolError(ErrorCode.BUSY, message, data={"limit": limits.max_clients})
        quietest = min(idle, key=lambda p: p.quiet_since)
        making_room = ProtocolError(
            ErrorCode.BUSY,
            f"{limits.max_clients} clients are connected: the one quiet longest makes room",
            data={"limit": limits.max_clients},
        )
        self._fail(quietest, None, making_room)
        return None

    def _refuse(self, sock: socket.socket, error: ProtocolError, reason: str) -> None:
        log.warning("refused a client: %s", reason)
        with contextlib.suppress(OSError):
            sock.send(encode_error_frame(None, error))
            sock.shutdown(socket.SHUT_WR)
        sock.close()
        self._sink.post(Rejected(reason))

    # --- reading ------------------------------------------------------------------------------

    def _read(self, peer: _Peer) -> None:
        try:
            data = peer.sock.recv(RECV_SIZE)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            self._drop(peer)
            return
        if not data:
            self._drop(peer)
            return
        if not peer.closing:
            self._drain(peer, data)

    def _drain(self, peer: _Peer, data: bytes) -> None:
        """Handles each complete body in order; stops at one sent to the parse thread."""
        try:
            for body in peer.decoder.feed(data):
                if not self._on_body(peer, body) or peer.closing:
                    break
        except FrameTooLarge as exc:
            self._fail(peer, None, exc)
            return
        if peer.decoder.buffered == 0:
            peer.frame_started = None
        elif peer.frame_started is None:
            peer.frame_started = time.monotonic()
        self._account(peer)
        self._update_interest(peer)

    def _on_body(self, peer: _Peer, body: bytes) -> bool:
        """False when the body went to the parse thread (this client waits until it is read)."""
        peer.proven = True
        peer.quiet_since = time.monotonic()
        if len(body) > INLINE_PARSE_MAX:
            peer.parsing = True
            peer.parse_bytes = len(body)
            self._account(peer)
            self._parse_queue.put((peer, body))
            return False
        self._on_request(peer, parse_body(body))
        return True

    def _parse_loop(self) -> None:
        """Parses large bodies one at a time, resting as long as each took before the next,
        so a flood of them takes at most half of one core and never the interpreter for
        long."""
        rest_until = 0.0
        while (item := self._parse_queue.get()) is not None:
            time.sleep(max(rest_until - time.monotonic(), 0.0))
            started = time.monotonic()
            peer, body = item
            self._commands.append((_PARSED, peer, parse_body(body)))
            self._wake()
            finished = time.monotonic()
            rest_until = finished + (finished - started)

    def _on_parsed(self, peer: _Peer, outcome: Request | ProtocolError) -> None:
        peer.parsing = False
        peer.parse_bytes = 0
        if peer.connection.id not in self._peers or peer.closing:
            return
        self._account(peer)
        self._on_request(peer, outcome)
        if not peer.closing:
            peer.frame_started = None
            self._drain(peer, b"")

    def _on_request(self, peer: _Peer, outcome: Request | ProtocolError) -> None:
        if isinstance(outcome, ProtocolError):
            if outcome.code == ErrorCode.INVALID_PARAMS:
                self._queue(peer, encode_error_frame(outcome.request_id, outcome))
            else:
                self._fail(peer, outcome.request_id, outcome)
            return
        if outcome.method == HELLO:
            self._queue(peer, self._hello_frame(outcome))
            return
        admission = peer.connection.admit(outcome.id)
        if admission is Admission.DUPLICATE:
            message = f"request id {outcome.id!r} is already waiting for a reply"
            self._fail(peer, None, ProtocolError(ErrorCode.INVALID_REQUEST, message, "id"))
        elif admission is Admission.BUSY:
            message = f"{MAX_IN_FLIGHT} requests are already waiting on this connection"
            busy = ProtocolError(ErrorCode.BUSY, message, data={"limit": MAX_IN_FLIGHT})
            self._queue(peer, encode_error_frame(outcome.id, busy))
        else:
            self._sink.post(Arrived(peer.connection, outcome))

    def _account(self, peer: _Peer) -> None:
        """Keeps the total of request bytes held for all clients (unfinished frames, bodies
        waiting for the parse thread) within `Limits.held_max`: beyond it, the client whose
        unfinished frame started longest ago is disconnected, so no crowd of half-sent 4 MiB
        frames can make the app hold more."""
        held = peer.decoder.buffered + peer.parse_bytes
        self._held_total += held - peer.held_bytes
        peer.held_bytes = held
        limit = self._limits.held_max
        while self._held_total > limit:
            stalled = [
                p for p in self._peers.values() if p.frame_started is not None and not p.closing
            ]
            if not stalled:
                return
            oldest = min(stalled, key=lambda p: p.frame_started or 0.0)
            message = (
                f"unfinished frames of all clients hold {self._held_total} bytes "
                f"(limit {limit}); the oldest is dropped"
            )
            self._fail(oldest, None, ProtocolError(ErrorCode.BUSY, message, data={"limit": limit}))
            self._release(oldest)

    def _release(self, peer: _Peer) -> None:
        self._held_total -= peer.held_bytes
        peer.held_bytes = 0

    def _hello_frame(self, request: Request) -> bytes:
        params = HelloParams.model_validate(request.params)
        if params.protocol is not None and params.protocol != PROTOCOL_VERSION:
            error = ProtocolError(
                ErrorCode.UNSUPPORTED_PROTOCOL,
                f"protocol {params.protocol} is not supported; this app speaks {PROTOCOL_VERSION}",
                "protocol",
                data={"supported": [PROTOCOL_VERSION]},
            )
            return encode_error_frame(request.id, error)
        return encode_frame(result_message(request.id, self._hello))

    # --- writing ------------------------------------------------------------------------------

    def _queue(self, peer: _Peer, frame: bytes, *, answered: bool = False) -> None:
        """Buffers `frame` for `peer` and writes what the kernel takes now."""
        limit = self._limits.outbox_max
        if peer.out_bytes + len(frame) > limit:
            log.warning(
                "disconnecting client %s (pid %s): it does not read its replies "
                "(%d bytes waiting, limit %d)",
                peer.connection.id,
                peer.connection.peer_pid,
                peer.out_bytes + len(frame),
                limit,
            )
            self._drop(peer)
            return
        if answered:
            peer.quiet_since = time.monotonic()
        peer.outbox.append(frame)
        peer.out_bytes += len(frame)
        self._write(peer)

    def _write(self, peer: _Peer) -> None:
        while peer.outbox:
            head = peer.outbox[0]
            try:
                sent = peer.sock.send(memoryview(head)[peer.out_offset :])
            except (BlockingIOError, InterruptedError):
                break
            except OSError:
                self._drop(peer)
                return
            peer.out_offset += sent
            peer.out_bytes -= sent
            if peer.out_offset == len(head):
                peer.outbox.popleft()
                peer.out_offset = 0
        if peer.closing and not peer.outbox:
            self._drop(peer)
            return
        self._update_interest(peer)

    def _update_interest(self, peer: _Peer) -> None:
        if peer.connection.id not in self._peers:
            return
        want = 0
        reading = not (peer.closing or peer.parsing)
        if reading and peer.out_bytes < self._limits.outbox_pause:
            want |= selectors.EVENT_READ
        if peer.outbox:
            want |= selectors.EVENT_WRITE
        if want == peer.interest:
            return
        if peer.interest == 0:
            self._selector.register(peer.sock, want, peer)
        elif want == 0:
            self._selector.unregister(peer.sock)
        else:
            self._selector.modify(peer.sock, want, peer)
        peer.interest = want

    # --- ending -------------------------------------------------------------------------------

    def _fail(self, peer: _Peer, request_id: RequestIdType | None, error: ProtocolError) -> None:
        """Answers a violation and disconnects this client only, once it has read the error."""
        log.info("disconnecting client (pid %s): %s", peer.connection.peer_pid, error.message)
        self._queue(peer, encode_error_frame(request_id, error))
        if peer.connection.id in self._peers:
            self._close_after_flush(peer)

    def _close_after_flush(self, peer: _Peer) -> None:
        if peer.closing:
            return
        peer.closing = True
        self._release(peer)
        peer.close_by = time.monotonic() + self._limits.linger_seconds
        peer.connection.mark_gone()
        if not peer.outbox:
            self._drop(peer)
        else:
            self._update_interest(peer)

    def _drop(self, peer: _Peer) -> None:
        if self._peers.pop(peer.connection.id, None) is None:
            return
        if peer.interest:
            with contextlib.suppress(KeyError, ValueError):
                self._selector.unregister(peer.sock)
            peer.interest = 0
        peer.sock.close()
        self._release(peer)
        peer.outbox.clear()
        peer.out_bytes = 0
        peer.connection.mark_gone()
        self._sink.post(Closed(peer.connection))

    def _sweep(self, now: float) -> None:
        for peer in list(self._peers.values()):
            if peer.closing:
                if now > peer.close_by:
                    self._drop(peer)
                continue
            if peer.parsing or peer.out_bytes >= self._limits.outbox_pause:
                continue
            late = self._lateness(peer, now)
            if late is not None:
                self._fail(peer, None, ProtocolError(ErrorCode.TIMED_OUT, late))

    def _lateness(self, peer: _Peer, now: float) -> str | None:
        """Why `peer` has run out of time, or None while it is within its deadlines."""
        limits = self._limits
        if peer.frame_started is not None and now - peer.frame_started > limits.frame_seconds:
            buffered = peer.decoder.buffered
            return f"a frame did not complete within {limits.frame_seconds:g} s ({buffered} bytes)"
        if not peer.proven and now - peer.opened_at > limits.first_frame_seconds:
            return f"no request within {limits.first_frame_seconds:g} s of connecting"
        idle = peer.frame_started is None and not peer.outbox
        quiet_for = now - peer.quiet_since
        if idle and quiet_for > limits.idle_seconds and not peer.connection.has_in_flight:
            return f"idle for {limits.idle_seconds:g} s"
        return None

    def _shut_down(self) -> None:
        """Writes what each client takes within a second, then closes every socket."""
        with contextlib.suppress(OSError):
            self._selector.unregister(self._listener)
        self._listener.close()
        self._run_commands()
        deadline = time.monotonic() + self._limits.linger_seconds
        while any(p.outbox for p in self._peers.values()) and time.monotonic() < deadline:
            for key, mask in self._selector.select(SWEEP_SECONDS):
                if isinstance(key.data, _Peer) and mask & selectors.EVENT_WRITE:
                    self._write(key.data)
        for peer in list(self._peers.values()):
            self._drop(peer)
        self._selector.close()
        self._wake_r.close()
        self._wake_w.close()


def bind_listener(path: os.PathLike[str] | str, backlog: int = 1024) -> socket.socket:
    """A listening Unix socket at `path`, private to this user from its first moment.

    Bound under a temporary name in the same (private) directory, made owner-only, then
    renamed over `path`, so a stale socket file is replaced atomically.
    """
    final = os.fspath(path)
    temporary = os.path.join(os.path.dirname(final), f"t-{os.getpid()}.sock")
    with contextlib.suppress(FileNotFoundError):
        os.unlink(temporary)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.bind(temporary)
        os.chmod(temporary, 0o600)
        os.replace(temporary, final)
        sock.listen(backlog)
    except OSError:
        sock.close()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise
    return sock
