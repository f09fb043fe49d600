"""The socket client's own decisions, against a scripted app that speaks the wire format of
docs/protocol.md byte for byte (a 4-byte big-endian length, then compact JSON-RPC 2.0).

The scripted app is written from the document, not from `core.ipc.protocol`, so a change that
moves the client and the protocol module together away from the published format fails here.
What the real app does with the same calls is tested in tests/app/ipc and tests/integration.
"""

from __future__ import annotations

import contextlib
import json
import socket
import struct
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from core.errors import (
    AppNotRunning,
    ConnectionLost,
    IpcTimeout,
    RemoteError,
    RuntimeDirUnsafe,
    UnexpectedReply,
)
from core.ipc.client import IpcClient, app_is_running

HEADER = struct.Struct(">I")
Script = Callable[["Peer"], None]


class Peer:
    """One accepted connection of the scripted app: read the client's requests, write frames."""

    def __init__(self, conn: socket.socket) -> None:
        self.conn = conn
        self.buffer = b""

    def request(self) -> dict[str, Any]:
        """The next request the client sent, as the JSON object it is."""
        while len(self.buffer) < HEADER.size or len(self.buffer) < HEADER.size + self._length():
            data = self.conn.recv(65536)
            if not data:
                raise EOFError("the client closed the connection")
            self.buffer += data
        size = self._length()
        body = self.buffer[HEADER.size : HEADER.size + size]
        self.buffer = self.buffer[HEADER.size + size :]
        value = json.loads(body)
        assert isinstance(value, dict)
        return value

    def _length(self) -> int:
        return int(HEADER.unpack(self.buffer[: HEADER.size])[0])

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps(message, separators=(",", ":")).encode()
        self.conn.sendall(HEADER.pack(len(body)) + body)

    def result(self, request: dict[str, Any], result: dict[str, Any]) -> None:
        self.send({"jsonrpc": "2.0", "id": request["id"], "result": result})

    def error(self, request_id: object, code: int, message: str, **data: Any) -> None:
        error: dict[str, Any] = {"code": code, "message": message}
        if data:
            error["data"] = data
        self.send({"jsonrpc": "2.0", "id": request_id, "error": error})

    def notify(self, method: str, **params: Any) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})


