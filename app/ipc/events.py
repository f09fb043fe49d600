"""What the I/O thread tells the server: a client opened, a request arrived, a client closed,
a peer was refused.

Why plain frozen records: they cross from the I/O thread to the GUI thread in a queue, so they
carry no Qt object and nothing either side may change afterwards.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from app.ipc.connection import Connection
from core.ipc.protocol import Request


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
