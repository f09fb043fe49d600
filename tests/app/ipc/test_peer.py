"""The rules that judge a client, without sockets or threads: deadlines and who gives up a slot."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator

import pytest

from app.ipc.connection import Admission, Connection
from app.ipc.peer import Peer, choose_room, lateness
from app.ipc.policy import Limits
from core.errors import ErrorCode, ProtocolError

LIMITS = Limits(
    max_clients=2, max_waiting=1, first_frame_seconds=5, frame_seconds=5, idle_seconds=30
)


class _NoOutlet:
    def send(self, connection_id: int, frame: bytes) -> None: ...

    def close_peer(self, connection_id: int) -> None: ...


@pytest.fixture
def sockets() -> Iterator[list[socket.socket]]:
    made: list[socket.socket] = []
    yield made
    for sock in made:
        sock.close()


def _peer(sockets: list[socket.socket], number: int, *, quiet_since: float = 0.0) -> Peer:
    left, right = socket.socketpair()
    sockets += [left, right]
    connection = Connection(_NoOutlet(), None, number, threading.get_ident())
    return Peer(left, connection, opened_at=0.0, quiet_since=quiet_since)


def test_a_newcomer_fits_while_slots_are_free(sockets: list[socket.socket]) -> None:
    assert choose_room([_peer(sockets, 1)], LIMITS) is None


def test_the_quietest_idle_client_gives_up_its_slot(sockets: list[socket.socket]) -> None:
    older, newer = _peer(sockets, 1, quiet_since=1.0), _peer(sockets, 2, quiet_since=2.0)
    assert choose_room([newer, older], LIMITS) is older


def test_busy_clients_keep_their_slots_and_the_newcomer_is_refused(
    sockets: list[socket.socket],
) -> None:
    peers = [_peer(sockets, 1), _peer(sockets, 2)]
    for index, peer in enumerate(peers):
        assert peer.connection.admit(index) is Admission.ACCEPTED
    refusal = choose_room(peers, LIMITS)
    assert isinstance(refusal, ProtocolError)
    assert refusal.code == ErrorCode.BUSY
    assert refusal.data == {"limit": 2}


def test_a_client_waiting_for_the_person_holds_no_slot(sockets: list[socket.socket]) -> None:
    waiting, idle = _peer(sockets, 1), _peer(sockets, 2, quiet_since=5.0)
    assert waiting.connection.admit("r") is Admission.ACCEPTED
    waiting.connection.mark_waiting("r")
    assert choose_room([waiting, idle], LIMITS) is None
    third = _peer(sockets, 3, quiet_since=9.0)
    assert choose_room([waiting, idle, third], LIMITS) is idle


def test_waiting_clients_have_their_own_cap(sockets: list[socket.socket]) -> None:
    peers = [_peer(sockets, n, quiet_since=float(n)) for n in range(1, 4)]
    for peer in peers[:2]:
        peer.connection.admit("r")
        peer.connection.mark_waiting("r")
    assert choose_room(peers, LIMITS) is peers[2]


def test_deadlines(sockets: list[socket.socket]) -> None:
    silent = _peer(sockets, 1)
    assert lateness(silent, 4.9, LIMITS) is None
    assert lateness(silent, 5.1, LIMITS) == "no request within 5 s of connecting"
    slow = _peer(sockets, 2)
    slow.proven, slow.frame_started = True, 10.0
    assert lateness(slow, 14.0, LIMITS) is None
    assert lateness(slow, 15.5, LIMITS) == "a frame did not complete within 5 s (0 bytes)"
    idle = _peer(sockets, 3, quiet_since=100.0)
    idle.proven = True
    assert lateness(idle, 129.0, LIMITS) is None
    assert lateness(idle, 131.0, LIMITS) == "idle for 30 s"
    idle.connection.admit(1)
    assert lateness(idle, 1000.0, LIMITS) is None
