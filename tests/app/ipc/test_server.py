"""The socket server in-process with real clients: plain sockets in threads, the Qt loop here.

Every hostile case ends by checking that a well-behaved client is still served, because that
is the promise: one bad client never takes the app away from the others.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import stat
import struct
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QObject, QTimer

from app.ipc.peercred import PeerCredentials, peer_credentials, peer_uid
from app.ipc.server import Connection, IpcServer
from core.errors import (
    AppNotRunning,
    ConnectionLost,
    ErrorCode,
    NotFound,
    ProtocolError,
    RemoteError,
    RuntimeDirUnsafe,
)
from core.ipc.client import IpcClient, app_is_running
from core.ipc.framing import MAX_FRAME, FrameDecoder
from core.ipc.methods import (
    APP_SHOW,
    DECISION_PENDING,
    DECISION_PRESENT,
    PROGRESS,
    AppShowParams,
    DecisionPendingParams,
    DecisionPresentParams,
)
from core.ipc.protocol import Request, parse_params
from core.ipc.runtime_paths import APP_DIR_NAME, canonical_journal_path, socket_path
from tests.app.support.socket_support import in_thread

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="Unix-domain sockets")

WAIT_MS = 5000
PENDING = [
    {
        "decision_id": "d-1",
        "stage": "choice",
        "problem": "Choose the storage layout",
        "project_alias": "journal",
        "session_id": "s-1",
        "created_at": "2025-01-01T00:00:00Z",
    }
]


class FakeHandler(QObject):
    """Knows app.show, decision.pending and a decision.present that answers after a delay."""

    def __init__(self, delay_ms: int = 50) -> None:
        super().__init__()
        self.delay_ms = delay_ms
        self.calls: list[str] = []
        self.connections: list[Connection] = []
        self.dropped: list[Any] = []
        self.mark_waiting = False

    def handle(self, connection: Connection, request: Request) -> None:
        self.calls.append(request.method)
        self.connections.append(connection)
        if request.method == APP_SHOW:
            parse_params(AppShowParams, request)
            connection.reply(request.id, {"shown": True})
        elif request.method == DECISION_PENDING:
            params = parse_params(DecisionPendingParams, request)
            pending = [p for p in PENDING if params.session_id in (None, p["session_id"])]
            connection.reply(request.id, {"pending": pending})
        elif request.method == DECISION_PRESENT:
            self._present(connection, request)
        elif request.method == "test.not_found":
            raise NotFound("decision d-404 does not exist")
        else:
            error = ProtocolError(
                ErrorCode.METHOD_NOT_FOUND, f"unknown method {request.method}", "method"
            )
            connection.reply_error(request.id, error)

    def _present(self, connection: Connection, request: Request) -> None:
        params = parse_params(DecisionPresentParams, request)
        decision_id = params.decision_id or "d-new"
        connection.notify(PROGRESS, {"request_id": request.id, "message": "waiting for the human"})
        if self.mark_waiting:
            connection.mark_waiting(request.id)
        timer = QTimer(self)
        timer.setSingleShot(True)
        timer.setInterval(self.delay_ms)

        def answer() -> None:
            connection.closed.disconnect(drop)
            connection.reply(
                request.id,
                {"status": "recorded", "decision_id": decision_id, "revision": 1},
            )
            timer.deleteLater()

        def drop() -> None:
            timer.stop()
            timer.deleteLater()
            self.dropped.append(request.id)

        timer.timeout.connect(answer)
        connection.closed.connect(drop)
        timer.start()


def record(signal: Any) -> list[Any]:
    """Collects a signal's emissions.

    Used instead of `qtbot.waitSignal`, which under PySide6 6.12.0 over-releases `True` once
    per use (see app/ipc/server.py `_emit`) and, repeated, aborts the interpreter at exit.
    """
    seen: list[Any] = []
    signal.connect(lambda *args: seen.append(args[0] if args else None))
    return seen


def raw_exchange(path: Path, payload: bytes, *, wait_s: float = 3.0) -> tuple[list[Any], bool]:
    """Sends raw bytes; returns the messages read and whether the server hung up."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(wait_s)
        sock.connect(str(path))
        sock.sendall(payload)
        decoder = FrameDecoder()
        messages: list[Any] = []
        while True:
            try:
                data = sock.recv(65536)
            except TimeoutError:
                return messages, False
            if not data:
                return messages, True
            messages.extend(json.loads(body) for body in decoder.feed(data))


