"""One client as the I/O thread keeps it, and the rules that judge it: deadlines and slots.

Why apart from the loop: these rules decide who is served and who is dropped; as plain
functions over plain state they read (and test) without sockets or threads.
"""

from __future__ import annotations

import socket
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field

from app.ipc.connection import Connection
from app.ipc.policy import Limits
from core.errors import ErrorCode, ProtocolError
from core.ipc.framing import FrameDecoder


@dataclass(eq=False, slots=True)
class Peer:
    """The I/O thread's state of one client; only that thread touches it.

    Attributes:
        quiet_since: the last complete frame or reply (or the connect); eviction and the
            idle deadline count from it.
        proven: the client has completed a frame (so the first-frame deadline is met).
        parsing: a body of this client is with the parse thread; it is not read meanwhile.
        parse_bytes, held_bytes: request bytes held for it (with the parse thread; in all).
        closing: its last error is being written; nothing more is read from it.
        frame_started: when the unfinished frame it is sending began, or None.
        interest: the selector events it is registered for.
    """

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


def lateness(peer: Peer, now: float, limits: Limits) -> str | None:
    """Why `peer` has run out of time, or None while it is within its deadlines."""
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


def choose_room(peers: Iterable[Peer], limits: Limits) -> Peer | ProtocolError | None:
    """Whether a newcomer fits: None when it does, the quietest idle client when that one must
    give up its slot, or the BUSY error that refuses the newcomer when every client is busy."""
    live = [p for p in peers if not p.closing]
    active = [p for p in live if not p.connection.is_waiting]
    if len(active) < limits.max_clients and len(live) < limits.max_clients + limits.max_waiting:
        return None
    idle = [p for p in active if not p.connection.has_in_flight]
    if not idle:
        message = f"{limits.max_clients} clients are already connected and busy"
        return ProtocolError(ErrorCode.BUSY, message, data={"limit": limits.max_clients})
    return min(idle, key=lambda p: p.quiet_since)


def making_room(limits: Limits) -> ProtocolError:
    """The notice a client gets when it gives up its slot to a newcomer."""
    return ProtocolError(
        ErrorCode.BUSY,
        f"{limits.max_clients} clients are connected: the one quiet longest makes room",
        data={"limit": limits.max_clients},
    )
