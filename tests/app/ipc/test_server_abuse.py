"""The socket under abuse: oversized replies, silent, slow and idle clients, 4 MiB frames,
clients that never read, too many question windows, floods of `journal.changed`.

Every case ends by checking that a well-behaved client is still served: one bad client never
takes the app away from the others.
"""

from __future__ import annotations

import contextlib
import json
import socket
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QElapsedTimer, QTimer

from app.capture_controller import QUESTIONS_PER_CONNECTION, CaptureController
from app.ipc.server import IpcServer
from core.errors import ErrorCode, RemoteError
from core.ipc.client import IpcClient, app_is_running
from core.ipc.framing import MAX_FRAME, MAX_VALUES
from core.ipc.protocol import MAX_LISTED_VIOLATIONS
from core.ipc.runtime_paths import socket_path
from tests.app.support.controller_support import SocketCall, serving_controller
from tests.app.support.socket_support import (
    WAIT_MS,
    TinyHandler,
    connect,
    in_thread,
    private_journal,
    read_messages,
    read_until_closed,
    request,
    serving,
)
from tests.factories import proposal_dict

pytestmark = [
    pytest.mark.skipif(sys.platform == "win32", reason="Unix-domain sockets"),
    pytest.mark.qt_log_ignore(
        r"This plugin does not support propagateSizeHints\(\)",
        r"This plugin does not support raise\(\)",
    ),
]