class ScriptedApp:
    """A listening socket in a private folder; each connection runs the next script."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / "app.sock"
        self.scripts: list[Script] = []
        self.requests: list[dict[str, Any]] = []
        self.connections = 0
        self.failures: list[BaseException] = []
        self._server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._server.bind(str(self.path))
        self._server.listen(8)
        self._thread = threading.Thread(target=self._serve, name="scripted-app", daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self._server.accept()
            except OSError:
                return  # closed by stop()
            self.connections += 1
            script = self.scripts.pop(0) if self.scripts else (lambda peer: None)
            with conn:
                try:
                    script(Recording(conn, self.requests))
                except EOFError:
                    pass
                except BaseException as exc:  # reported by stop(), in the test's thread
                    self.failures.append(exc)

    def stop(self) -> None:
        self._server.shutdown(socket.SHUT_RDWR)
        self._server.close()
        self._thread.join(timeout=5)
        assert not self._thread.is_alive()
        assert self.failures == [], self.failures


class Recording(Peer):
    """A peer that keeps every request it reads, for the test to look at."""

    def __init__(self, conn: socket.socket, requests: list[dict[str, Any]]) -> None:
        super().__init__(conn)
        self.requests = requests

    def request(self) -> dict[str, Any]:
        value = super().request()
        self.requests.append(value)
        return value


@pytest.fixture
def app(runtime_dir: Path) -> Iterator[ScriptedApp]:
    scripted = ScriptedApp(runtime_dir)
    yield scripted
    scripted.stop()


def answer_each(*results: dict[str, Any]) -> Script:
    """A connection that answers its requests with `results`, one each, in order."""

    def script(peer: Peer) -> None:
        for result in results:
            peer.result(peer.request(), result)
        peer.request()  # then waits until the client hangs up

    return script


def test_a_call_sends_one_json_rpc_request_and_returns_its_result(app: ScriptedApp) -> None:
    app.scripts.append(answer_each({"status": "ok"}, {"status": "again"}))
    with IpcClient(app.path, timeout=5) as client:
        assert client.call("decision.status", {"decision_id": "d-1"}) == {"status": "ok"}
        assert client.call("decision.status") == {"status": "again"}
    first, second = app.requests
    assert first == {
        "jsonrpc": "2.0",
        "id": first["id"],
        "method": "decision.status",
        "params": {"decision_id": "d-1"},
    }
    assert second["params"] == {} and second["id"] != first["id"]
    assert app.connections == 1


def test_notifications_before_the_reply_reach_the_callback_in_order(app: ScriptedApp) -> None:
    def script(peer: Peer) -> None:
        request = peer.request()
        peer.notify("progress", stage="choice")
        peer.notify("progress", stage="rationale")
        peer.result(request, {"status": "recorded"})
        peer.request()

    app.scripts.append(script)
    seen: list[tuple[str, dict[str, Any], threading.Thread]] = []
    ignored: list[str] = []
    with IpcClient(app.path, on_notification=lambda method, _: ignored.append(method)) as client:
        result = client.call(
            "decision.present",
            on_notification=lambda m, p: seen.append((m, p, threading.current_thread())),
        )
    assert result == {"status": "recorded"}
    assert [(m, p) for m, p, _ in seen] == [
        ("progress", {"stage": "choice"}),
        ("progress", {"stage": "rationale"}),
    ]
    assert {thread for _, _, thread in seen} == {threading.current_thread()}  # the caller's
    assert ignored == []  # the call's own callback replaces the client's


def test_an_error_reply_raises_remote_error_and_keeps_the_connection(app: ScriptedApp) -> None:
    def script(peer: Peer) -> None:
        request = peer.request()
        peer.error(request["id"], -32602, "problem: 1 to 160 characters", field="problem")
        peer.result(peer.request(), {"status": "ok"})
        peer.request()

    app.scripts.append(script)
    with IpcClient(app.path) as client:
        with pytest.raises(RemoteError) as raised:
            client.call("decision.present", {"problem": ""})
        assert raised.value.code == -32602
        assert raised.value.data == {"field": "problem"}
        assert client.connected
        assert client.call("decision.status") == {"status": "ok"}
    assert app.connections == 1


def test_an_error_for_no_request_closes_the_connection(app: ScriptedApp) -> None:
    """An error the app cannot tie to a request (a refused peer) comes with a hang-up."""

    def script(peer: Peer) -> None:
        peer.request()
        peer.error(None, -32001, "too many clients")

    app.scripts.append(script)
    client = IpcClient(app.path)
    with pytest.raises(RemoteError) as raised:
        client.call("decision.status")
    assert raised.value.code == -32001 and raised.value.request_id is None
    assert not client.connected


def another_request_id(peer: Peer, request: dict[str, Any]) -> None:
    peer.send({"jsonrpc": "2.0", "id": request["id"] + 100, "result": {}})


def a_frame_over_the_cap(peer: Peer, request: dict[str, Any]) -> None:
    peer.conn.sendall(HEADER.pack(4 * 1024 * 1024 + 1))  # a header alone, refused at once


@pytest.mark.parametrize(
    ("reply", "complaint"),
    [(another_request_id, "reply to id"), (a_frame_over_the_cap, "broken frame")],
)
def test_a_reply_the_client_cannot_take_is_refused_and_the_connection_closed(
    app: ScriptedApp, reply: Callable[[Peer, dict[str, Any]], None], complaint: str
) -> None:
    def script(peer: Peer) -> None:
        reply(peer, peer.request())
        peer.request()

    app.scripts.append(script)
    client = IpcClient(app.path)
    with pytest.raises(UnexpectedReply, match=complaint):
        client.call("decision.status")
    assert not client.connected


def test_an_app_that_hangs_up_before_answering_is_a_lost_connection(app: ScriptedApp) -> None:
    def script(peer: Peer) -> None:
        peer.request()

    app.scripts.append(script)
    with pytest.raises(ConnectionLost, match="before answering"):
        IpcClient(app.path).call("decision.status")


def test_an_app_that_never_answers_times_out_and_the_connection_closes(
    app: ScriptedApp,
) -> None:
    release = threading.Event()

    def script(peer: Peer) -> None:
        peer.request()
        release.wait(10)

    app.scripts.append(script)
    client = IpcClient(app.path, timeout=5)
    try:
        with pytest.raises(IpcTimeout):
            client.call("decision.status", timeout=0.2)
        assert not client.connected
    finally:
        release.set()


def test_close_from_another_thread_aborts_a_waiting_call(app: ScriptedApp) -> None:
    asked = threading.Event()

    def script(peer: Peer) -> None:
        peer.request()
        asked.set()
        peer.request()  # until the client hangs up

    app.scripts.append(script)
    client = IpcClient(app.path, timeout=30)
    outcome: list[BaseException] = []

    def wait_for_a_human() -> None:
        try:
            client.call("decision.present")
        except BaseException as exc:  # handed to the test's thread below
            outcome.append(exc)

    caller = threading.Thread(target=wait_for_a_human)
    caller.start()
    assert asked.wait(5)
    client.close()
    caller.join(5)
    assert not caller.is_alive()
    assert len(outcome) == 1 and isinstance(outcome[0], ConnectionLost), outcome


def test_a_parting_error_between_calls_is_replaced_by_a_new_connection(
    app: ScriptedApp,
) -> None:
    """Between calls the app may send an idle-timeout error and hang up; the next call must
    not read that error as its answer, and is sent once, on a new connection."""
    parted = threading.Event()

    def first(peer: Peer) -> None:
        peer.result(peer.request(), {"status": "ok"})
        peer.error(None, -32003, "idle for too long")
        parted.set()

    app.scripts += [first, answer_each({"status": "second"})]
    with IpcClient(app.path) as client:
        assert client.call("decision.status") == {"status": "ok"}
        assert parted.wait(5)
        assert client.call("decision.status") == {"status": "second"}
    assert app.connections == 2
    assert len(app.requests) == 2


def test_a_parting_error_read_with_the_last_answer_is_not_the_next_answer(
    app: ScriptedApp,
) -> None:
    """The answer and the parting error arrive in one read: the socket then shows nothing
    readable, yet the next call must still go out on a new connection."""

    def first(peer: Peer) -> None:
        request = peer.request()
        frames = [
            {"jsonrpc": "2.0", "id": request["id"], "result": {"status": "ok"}},
            {"jsonrpc": "2.0", "id": None, "error": {"code": -32003, "message": "idle"}},
        ]
        bodies = [json.dumps(f, separators=(",", ":")).encode() for f in frames]
        peer.conn.sendall(b"".join(HEADER.pack(len(body)) + body for body in bodies))
        with contextlib.suppress(EOFError):  # the app has not hung up yet when the call comes
            peer.request()

    app.scripts += [first, answer_each({"status": "second"})]
    with IpcClient(app.path) as client:
        assert client.call("decision.status") == {"status": "ok"}
        assert client.call("decision.status") == {"status": "second"}
    assert app.connections == 2


def test_hello_checks_the_protocol_version(app: ScriptedApp) -> None:
    def speaks(version: int) -> Script:
        def script(peer: Peer) -> None:
            request = peer.request()
            assert request["method"] == "hello"
            assert request["params"]["protocol"] == 1
            peer.result(request, {"protocol": version, "app_version": "1.0", "journal": "/j"})
            peer.request()

        return script

    app.scripts += [speaks(1), speaks(2)]
    with IpcClient(app.path, client_name="test") as client:
        assert client.hello().journal == "/j"
    assert app.requests[0]["params"]["client"] == "test"
    with (
        IpcClient(app.path) as client,
        pytest.raises(UnexpectedReply, match="speaks protocol 2"),
    ):
        client.hello()


def test_app_is_running_only_when_an_app_answers_hello(app: ScriptedApp, tmp_path: Path) -> None:
    def hello(peer: Peer) -> None:
        peer.result(peer.request(), {"protocol": 1, "app_version": "1.0", "journal": "/j"})

    app.scripts += [hello, lambda peer: None]
    assert app_is_running(app.path)
    assert not app_is_running(app.path)  # accepted, then hung up without a word
    assert not app_is_running(tmp_path / "no-runtime-dir" / "app.sock")


def test_no_app_and_an_unsafe_folder_are_told_apart(runtime_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(AppNotRunning, match="does not exist"):
        IpcClient(tmp_path / "gone" / "app.sock").connect()
    with pytest.raises(AppNotRunning, match="no app is listening"):
        IpcClient(runtime_dir / "app.sock").connect()
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o755)
    shared.chmod(0o755)
    with pytest.raises(RuntimeDirUnsafe):
        IpcClient(shared / "app.sock").connect()
