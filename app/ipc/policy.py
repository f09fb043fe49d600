"""The socket's caps and deadlines, in one place, so the server, its tests and its docs agree.

Why these shapes: any process of this user may connect, so every resource a client can make
the app hold (a slot, bytes waiting in either direction, time) has a bound, and a client that
waits for the person holds no slot another client needs.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.ipc.framing import MAX_FRAME

MAX_CLIENTS = 256
"""Connections that are not waiting for the person; more than any honest setup opens."""
MAX_WAITING = 256
"""Connections whose requests all wait for the person (an open decision or question window)."""
MAX_IN_FLIGHT = 16
"""Unanswered requests one connection may hold; the rest are answered BUSY."""
RECV_SIZE = 256 * 1024
INLINE_PARSE_MAX = 64 * 1024
"""Bodies up to this size are parsed on the I/O thread; larger ones wait their turn for the
parse thread, so a 4 MiB frame never delays a small request of another client."""


@dataclass(frozen=True, slots=True)
class Limits:
    """Per-connection caps and deadlines (tests shorten the deadlines).

    Attributes:
        max_clients: connections not waiting for the person; a newcomer beyond this takes the
            slot of the connection quiet the longest, or is refused BUSY when none is quiet.
        max_waiting: connections beyond `max_clients` admitted for clients waiting on the person.
        first_frame_seconds: a client must complete its first frame within this of connecting.
        frame_seconds: a frame must complete within this of its first byte.
        idle_seconds: a connection with nothing in flight is closed after this long.
        outbox_pause: replies buffered for a client beyond which the app stops reading it.
        outbox_max: replies buffered for a client beyond which it is disconnected.
        linger_seconds: how long a client being disconnected may take to read its last error.
        held_max: request bytes held for all clients together (unfinished frames, bodies
            waiting to be parsed); beyond it the oldest unfinished frame's client is dropped.
    """

    max_clients: int = MAX_CLIENTS
    max_waiting: int = MAX_WAITING
    first_frame_seconds: float = 5.0
    frame_seconds: float = 5.0
    idle_seconds: float = 30.0
    outbox_pause: int = 1024 * 1024
    outbox_max: int = 2 * MAX_FRAME + 64 * 1024
    linger_seconds: float = 1.0
    held_max: int = 16 * MAX_FRAME