@pytest.fixture
def journal(tmp_path: Path, runtime_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return private_journal(tmp_path, runtime_dir, monkeypatch)


@pytest.fixture
def handler() -> TinyHandler:
    return TinyHandler()


def still_served(qtbot: Any, server: IpcServer) -> None:
    assert in_thread(qtbot, lambda: app_is_running(server.socket_path, timeout=5))


# --- error replies that fit ---------------------------------------------------------------


def _options(count: int, **option: Any) -> dict[str, Any]:
    return {
        "problem": "Choose a storage layout",
        "decision_kind": "storage",
        "detector_confidence": 0.9,
        "options": [{"id": f"o{i}", **option} for i in range(count)],
    }


def _present(journal: Path, proposal: dict[str, Any]) -> SocketCall:
    params = {"proposal": proposal, "workspace": "/w", "session_id": "s-1"}
    call = SocketCall(journal, "decision.present", params, wait=30)
    call.start()
    return call


def test_a_proposal_with_thousands_of_bad_options_gets_a_bounded_error(
    qtbot: Any, journal: Path
) -> None:
    with serving_controller(journal):
        call = _present(journal, _options(5000, label=""))
        qtbot.waitUntil(lambda: not call.is_alive(), timeout=30_000)
    error = call.error
    assert isinstance(error, RemoteError), call.result
    assert error.code == ErrorCode.INVALID_PROPOSAL
    assert len(error.data["violations"]) == MAX_LISTED_VIOLATIONS
    omitted = error.data["violations_omitted"]
    assert omitted > 4000
    assert error.message.endswith(f"; and {omitted:,} more")
    assert len(error.message) <= 4096


@pytest.mark.parametrize("workspace", ["../../", "relative/dir", "~/x", "/", "/tmp/.."])
def test_a_workspace_that_names_no_project_is_refused_before_anything_is_written(
    qtbot: Any, journal: Path, workspace: str
) -> None:
    """A relative path means another place to every process that reads it, and one pending
    decision at '/' would hold every agent on the machine."""
    params = {"proposal": proposal_dict(), "workspace": workspace, "session_id": "s-1"}
    with serving_controller(journal):
        call = SocketCall(journal, "decision.present", params, wait=30)
        call.start()
        qtbot.waitUntil(lambda: not call.is_alive(), timeout=30_000)
    error = call.error
    assert isinstance(error, RemoteError), call.result
    assert error.code == ErrorCode.INVALID_PROPOSAL
    assert [v["field"] for v in error.data["violations"]] == ["workspace"]
    assert not list((journal / "pending").glob("*.json"))


def test_the_8200_option_ask_is_answered_at_once(qtbot: Any, journal: Path) -> None:
    """The frame that used to leave `ask` waiting seven days: refused before it is built."""
    with serving_controller(journal):
        started = time.monotonic()
        call = _present(journal, _options(8200, label="x", description=""))
        qtbot.waitUntil(lambda: not call.is_alive(), timeout=30_000)
        elapsed = time.monotonic() - started
        assert isinstance(call.error, RemoteError)
        assert call.error.code == ErrorCode.PARSE_ERROR
        assert call.error.data["limit"] == MAX_VALUES
        assert elapsed < 10
        assert in_thread(qtbot, lambda: app_is_running(socket_path(journal), timeout=5))


def test_an_error_too_large_for_a_frame_still_reaches_the_client(
    qtbot: Any, journal: Path, handler: TinyHandler
) -> None:
    with serving(journal, handler) as server:

        def call() -> RemoteError:
            with IpcClient(server.socket_path) as client:
                try:
                    client.call("huge_error")
                except RemoteError as exc:
                    assert client.connected
                    return exc
            raise AssertionError("no error")

        error = in_thread(qtbot, call)
        assert error.code == ErrorCode.INVALID_PROPOSAL
        assert error.data == {"limit": 4, "field": "options"}


def test_a_result_too_large_for_a_frame_becomes_an_error(
    qtbot: Any, journal: Path, handler: TinyHandler
) -> None:
    with serving(journal, handler) as server:

        def call() -> Any:
            with IpcClient(server.socket_path) as client:
                client.call("huge_result")

        with pytest.raises(RemoteError) as info:
            in_thread(qtbot, call)
        assert info.value.code == ErrorCode.FRAME_TOO_LARGE
        still_served(qtbot, server)


# --- deadlines ----------------------------------------------------------------------------


def test_a_silent_client_is_closed_after_the_first_frame_deadline(
    qtbot: Any, journal: Path, handler: TinyHandler
) -> None:
    with serving(journal, handler, first_frame_seconds=0.4) as server:
        sock = connect(server.socket_path)
        with sock:
            messages, waited = in_thread(qtbot, lambda: read_until_closed(sock))
        assert 0.3 < waited < 2.0
        (notice,) = messages
        assert notice["id"] is None
        assert notice["error"]["code"] == ErrorCode.TIMED_OUT
        assert "no request within 0.4 s of connecting" in notice["error"]["message"]
        qtbot.waitUntil(lambda: not server.connections, timeout=WAIT_MS)
        still_served(qtbot, server)


def test_a_slow_loris_frame_is_cut_off(qtbot: Any, journal: Path, handler: TinyHandler) -> None:
    """One byte every 50 ms: the frame must complete within its deadline, however steady."""
    with serving(journal, handler, frame_seconds=0.5, first_frame_seconds=30) as server:
        sock = connect(server.socket_path)
        payload = request("echo", params={"pad": "p" * 200})

        def dribble() -> tuple[list[Any], float]:
            for byte_index in range(len(payload)):
                try:
                    sock.send(payload[byte_index : byte_index + 1])
                except OSError:
                    break
                time.sleep(0.05)
            return read_until_closed(sock)

        with sock:
            messages, _ = in_thread(qtbot, dribble)
        (notice,) = messages
        assert notice["error"]["code"] == ErrorCode.TIMED_OUT
        assert "a frame did not complete within 0.5 s" in notice["error"]["message"]
        still_served(qtbot, server)


def test_an_idle_client_is_closed_and_the_client_reconnects(
    qtbot: Any, journal: Path, handler: TinyHandler
) -> None:
    with serving(journal, handler, idle_seconds=0.3) as server:
        client = IpcClient(server.socket_path)
        try:
            assert in_thread(qtbot, lambda: client.call("echo", {"n": 1})) == {"echo": {"n": 1}}
            (first,) = server.connections
            qtbot.waitUntil(lambda: first.is_closed and not server.connections, timeout=WAIT_MS)
            assert in_thread(qtbot, lambda: client.call("echo", {"n": 2})) == {"echo": {"n": 2}}
            (second,) = server.connections
            assert second.id != first.id
        finally:
            client.close()


def test_a_client_waiting_for_a_reply_is_never_idle(
    qtbot: Any, journal: Path, handler: TinyHandler
) -> None:
    with serving(journal, handler, idle_seconds=0.2) as server:
        sock = connect(server.socket_path)
        with sock:
            sock.sendall(request("hold", 7))
            qtbot.waitUntil(lambda: len(handler.held) == 1, timeout=WAIT_MS)
            qtbot.wait(800)
            connection, held = handler.held[0]
            assert not connection.is_closed
            connection.reply(held.id, {"done": True})
            (reply,) = in_thread(qtbot, lambda: read_messages(sock, 1))
        assert reply == {"jsonrpc": "2.0", "id": 7, "result": {"done": True}}


def test_200_slow_loris_connections_lock_nobody_out(
    qtbot: Any, journal: Path, handler: TinyHandler
) -> None:
    """More dribbling clients than slots: each newcomer takes the slot of the quietest."""
    with serving(journal, handler, max_clients=32) as server:
        rejected: list[str] = []
        server.client_rejected.connect(rejected.append)
        lorises = [connect(server.socket_path) for _ in range(200)]
        try:
            for sock in lorises:
                with contextlib.suppress(OSError):  # the quietest made room for newcomers
                    sock.send(b"\x00")
            for _ in range(5):
                still_served(qtbot, server)
            assert rejected == []
            qtbot.waitUntil(lambda: len(server.connections) <= 32, timeout=WAIT_MS)
        finally:
            for sock in lorises:
                sock.close()


# --- parsing off the GUI thread -----------------------------------------------------------


def _hostile_frames() -> list[bytes]:
    header = b'{"jsonrpc":"2.0","id":1,"method":"echo","params":{"a":'
    room = MAX_FRAME - len(header) - 8
    tiny_values = b"[" + b",".join([b"1"] * (room // 2 - 1)) + b"]"
    one_string = json.dumps("s" * (room - 10)).encode()
    return [frame_of(header + tiny_values + b"}}"), frame_of(header + one_string + b"}}")]


def frame_of(body: bytes) -> bytes:
    assert len(body) <= MAX_FRAME
    return len(body).to_bytes(4, "big") + body


def test_the_gui_thread_keeps_ticking_while_4_mib_frames_are_parsed(
    qtbot: Any, journal: Path, handler: TinyHandler
) -> None:
    frames = _hostile_frames()
    with serving(journal, handler) as server:
        gaps: list[int] = []
        clock = QElapsedTimer()
        clock.start()
        ticker = QTimer()
        ticker.setInterval(5)
        ticker.timeout.connect(lambda: gaps.append(clock.restart()))
        answered: list[int] = []

        def flood() -> None:
            for _ in range(3):
                for payload in frames:
                    with connect(server.socket_path, timeout=30) as sock:
                        sock.sendall(payload)
                        answered.append(len(read_messages(sock, 1)))

        threads = [threading.Thread(target=flood, daemon=True) for _ in range(4)]
        ticker.start()
        try:
            for thread in threads:
                thread.start()
            qtbot.waitUntil(lambda: not any(t.is_alive() for t in threads), timeout=60_000)
        finally:
            ticker.stop()
        assert answered == [1] * 24
        assert handler.calls == 12
        worst = max(gaps[1:])
        assert worst < 250, f"the event loop stalled {worst} ms"
        still_served(qtbot, server)


# --- buffered replies ---------------------------------------------------------------------


def test_a_client_that_does_not_read_is_paused_then_served(
    qtbot: Any, journal: Path, handler: TinyHandler
) -> None:
    """Replies beyond the pause mark stop the app reading that client until it reads."""
    with serving(journal, handler, outbox_pause=64 * 1024) as server:
        sock = connect(server.socket_path)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        with sock:
            sock.sendall(b"".join(request("big", i) for i in range(1, 6)))
            qtbot.waitUntil(lambda: handler.calls == 5, timeout=WAIT_MS)
            qtbot.wait(200)
            sock.sendall(b"".join(request("big", i) for i in range(6, 11)))
            qtbot.wait(300)
            assert handler.calls == 5, "the app kept reading a client that does not read"
            replies = in_thread(qtbot, lambda: read_messages(sock, 10))
        assert [reply["id"] for reply in replies] == list(range(1, 11))
        assert handler.calls == 10


def test_a_client_that_never_reads_is_disconnected_at_the_cap(
    qtbot: Any, journal: Path, handler: TinyHandler, caplog: pytest.LogCaptureFixture
) -> None:
    with serving(journal, handler, outbox_pause=64 * 1024, outbox_max=256 * 1024) as server:
        gone: list[int] = []
        server.client_disconnected.connect(gone.append)
        sock = connect(server.socket_path)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        with sock:
            sock.sendall(b"".join(request("big", i) for i in range(1, 17)))
            qtbot.waitUntil(lambda: len(gone) == 1, timeout=WAIT_MS)
        assert "it does not read its replies" in caplog.text
        assert "limit 262144" in caplog.text
        still_served(qtbot, server)


def test_unfinished_frames_of_all_clients_are_capped(
    qtbot: Any, journal: Path, handler: TinyHandler
) -> None:
    """Half-sent large frames cannot pile up: beyond the cap the oldest one's client goes."""
    padded = request("echo", 1, {"pad": "p" * 900_000})
    half = 600_000
    with serving(journal, handler, held_max=1024 * 1024) as server:
        first, second = connect(server.socket_path), connect(server.socket_path)
        with first, second:
            first.sendall(padded[:half])
            qtbot.wait(300)
            second.sendall(padded[:half])
            messages, _ = in_thread(qtbot, lambda: read_until_closed(first))
            (notice,) = messages
            assert notice["error"]["code"] == ErrorCode.BUSY
            assert notice["error"]["data"] == {"limit": 1024 * 1024}
            assert "unfinished frames of all clients hold" in notice["error"]["message"]
            second.sendall(padded[half:])
            (reply,) = in_thread(qtbot, lambda: read_messages(second, 1))
        assert reply["result"]["echo"]["pad"] == "p" * 900_000
        still_served(qtbot, server)


# --- question windows ---------------------------------------------------------------------

QUESTION: dict[str, Any] = {
    "questions": [
        {
            "question": "Which cache?",
            "header": "Cache",
            "options": [{"label": "SQLite"}, {"label": "Redis"}],
            "multi_select": False,
        }
    ],
    "workspace": "/tmp/project",
    "session_id": "s-q",
}


@pytest.fixture
def controller(journal: Path) -> Iterator[CaptureController]:
    with serving_controller(journal) as serving_one:
        yield serving_one


def test_one_client_opens_at_most_three_question_windows(
    qtbot: Any, journal: Path, controller: CaptureController
) -> None:
    sock = connect(socket_path(journal))
    with sock:
        sock.sendall(b"".join(request("questions.ask", i, QUESTION) for i in range(1, 6)))
        busy = in_thread(qtbot, lambda: read_messages(sock, 2))
        qtbot.waitUntil(
            lambda: len(controller.question_windows()) == QUESTIONS_PER_CONNECTION,
            timeout=WAIT_MS,
        )
        assert [reply["id"] for reply in busy] == [4, 5]
        for reply in busy:
            assert reply["error"]["code"] == ErrorCode.BUSY
            assert reply["error"]["data"] == {"limit": QUESTIONS_PER_CONNECTION}
        other = SocketCall(journal, "questions.ask", QUESTION)
        other.start()
        qtbot.waitUntil(lambda: len(controller.question_windows()) == 4, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: len(controller.question_windows()) == 1, timeout=WAIT_MS)


# --- journal.changed ----------------------------------------------------------------------


class _Replies:
    """Stands in for a connection when the handler is driven directly."""

    def __init__(self) -> None:
        self.results: list[Any] = []

    def reply(self, request_id: Any, result: Any) -> None:
        self.results.append(result)


def test_2000_journal_changed_in_a_tenth_of_a_second_cause_one_catch_up(
    qtbot: Any, journal: Path, controller: CaptureController
) -> None:
    from core.ipc.protocol import Request

    announced: list[None] = []
    controller.journal_changed.connect(lambda: announced.append(None))
    replies = _Replies()
    started = time.monotonic()
    for i in range(2000):
        notice = Request(jsonrpc="2.0", id=i, method="journal.changed")
        controller.handle(replies, notice)  # type: ignore[arg-type]
    assert time.monotonic() - started < 0.1
    assert replies.results == [{"accepted": True}] * 2000
    qtbot.waitUntil(lambda: len(announced) == 1, timeout=WAIT_MS)
    qtbot.wait(600)
    assert len(announced) == 1
    controller.handle(replies, Request(jsonrpc="2.0", id=1, method="journal.changed"))  # type: ignore[arg-type]
    qtbot.waitUntil(lambda: len(announced) == 2, timeout=WAIT_MS)


def test_a_flood_of_journal_changed_over_the_socket_is_coalesced(
    qtbot: Any, journal: Path, controller: CaptureController
) -> None:
    announced: list[None] = []
    controller.journal_changed.connect(lambda: announced.append(None))

    def send_many() -> None:
        with IpcClient(socket_path(journal)) as client:
            for _ in range(250):
                client.call("journal.changed")

    started = time.monotonic()
    in_thread(qtbot, lambda: [t.join() for t in _started(send_many, 8)], timeout_ms=60_000)
    elapsed = time.monotonic() - started
    qtbot.wait(600)
    assert 1 <= len(announced) <= elapsed / 0.25 + 2


def _started(target: Any, count: int) -> list[threading.Thread]:
    threads = [threading.Thread(target=target, daemon=True) for _ in range(count)]
    for thread in threads:
        thread.start()
    return threads
