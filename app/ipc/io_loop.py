"""The socket's I/O thread: accepts, checks peers, reads, frames, parses, validates and writes.

Why a thread of its own: any process of this user may connect, slowly or with 4 MiB of JSON.
Reading and parsing on the GUI thread froze the app while a large frame was parsed, so here
the GUI thread only ever sees validated requests (through `Sink.post`), and its replies come
back as frames.

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
import queue
import selectors
import socket
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any

from app.ipc.connection import Admission, Connection
from app.ipc.events import Arrived, Closed, Opened, Rejected, Sink
from app.ipc.peer import Peer, choose_room, lateness, making_room
from app.ipc.peercred import PeerCredentials
from app.ipc.policy import INLINE_PARSE_MAX, MAX_IN_FLIGHT, RECV_SIZE, Limits
from app.ipc.requests import hello_frame, parse_body
from core.errors import ErrorCode, FrameTooLarge, ProtocolError
from core.ipc.methods import HELLO
from core.ipc.protocol import Request, RequestIdType, encode_error_frame

log = logging.getLogger(__name__)

CredentialsReader = Callable[[int], PeerCredentials | None]
SWEEP_SECONDS = 0.1
"""How often deadlines are checked; a deadline is met to within this."""
_ACCEPTS_PER_TURN = 64
_ACCEPT_FAILURE_PAUSE = 0.05
"""After a failed accept (out of descriptors), so a listener that stays readable is not spun on."""
SWITCH_INTERVAL = 0.001
_PARSED = "parsed"
_SEND = "send"
_CLOSE = "close"


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
        self._peers: dict[int, Peer] = {}
        self._held_total = 0
        self._parse_queue: queue.SimpleQueue[tuple[Peer, bytes] | None] = queue.SimpleQueue()
        self._next_id = 0
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="ipc-io", daemon=True)
        self._parser = threading.Thread(target=self._parse_loop, name="ipc-parse", daemon=True)

    # --- other threads ------------------------------------------------------------------------

    def start(self) -> None:
        """Starts serving. The interpreter's switch interval drops to `SWITCH_INTERVAL`: while
        the parse thread or a worker holds the interpreter, the GUI and I/O threads must get
        it back quickly, or every waiting client pays the default interval at each hand-over."""
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
            peer: Peer = data
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
                time.sleep(_ACCEPT_FAILURE_PAUSE)
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
        room = choose_room(self._peers.values(), self._limits)
        if isinstance(room, ProtocolError):
            self._refuse(sock, room, room.message)
            return
        if room is not None:
            self._fail(room, None, making_room(self._limits))
        self._next_id += 1
        connection = Connection(self, credentials, self._next_id, self._gui_thread)
        now = time.monotonic()
        peer = Peer(sock, connection, opened_at=now, quiet_since=now)
        self._peers[connection.id] = peer
        self._sink.post(Opened(connection))
        self._update_interest(peer)

    def _refuse(self, sock: socket.socket, error: ProtocolError, reason: str) -> None:
        log.warning("refused a client: %s", reason)
        with contextlib.suppress(OSError):
            sock.send(encode_error_frame(None, error))
            sock.shutdown(socket.SHUT_WR)
        sock.close()
        self._sink.post(Rejected(reason))

    # --- reading ------------------------------------------------------------------------------

    def _read(self, peer: Peer) -> None:
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

    def _drain(self, peer: Peer, data: bytes) -> None:
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

    def _on_body(self, peer: Peer, body: bytes) -> bool:
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

    def _on_parsed(self, peer: Peer, outcome: Request | ProtocolError) -> None:
        peer.parsing = False
        peer.parse_bytes = 0
        if peer.connection.id not in self._peers or peer.closing:
            return
        self._account(peer)
        self._on_request(peer, outcome)
        if not peer.closing:
            peer.frame_started = None
            self._drain(peer, b"")

    def _on_request(self, peer: Peer, outcome: Request | ProtocolError) -> None:
        if isinstance(outcome, ProtocolError):
            if outcome.code == ErrorCode.INVALID_PARAMS:
                self._queue(peer, encode_error_frame(outcome.request_id, outcome))
            else:
                self._fail(peer, outcome.request_id, outcome)
            return
        if outcome.method == HELLO:
            self._queue(peer, hello_frame(outcome, self._hello))
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

    def _account(self, peer: Peer) -> None:
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

    def _release(self, peer: Peer) -> None:
        self._held_total -= peer.held_bytes
        peer.held_bytes = 0

    # --- writing ------------------------------------------------------------------------------

    def _queue(self, peer: Peer, frame: bytes, *, answered: bool = False) -> None:
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

    def _write(self, peer: Peer) -> None:
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

    def _update_interest(self, peer: Peer) -> None:
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

    def _fail(self, peer: Peer, request_id: RequestIdType | None, error: ProtocolError) -> None:
        """Answers a violation and disconnects this client only, once it has read the error."""
        log.info("disconnecting client (pid %s): %s", peer.connection.peer_pid, error.message)
        self._queue(peer, encode_error_frame(request_id, error))
        if peer.connection.id in self._peers:
            self._close_after_flush(peer)

    def _close_after_flush(self, peer: Peer) -> None:
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

    def _drop(self, peer: Peer) -> None:
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
            late = lateness(peer, now, self._limits)
            if late is not None:
                self._fail(peer, None, ProtocolError(ErrorCode.TIMED_OUT, late))

    def _shut_down(self) -> None:
        """Writes what each client takes within `Limits.linger_seconds`, then closes all."""
        with contextlib.suppress(OSError):
            self._selector.unregister(self._listener)
        self._listener.close()
        self._run_commands()
        deadline = time.monotonic() + self._limits.linger_seconds
        while any(p.outbox for p in self._peers.values()) and time.monotonic() < deadline:
            for key, mask in self._selector.select(SWEEP_SECONDS):
                if isinstance(key.data, Peer) and mask & selectors.EVENT_WRITE:
                    self._write(key.data)
        for peer in list(self._peers.values()):
            self._drop(peer)
        self._selector.close()
        self._wake_r.close()
        self._wake_w.close()