def frame_of(body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + body


def request_body(method: str = "hello", params: Any = None, **extra: Any) -> bytes:
    envelope: dict[str, Any] = {"jsonrpc": "2.0", "id": 1, "method": method}
    if params is not None:
        envelope["params"] = params
    envelope.update(extra)
    return json.dumps(envelope).encode()


@pytest.fixture
def runtime_root(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A short private XDG_RUNTIME_DIR (tmp_path is too long for sun_path on some runs)."""
    root = Path(tempfile.mkdtemp(prefix="dj-"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(root))
    yield root
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def journal(tmp_path: Path) -> Path:
    path = tmp_path / "journal"
    path.mkdir()
    return path


@pytest.fixture
def handler() -> FakeHandler:
    return FakeHandler()


@pytest.fixture
def server(runtime_root: Path, journal: Path, handler: FakeHandler) -> Iterator[IpcServer]:
    instance = IpcServer(journal, handler)
    assert instance.listen()
    yield instance
    instance.close()


def test_hello_reports_protocol_version_and_journal(
    qtbot: Any, server: IpcServer, journal: Path
) -> None:
    def hello() -> Any:
        with IpcClient(server.socket_path) as client:
            return client.hello()

    result = in_thread(qtbot, hello)
    assert result.protocol == 1
    assert result.journal == canonical_journal_path(journal)
    assert result.app_version


def test_hello_refuses_another_protocol_version(qtbot: Any, server: IpcServer) -> None:
    def hello() -> Any:
        with IpcClient(server.socket_path) as client:
            return client.call("hello", {"protocol": 99})

    with pytest.raises(RemoteError) as info:
        in_thread(qtbot, hello)
    assert info.value.code == ErrorCode.UNSUPPORTED_PROTOCOL
    assert info.value.field == "protocol"


def test_async_reply_comes_after_a_progress_notification(
    qtbot: Any, server: IpcServer, handler: FakeHandler
) -> None:
    handler.delay_ms = 150
    events: list[tuple[str, Any]] = []

    def present() -> dict[str, Any]:
        with IpcClient(server.socket_path, on_notification=lambda m, p: events.append((m, p))) as c:
            started = time.monotonic()
            params = {"decision_id": "d-7", "workspace": "/w", "session_id": "s-1"}
            result = c.call(DECISION_PRESENT, params, timeout=5)
            events.append(("result", time.monotonic() - started))
            return result

    result = in_thread(qtbot, present)
    assert result == {"status": "recorded", "decision_id": "d-7", "revision": 1}
    assert [name for name, _ in events] == [PROGRESS, "result"]
    assert events[0][1] == {"request_id": 1, "message": "waiting for the human"}
    assert events[1][1] >= 0.1


def test_handler_methods_and_errors_keep_the_connection(qtbot: Any, server: IpcServer) -> None:
    def session() -> list[Any]:
        out: list[Any] = []
        with IpcClient(server.socket_path) as client:
            out.append(client.call(APP_SHOW, {"view": "journal"}))
            for method, params in [
                ("no.such.method", {}),
                (APP_SHOW, {"view": "decision"}),
                ("test.not_found", {}),
            ]:
                try:
                    client.call(method, params)
                except RemoteError as exc:
                    out.append((int(exc.code), exc.field))
            out.append(client.call(DECISION_PENDING, {"session_id": "s-1"}))
            out.append(client.call(DECISION_PENDING, {"session_id": "other"}))
            out.append(client.connected)
        return out

    show, unknown, bad_params, not_found, pending, none, connected = in_thread(qtbot, session)
    assert show == {"shown": True}
    assert unknown == (ErrorCode.METHOD_NOT_FOUND, "method")
    assert bad_params == (ErrorCode.INVALID_PARAMS, "decision_id")
    assert not_found == (ErrorCode.NOT_FOUND, None)
    assert pending == {"pending": PENDING}
    assert none == {"pending": []}
    assert connected is True


HOSTILE = {
    "not json": (frame_of(b"not json"), ErrorCode.PARSE_ERROR, None),
    "invalid utf-8": (frame_of(b'{"a":"\xff"}'), ErrorCode.PARSE_ERROR, None),
    "nan": (frame_of(request_body(params={"x": float("nan")})), ErrorCode.PARSE_ERROR, None),
    "trailing data": (frame_of(request_body() + b" {}"), ErrorCode.PARSE_ERROR, None),
    "duplicate key": (
        frame_of(b'{"jsonrpc":"2.0","id":1,"id":2,"method":"hello"}'),
        ErrorCode.PARSE_ERROR,
        "id",
    ),
    "unknown field": (frame_of(request_body(extra=1)), ErrorCode.INVALID_REQUEST, "extra"),
    "params not an object": (
        frame_of(request_body(params=[1, 2])),
        ErrorCode.INVALID_REQUEST,
        "params",
    ),
    "batch": (frame_of(b"[" + request_body() + b"]"), ErrorCode.INVALID_REQUEST, None),
    "notification": (
        frame_of(b'{"jsonrpc":"2.0","method":"app.show"}'),
        ErrorCode.INVALID_REQUEST,
        "id",
    ),
    "4 GiB header": (b"\xff\xff\xff\xff", ErrorCode.FRAME_TOO_LARGE, None),
    "one byte over the cap": (struct.pack(">I", MAX_FRAME + 1), ErrorCode.FRAME_TOO_LARGE, None),
}


@pytest.mark.parametrize("case", list(HOSTILE))
def test_hostile_client_gets_an_error_and_is_disconnected(
    qtbot: Any, server: IpcServer, case: str
) -> None:
    payload, code, field = HOSTILE[case]
    messages, hung_up = in_thread(qtbot, lambda: raw_exchange(server.socket_path, payload))
    assert hung_up
    assert len(messages) == 1
    error = messages[0]["error"]
    assert error["code"] == code
    assert error.get("data", {}).get("field") == field
    qtbot.waitUntil(lambda: not server.connections, timeout=WAIT_MS)
    assert in_thread(qtbot, lambda: app_is_running(server.socket_path))


def test_error_reply_keeps_a_readable_request_id(qtbot: Any, server: IpcServer) -> None:
    body = b'{"jsonrpc":"2.0","id":"req-9","method":"hello","bogus":true}'
    messages, hung_up = in_thread(qtbot, lambda: raw_exchange(server.socket_path, frame_of(body)))
    assert hung_up
    assert messages[0]["id"] == "req-9"
    assert messages[0]["error"]["data"]["field"] == "bogus"


def test_good_requests_before_a_bad_frame_are_answered(qtbot: Any, server: IpcServer) -> None:
    payload = frame_of(request_body()) + b"\xff\xff\xff\xff"
    messages, hung_up = in_thread(qtbot, lambda: raw_exchange(server.socket_path, payload))
    assert hung_up
    assert messages[0]["result"]["protocol"] == 1
    assert messages[1]["error"]["code"] == ErrorCode.FRAME_TOO_LARGE


def test_frame_split_across_writes_is_reassembled(qtbot: Any, server: IpcServer) -> None:
    frame = frame_of(request_body())

    def dribble() -> Any:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(3)
            sock.connect(str(server.socket_path))
            for i in range(len(frame)):
                sock.sendall(frame[i : i + 1])
                time.sleep(0.001)
            decoder = FrameDecoder()
            while True:
                bodies = list(decoder.feed(sock.recv(65536)))
                if bodies:
                    return json.loads(bodies[0])

    assert in_thread(qtbot, dribble)["result"]["protocol"] == 1


def test_client_leaving_mid_frame_is_cleaned_up(qtbot: Any, server: IpcServer) -> None:
    frame = frame_of(request_body(params={"pad": "x" * 1000}))

    def leave_early() -> None:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.connect(str(server.socket_path))
            sock.sendall(frame[: len(frame) // 2])

    gone = record(server.client_disconnected)
    in_thread(qtbot, leave_early)
    qtbot.waitUntil(lambda: len(gone) == 1, timeout=WAIT_MS)
    assert not server.connections
    assert in_thread(qtbot, lambda: app_is_running(server.socket_path))


def test_duplicate_in_flight_id_disconnects(qtbot: Any, server: IpcServer) -> None:
    params = {"decision_id": "d-1", "workspace": "/w", "session_id": "s"}
    one = frame_of(request_body(DECISION_PRESENT, params))
    messages, hung_up = in_thread(qtbot, lambda: raw_exchange(server.socket_path, one + one))
    assert hung_up
    *before, refusal = messages
    assert all(message["method"] == PROGRESS for message in before)
    assert refusal["id"] is None
    assert refusal["error"]["code"] == ErrorCode.INVALID_REQUEST


def test_disconnect_while_waiting_tells_the_handler(
    qtbot: Any, server: IpcServer, handler: FakeHandler
) -> None:
    handler.delay_ms = 10_000
    client = IpcClient(server.socket_path, timeout=5)
    params = {"decision_id": "d-2", "workspace": "/w", "session_id": "s-1"}
    box: dict[str, BaseException] = {}

    def wait() -> None:
        try:
            client.call(DECISION_PRESENT, params)
        except BaseException as exc:
            box["error"] = exc

    thread = threading.Thread(target=wait, daemon=True)
    thread.start()
    qtbot.waitUntil(lambda: DECISION_PRESENT in handler.calls, timeout=WAIT_MS)
    client.close()
    qtbot.waitUntil(lambda: handler.dropped == [1], timeout=WAIT_MS)
    qtbot.waitUntil(lambda: not thread.is_alive(), timeout=WAIT_MS)
    thread.join()
    assert isinstance(box["error"], ConnectionLost)


def test_closing_server_answers_waiting_calls(
    qtbot: Any, server: IpcServer, handler: FakeHandler
) -> None:
    handler.delay_ms = 10_000
    params = {"decision_id": "d-3", "workspace": "/w", "session_id": "s-1"}
    box: dict[str, BaseException] = {}

    def wait() -> None:
        try:
            with IpcClient(server.socket_path) as client:
                client.call(DECISION_PRESENT, params)
        except BaseException as exc:
            box["error"] = exc

    thread = threading.Thread(target=wait, daemon=True)
    thread.start()
    qtbot.waitUntil(lambda: DECISION_PRESENT in handler.calls, timeout=WAIT_MS)
    server.close()
    qtbot.waitUntil(lambda: not thread.is_alive(), timeout=WAIT_MS)
    thread.join()
    error = box["error"]
    assert isinstance(error, RemoteError)
    assert error.code == ErrorCode.BUSY
    assert handler.dropped == [1]
    assert not server.socket_path.exists()


def test_reply_after_client_left_is_harmless(
    qtbot: Any, server: IpcServer, handler: FakeHandler
) -> None:
    connected = record(server.client_connected)
    gone = record(server.client_disconnected)

    def show() -> Any:
        with IpcClient(server.socket_path) as client:
            return client.call(APP_SHOW)

    in_thread(qtbot, show)
    qtbot.waitUntil(lambda: len(gone) == 1, timeout=WAIT_MS)
    (connection,) = handler.connections
    assert connected == gone == [connection.id]
    assert connection.is_closed
    connection.reply(1, {"late": True})
    connection.reply_error(1, ProtocolError(ErrorCode.BUSY, "late"))
    connection.notify(PROGRESS, {"request_id": 1})
    late: list[str] = []
    connection.closed.connect(lambda: late.append("called at once"))
    assert late == ["called at once"]


def _present_params(decision_id: str) -> dict[str, str]:
    return {"decision_id": decision_id, "workspace": "/w", "session_id": "s-1"}


def parting_error(sock: socket.socket) -> dict[str, Any]:
    """The one message the app sends before it hangs up on `sock`."""
    sock.settimeout(3)
    decoder, bodies = FrameDecoder(), []
    while data := sock.recv(65536):
        bodies.extend(decoder.feed(data))
    (body,) = bodies
    return json.loads(body)  # type: ignore[no-any-return]


def test_a_newcomer_takes_the_slot_of_the_quietest_client(
    qtbot: Any, runtime_root: Path, journal: Path, handler: FakeHandler
) -> None:
    instance = IpcServer(journal, handler, max_clients=1)
    assert instance.listen()
    quiet = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        connected, rejected = record(instance.client_connected), record(instance.client_rejected)
        quiet.connect(str(instance.socket_path))
        qtbot.waitUntil(lambda: len(connected) == 1, timeout=WAIT_MS)
        assert in_thread(qtbot, lambda: app_is_running(instance.socket_path))
        notice = in_thread(qtbot, lambda: parting_error(quiet))
        assert notice["id"] is None
        assert notice["error"]["code"] == ErrorCode.BUSY
        assert notice["error"]["data"] == {"limit": 1}
        assert rejected == []
    finally:
        quiet.close()
        instance.close()


def test_a_newcomer_is_refused_busy_when_every_client_is_busy(
    qtbot: Any, runtime_root: Path, journal: Path, handler: FakeHandler
) -> None:
    handler.delay_ms = 10_000
    instance = IpcServer(journal, handler, max_clients=1)
    assert instance.listen()
    busy = IpcClient(instance.socket_path)
    thread = threading.Thread(target=call_quietly, args=(busy, "d-1"), daemon=True)
    try:
        rejected = record(instance.client_rejected)
        thread.start()
        qtbot.waitUntil(lambda: DECISION_PRESENT in handler.calls, timeout=WAIT_MS)
        with pytest.raises(RemoteError) as info:
            in_thread(qtbot, lambda: app_is_running_strict(instance.socket_path))
        qtbot.waitUntil(lambda: rejected == ["1 clients are already connected and busy"])
        assert info.value.code == ErrorCode.BUSY
        assert info.value.request_id is None
    finally:
        busy.close()
        instance.close()
        thread.join(5)


def call_quietly(client: IpcClient, decision_id: str) -> None:
    """A waiting `decision.present` whose end (reply, hang-up) the test does not look at."""
    with contextlib.suppress(Exception):
        client.call(DECISION_PRESENT, _present_params(decision_id), timeout=10)


def app_is_running_strict(path: Path) -> Any:
    """`hello`, raising the app's refusal instead of answering False."""
    with IpcClient(path) as client:
        return client.hello()


def test_clients_waiting_for_the_person_hold_no_slot(
    qtbot: Any, runtime_root: Path, journal: Path, handler: FakeHandler
) -> None:
    handler.delay_ms = 10_000
    handler.mark_waiting = True
    instance = IpcServer(journal, handler, max_clients=1)
    assert instance.listen()
    waiting = [IpcClient(instance.socket_path) for _ in range(3)]
    threads = [
        threading.Thread(target=call_quietly, args=(client, f"d-{i}"), daemon=True)
        for i, client in enumerate(waiting)
    ]
    try:
        for count, thread in enumerate(threads, start=1):
            thread.start()
            qtbot.waitUntil(lambda n=count: handler.calls.count(DECISION_PRESENT) == n)
        assert in_thread(qtbot, lambda: app_is_running_strict(instance.socket_path)).protocol == 1
        assert len(instance.connections) == 3
        assert handler.dropped == []
    finally:
        for client in waiting:
            client.close()
        instance.close()
        for thread in threads:
            thread.join(5)


@pytest.mark.parametrize(
    "credentials",
    [PeerCredentials(uid=os.getuid() + 1, pid=4242), None],
    ids=["other-uid", "unknown-uid"],
)
def test_peer_of_another_user_is_refused(
    qtbot: Any,
    runtime_root: Path,
    journal: Path,
    handler: FakeHandler,
    credentials: PeerCredentials | None,
) -> None:
    instance = IpcServer(journal, handler, read_credentials=lambda fd: credentials)
    assert instance.listen()
    try:
        rejected = record(instance.client_rejected)
        with pytest.raises(RemoteError) as info:
            in_thread(qtbot, lambda: IpcClient(instance.socket_path).hello())
        assert info.value.code == ErrorCode.FORBIDDEN_PEER
        qtbot.waitUntil(lambda: len(rejected) == 1, timeout=WAIT_MS)
        assert "forbidden peer" in rejected[0]
        assert handler.calls == []
        assert not instance.connections
    finally:
        instance.close()


def test_accepted_peer_carries_kernel_credentials(
    qtbot: Any, server: IpcServer, handler: FakeHandler
) -> None:
    def show() -> Any:
        with IpcClient(server.socket_path) as client:
            return client.call(APP_SHOW)

    in_thread(qtbot, show)
    (connection,) = handler.connections
    assert connection.peer_uid == os.getuid()
    assert connection.peer_pid == os.getpid()


def test_peer_credentials_of_a_socketpair() -> None:
    left, right = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    with left, right:
        assert peer_uid(left.fileno()) == os.getuid()
        credentials = peer_credentials(left.fileno())
        assert credentials is not None
        assert credentials.pid == os.getpid()
        left.send(b"x")
        assert right.recv(1) == b"x"
    assert peer_uid(-1) is None


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root")
def test_peer_credentials_name_another_user(tmp_path: Path) -> None:
    """A real process of uid 65534 connects; the kernel, not the client, names its uid."""
    python = shutil.which("python3", path="/usr/bin:/bin")
    if python is None:
        pytest.skip("no system python3 another user can run")
    public = Path(tempfile.mkdtemp(prefix="dj-peer-"))
    try:
        public.chmod(0o755)
        path = public / "s.sock"
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listener:
            listener.bind(str(path))
            path.chmod(0o777)
            listener.listen(1)
            listener.settimeout(10)
            code = (
                "import socket,sys;s=socket.socket(socket.AF_UNIX);"
                f"s.connect({str(path)!r});s.recv(1)"
            )
            child = subprocess.Popen([python, "-c", code], user=65534, cwd="/")
            try:
                conn, _ = listener.accept()
                with conn:
                    credentials = peer_credentials(conn.fileno())
                    conn.send(b"x")
            finally:
                child.wait(timeout=10)
        assert credentials == PeerCredentials(uid=65534, pid=child.pid)
    finally:
        shutil.rmtree(public, ignore_errors=True)


def test_two_journals_get_two_servers(
    qtbot: Any, runtime_root: Path, tmp_path: Path, handler: FakeHandler
) -> None:
    first_dir, second_dir = tmp_path / "a", tmp_path / "b"
    first_dir.mkdir()
    second_dir.mkdir()
    first, second = IpcServer(first_dir, handler), IpcServer(second_dir, handler)
    try:
        assert first.listen()
        assert second.listen()
        assert first.socket_path != second.socket_path

        def journals() -> tuple[str, str]:
            with IpcClient(first.socket_path) as a, IpcClient(second.socket_path) as b:
                return a.hello().journal, b.hello().journal

        assert in_thread(qtbot, journals) == (
            canonical_journal_path(first_dir),
            canonical_journal_path(second_dir),
        )
    finally:
        first.close()
        second.close()


def test_second_instance_yields_then_takes_over_a_stale_socket(
    qtbot: Any, runtime_root: Path, journal: Path, handler: FakeHandler
) -> None:
    first = IpcServer(journal, handler)
    second = IpcServer(journal, handler)
    try:
        assert first.listen()
        assert not second.listen()
        assert in_thread(qtbot, lambda: app_is_running(first.socket_path))

        first.close()
        stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        stale.bind(str(first.socket_path))
        stale.close()
        assert first.socket_path.exists()
        assert not in_thread(qtbot, lambda: app_is_running(first.socket_path))

        assert second.listen()
        assert in_thread(qtbot, lambda: app_is_running(second.socket_path))
    finally:
        first.close()
        second.close()


def test_runtime_dir_and_socket_are_private(server: IpcServer, runtime_root: Path) -> None:
    directory = runtime_root / APP_DIR_NAME
    assert server.socket_path.parent == directory
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700
    assert stat.S_ISSOCK(server.socket_path.stat().st_mode)
    assert stat.S_IMODE(server.socket_path.stat().st_mode) & 0o077 == 0
    assert len(os.fsencode(str(server.socket_path))) < 104


def test_symlinked_runtime_dir_is_refused(
    runtime_root: Path, journal: Path, handler: FakeHandler
) -> None:
    elsewhere = runtime_root / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    (runtime_root / APP_DIR_NAME).symlink_to(elsewhere)
    instance = IpcServer(journal, handler)
    with pytest.raises(RuntimeDirUnsafe, match="symbolic link"):
        instance.listen()
    assert not instance.is_listening
    assert list(elsewhere.iterdir()) == []
    with pytest.raises(RuntimeDirUnsafe):
        IpcClient(socket_path(journal)).connect()


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root")
def test_runtime_dir_of_another_user_is_refused(
    runtime_root: Path, journal: Path, handler: FakeHandler
) -> None:
    directory = runtime_root / APP_DIR_NAME
    directory.mkdir(mode=0o700)
    os.chown(directory, 65534, 65534)
    with pytest.raises(RuntimeDirUnsafe, match="owned by uid 65534"):
        IpcServer(journal, handler).listen()


def test_client_without_app_reports_not_running(runtime_root: Path, journal: Path) -> None:
    path = socket_path(journal)
    with pytest.raises(AppNotRunning):
        IpcClient(path).connect()
    assert not app_is_running(path)
    path.parent.mkdir(mode=0o700)
    with pytest.raises(AppNotRunning):
        IpcClient(path).call(APP_SHOW)
