"""The wire protocol, the socket location and the Qt-free client, without Qt.

The client is exercised against a tiny server made of plain sockets, so the failures a real app
rarely produces on demand (silence, garbage, a hang-up mid-call) are tested here.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import stat
import struct
import sys
import tempfile
import threading
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from core.errors import (
    AppNotRunning,
    ConnectionLost,
    ErrorCode,
    FrameTooLarge,
    InvalidDecision,
    IpcTimeout,
    JournalDamaged,
    NotFound,
    PendingConflict,
    ProtocolError,
    RemoteError,
    RevisionConflict,
    RuntimeDirUnsafe,
    UnexpectedReply,
    UnsafePath,
)
from core.ipc.client import IpcClient
from core.ipc.framing import MAX_DEPTH, MAX_FRAME, FrameDecoder, decode_json, encode_frame
from core.ipc.methods import (
    AppShowParams,
    DecisionPendingParams,
    DecisionPresentParams,
    DecisionPresentResult,
    HelloParams,
)
from core.ipc.protocol import (
    PROTOCOL_VERSION,
    Notification,
    Request,
    Response,
    error_from_exception,
    error_message,
    parse_params,
    parse_request,
    parse_server_message,
    request_message,
)
from core.ipc.runtime_paths import (
    APP_DIR_NAME,
    SUN_PATH_MAX,
    check_runtime_dir,
    ensure_runtime_dir,
    journal_key,
    lock_path,
    runtime_dir,
    socket_path,
)

POSIX = pytest.mark.skipif(sys.platform == "win32", reason="POSIX runtime directory")
ROOT = pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root")


def hello_request(**extra: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 1, "method": "hello", "params": {}, **extra}


def body_of(obj: Any) -> bytes:
    return json.dumps(obj).encode()


# --- framing -------------------------------------------------------------------------------


def test_frame_is_big_endian_length_then_compact_utf8_json() -> None:
    frame = encode_frame({"a": "é"})
    assert frame == struct.pack(">I", 10) + '{"a":"é"}'.encode()


def test_frames_round_trip_in_one_chunk() -> None:
    messages = [hello_request(id=i) for i in range(5)]
    stream = b"".join(encode_frame(m) for m in messages)
    bodies = list(FrameDecoder().feed(stream))
    assert [json.loads(b) for b in bodies] == messages


def test_frames_round_trip_byte_by_byte() -> None:
    messages = [hello_request(id=1), {"x": "y" * 300}, {}]
    stream = b"".join(encode_frame(m) for m in messages)
    decoder = FrameDecoder()
    bodies = [body for i in range(len(stream)) for body in decoder.feed(stream[i : i + 1])]
    assert [json.loads(b) for b in bodies] == messages
    assert decoder.buffered == 0


def test_partial_frame_stays_buffered() -> None:
    frame = encode_frame(hello_request())
    decoder = FrameDecoder()
    assert list(decoder.feed(frame[:-1])) == []
    assert decoder.buffered == len(frame) - 1
    assert list(decoder.feed(frame[-1:])) == [frame[4:]]


def test_bodies_left_unread_come_out_next_time() -> None:
    decoder = FrameDecoder()
    first = next(decoder.feed(encode_frame({"n": 1}) + encode_frame({"n": 2})))
    assert json.loads(first) == {"n": 1}
    assert [json.loads(b) for b in decoder.feed(b"")] == [{"n": 2}]


def test_oversized_header_is_refused_before_any_body_arrives() -> None:
    decoder = FrameDecoder()
    tracemalloc.start()
    try:
        with pytest.raises(FrameTooLarge) as info:
            list(decoder.feed(b"\xff\xff\xff\xff"))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 64 * 1024
    assert info.value.code == ErrorCode.FRAME_TOO_LARGE
    assert info.value.size == 2**32 - 1
    assert "the limit is 4,194,304 bytes" in info.value.message
    assert decoder.buffered == 0
    with pytest.raises(FrameTooLarge):
        list(decoder.feed(b"{}"))


def test_oversized_header_split_across_feeds() -> None:
    decoder = FrameDecoder()
    header = struct.pack(">I", MAX_FRAME + 1)
    assert list(decoder.feed(header[:3])) == []
    with pytest.raises(FrameTooLarge):
        list(decoder.feed(header[3:]))


def test_frame_of_exactly_the_cap_is_accepted() -> None:
    decoder = FrameDecoder()
    assert list(decoder.feed(struct.pack(">I", MAX_FRAME))) == []
    body = b" " * MAX_FRAME
    assert list(decoder.feed(body)) == [body]


def test_encode_refuses_what_the_peer_would_refuse() -> None:
    with pytest.raises(ValueError):
        encode_frame({"x": float("nan")})
    with pytest.raises(ValueError):
        encode_frame({"x": "\ud800"})
    with pytest.raises(FrameTooLarge):
        encode_frame({"x": "a" * MAX_FRAME})


# --- strict JSON and envelopes ---------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        (b'{"a": NaN}', "NaN"),
        (b'{"a": -Infinity}', "-Infinity"),
        (b'{"a": 1e999}', "out of range"),
        (b'{"a": 1} {"b": 2}', "trailing data"),
        (b'{"a": 1}x', "trailing data"),
        (b'{"a": 1, "a": 2}', 'duplicate key "a"'),
        (b'{"a": "\\ud800"}', "lone surrogate"),
        (b"\xef\xbb\xbf{}", "byte order mark"),
        (b'{"a": "\xff"}', "not valid UTF-8"),
        (b"", "Expecting value"),
        (b"[" * 10_000, "nests deeper"),
        (b"[" * 100_000, "more than 16384 values"),
        (b"9" * 5000, "integer has 5000 digits"),
    ],
)
def test_strict_json_refuses(body: bytes, fragment: str) -> None:
    with pytest.raises(ProtocolError) as info:
        decode_json(body)
    assert info.value.code == ErrorCode.PARSE_ERROR
    assert fragment in info.value.message


def test_nesting_limit_is_exact() -> None:
    assert decode_json(b"[" * MAX_DEPTH + b"]" * MAX_DEPTH) is not None
    with pytest.raises(ProtocolError, match="nests deeper"):
        decode_json(b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1))


def test_duplicate_key_names_the_key_as_field() -> None:
    with pytest.raises(ProtocolError) as info:
        parse_request(b'{"jsonrpc":"2.0","id":1,"method":"hello","method":"x"}')
    assert info.value.field == "method"


def test_valid_request_parses() -> None:
    request = parse_request(body_of(hello_request(params={"protocol": 1})))
    assert request == Request(jsonrpc="2.0", id=1, method="hello", params={"protocol": 1})
    assert parse_request(b'{"jsonrpc":"2.0","id":"a","method":"m"}').params == {}


@pytest.mark.parametrize(
    ("envelope", "field", "fragment"),
    [
        (hello_request(extra=1), "extra", "is not a known field"),
        (hello_request(jsonrpc="1.0"), "jsonrpc", "must be '2.0'"),
        (hello_request(jsonrpc=2.0), "jsonrpc", "must be '2.0'"),
        (hello_request(id=True), "id", "integer or a string"),
        (hello_request(id=1.5), "id", "integer or a string"),
        (hello_request(id=None), "id", "integer or a string"),
        (hello_request(id=2**53), "id", "must lie within"),
        (hello_request(id=""), "id", "1 to 128"),
        (hello_request(id="x" * 129), "id", "1 to 128"),
        (hello_request(method=""), "method", "must not be empty"),
        (hello_request(method="m" * 129), "method", "is 129 characters; the limit is 128"),
        (hello_request(method=7), "method", "must be a string"),
        (hello_request(params=[]), "params", "must be an object"),
        (hello_request(params=None), "params", "must be an object"),
        (hello_request(params="x"), "params", "must be an object"),
        ({"jsonrpc": "2.0", "method": "hello"}, "id", "is required"),
        ({"jsonrpc": "2.0", "id": 1}, "method", "is required"),
    ],
)
def test_invalid_envelope_names_the_field(
    envelope: dict[str, Any], field: str, fragment: str
) -> None:
    with pytest.raises(ProtocolError) as info:
        parse_request(body_of(envelope))
    assert info.value.code == ErrorCode.INVALID_REQUEST
    assert info.value.field == field
    assert fragment in info.value.message
    assert field in info.value.message


@pytest.mark.parametrize("body", [b"[]", b"[{}]", b'"hello"', b"1", b"null"])
def test_non_object_request_is_invalid(body: bytes) -> None:
    with pytest.raises(ProtocolError) as info:
        parse_request(body)
    assert info.value.code == ErrorCode.INVALID_REQUEST


def test_invalid_request_keeps_a_readable_id() -> None:
    with pytest.raises(ProtocolError) as info:
        parse_request(body_of(hello_request(id="abc", extra=1)))
    assert info.value.request_id == "abc"
    with pytest.raises(ProtocolError) as info:
        parse_request(body_of(hello_request(id=True, extra=1)))
    assert info.value.request_id is None


def test_error_object_carries_code_message_and_field() -> None:
    error = ProtocolError(ErrorCode.INVALID_PARAMS, "bad", "view", data={"limit": 3})
    assert error_message(7, error) == {
        "jsonrpc": "2.0",
        "id": 7,
        "error": {"code": -32602, "message": "bad", "data": {"limit": 3, "field": "view"}},
    }
    assert "data" not in ProtocolError(ErrorCode.BUSY, "later").to_error_object()


def test_server_messages_parse() -> None:
    result = parse_server_message(b'{"jsonrpc":"2.0","id":3,"result":{"shown":true}}')
    assert isinstance(result, Response)
    assert result.result == {"shown": True}
    error = parse_server_message(
        b'{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}'
    )
    assert isinstance(error, Response)
    assert error.error is not None
    assert error.error.code == ErrorCode.PARSE_ERROR
    note = parse_server_message(b'{"jsonrpc":"2.0","method":"progress","params":{}}')
    assert isinstance(note, Notification)


@pytest.mark.parametrize(
    "body",
    [
        b'{"jsonrpc":"2.0","id":1}',
        b'{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}',
        b'{"jsonrpc":"2.0","id":1,"result":{},"extra":1}',
        b'{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x","extra":1}}',
        b'{"jsonrpc":"2.0","id":1,"result":[]}',
        b'{"jsonrpc":"2.0","method":"progress","params":{},"extra":1}',
    ],
)
def test_invalid_server_messages_are_refused(body: bytes) -> None:
    with pytest.raises(ProtocolError):
        parse_server_message(body)


def test_error_codes_are_stable() -> None:
    assert {code.name: int(code) for code in ErrorCode} == {
        "PARSE_ERROR": -32700,
        "INVALID_REQUEST": -32600,
        "METHOD_NOT_FOUND": -32601,
        "INVALID_PARAMS": -32602,
        "INTERNAL_ERROR": -32603,
        "INVALID_PROPOSAL": -32010,
        "PENDING_CONFLICT": -32011,
        "REVISION_CONFLICT": -32012,
        "NOT_FOUND": -32013,
        "JOURNAL_DAMAGED": -32014,
        "FRAME_TOO_LARGE": -32015,
        "FORBIDDEN_PEER": -32016,
        "BUSY": -32017,
        "UNSUPPORTED_PROTOCOL": -32018,
        "TIMED_OUT": -32019,
    }


# --- method params and results -----------------------------------------------------------


def request_with(params: dict[str, Any]) -> Request:
    return Request(jsonrpc="2.0", id=5, method="m", params=params)


PRESENT = {"workspace": "/w", "session_id": "s-1"}


@pytest.mark.parametrize(
    ("model", "params", "field"),
    [
        (DecisionPresentParams, PRESENT, "proposal"),
        (DecisionPresentParams, {**PRESENT, "decision_id": "d", "proposal": {}}, "proposal"),
        (DecisionPresentParams, {**PRESENT, "decision_id": ""}, "decision_id"),
        (DecisionPresentParams, {"decision_id": "d", "session_id": "s"}, "workspace"),
        (DecisionPresentParams, {**PRESENT, "decision_id": "d", "agent": 3}, "agent"),
        (DecisionPresentParams, {**PRESENT, "proposal": [], "agent": "x"}, "proposal"),
        (DecisionPendingParams, {"workspace": 1}, "workspace"),
        (DecisionPendingParams, {"project": "x"}, "project"),
        (AppShowParams, {"view": "settings"}, "view"),
        (AppShowParams, {"view": "decision"}, "decision_id"),
        (HelloParams, {"protocol": "1"}, "protocol"),
    ],
)
def test_invalid_params_name_the_field(model: Any, params: dict[str, Any], field: str) -> None:
    with pytest.raises(ProtocolError) as info:
        parse_params(model, request_with(params))
    assert info.value.code == ErrorCode.INVALID_PARAMS
    assert info.value.field == field
    assert info.value.request_id == 5


def test_valid_params_parse() -> None:
    present = parse_params(
        DecisionPresentParams, request_with({**PRESENT, "proposal": {"problem": "p"}})
    )
    assert present.proposal == {"problem": "p"}
    assert present.decision_id is None
    resume = parse_params(DecisionPresentParams, request_with({**PRESENT, "decision_id": "d"}))
    assert resume.decision_id == "d"
    assert parse_params(DecisionPendingParams, request_with({})).workspace is None
    show = parse_params(AppShowParams, request_with({"view": "decision", "decision_id": "d"}))
    assert show.view == "decision"
    assert parse_params(AppShowParams, request_with({})).view == "journal"


def test_results_tolerate_fields_a_newer_app_adds() -> None:
    result = DecisionPresentResult.model_validate(
        {"status": "pending", "decision_id": "d", "stage": "rationale", "new_field": 1}
    )
    assert result.stage == "rationale"
    assert result.rejected_reasons == []


# --- core errors on the wire ---------------------------------------------------------------


def test_core_errors_map_to_stable_codes() -> None:
    invalid = error_from_exception(InvalidDecision("too long", field="problem", limit=4096))
    assert (invalid.code, invalid.field, invalid.data) == (
        ErrorCode.INVALID_PROPOSAL,
        "problem",
        {"limit": 4096},
    )
    pending = error_from_exception(PendingConflict("d-1 is pending", pending_id="d-1"))
    assert pending.code == ErrorCode.PENDING_CONFLICT
    assert pending.data == {"runbook": "docs/runbook.md#decision-pending", "pending_id": "d-1"}
    revision = error_from_exception(RevisionConflict("stale", current_revision=4))
    assert revision.code == ErrorCode.REVISION_CONFLICT
    assert revision.data["current_revision"] == 4
    assert error_from_exception(NotFound("no d-9")).code == ErrorCode.NOT_FOUND
    damaged = error_from_exception(UnsafePath("symlink"))
    assert damaged.code == ErrorCode.JOURNAL_DAMAGED
    assert damaged.data["runbook"].endswith("#symlink-or-special-file")
    assert error_from_exception(JournalDamaged("bad")).code == ErrorCode.JOURNAL_DAMAGED
    own = ProtocolError(ErrorCode.BUSY, "later")
    assert error_from_exception(own) is own


def test_unexpected_exceptions_do_not_leak_their_text() -> None:
    error = error_from_exception(KeyError("/home/me/secret"))
    assert error.code == ErrorCode.INTERNAL_ERROR
    assert "secret" not in error.message


# --- socket location -------------------------------------------------------------------


@pytest.fixture
def xdg(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    root = Path(tempfile.mkdtemp(prefix="dj-"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(root))
    yield root
    shutil.rmtree(root, ignore_errors=True)


@POSIX
def test_socket_path_lives_in_xdg_runtime_dir(xdg: Path, tmp_path: Path) -> None:
    path = socket_path(tmp_path)
    assert path.parent == xdg / APP_DIR_NAME
    assert path.name == f"j-{journal_key(tmp_path)}.sock"
    assert len(journal_key(tmp_path)) == 16
    assert lock_path(tmp_path) == path.with_suffix(".lock")
    assert len(os.fsencode(str(path))) < SUN_PATH_MAX


@POSIX
def test_socket_name_follows_the_canonical_journal_path(xdg: Path, tmp_path: Path) -> None:
    journal = tmp_path / "journal"
    journal.mkdir()
    link = tmp_path / "link"
    link.symlink_to(journal)
    assert socket_path(link) == socket_path(journal)
    assert socket_path(journal / ".." / "journal") == socket_path(journal)
    assert socket_path(tmp_path / "other") != socket_path(journal)


@POSIX
def test_too_long_runtime_dir_falls_back(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    deep = tmp_path / ("d" * 100)
    deep.mkdir()
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(deep))
    path = socket_path(tmp_path)
    assert not str(path).startswith(str(deep))
    assert len(os.fsencode(str(path))) < SUN_PATH_MAX


@POSIX
def test_without_xdg_a_per_user_dir_is_chosen(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    directory = runtime_dir()
    assert str(os.getuid()) in str(directory)
    assert directory.name.startswith(APP_DIR_NAME)


@POSIX
def test_ensure_runtime_dir_creates_0700_and_tightens(xdg: Path) -> None:
    directory = ensure_runtime_dir()
    assert directory == xdg / APP_DIR_NAME
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700
    directory.chmod(0o755)
    with pytest.raises(RuntimeDirUnsafe, match="0755"):
        check_runtime_dir(directory)
    ensure_runtime_dir()
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700
    check_runtime_dir(directory)


@POSIX
def test_symlinked_runtime_dir_is_refused(xdg: Path) -> None:
    target = xdg / "target"
    target.mkdir(mode=0o700)
    (xdg / APP_DIR_NAME).symlink_to(target)
    with pytest.raises(RuntimeDirUnsafe, match="symbolic link"):
        ensure_runtime_dir()
    with pytest.raises(RuntimeDirUnsafe, match="symbolic link"):
        check_runtime_dir(xdg / APP_DIR_NAME)


@POSIX
def test_runtime_path_that_is_a_file_is_refused(xdg: Path) -> None:
    (xdg / APP_DIR_NAME).write_text("")
    with pytest.raises(RuntimeDirUnsafe, match="not a directory"):
        ensure_runtime_dir()


@POSIX
@ROOT
def test_runtime_dir_owned_by_another_user_is_refused(xdg: Path) -> None:
    directory = xdg / APP_DIR_NAME
    directory.mkdir(mode=0o700)
    os.chown(directory, 65534, 65534)
    with pytest.raises(RuntimeDirUnsafe, match="owned by uid 65534"):
        ensure_runtime_dir()


@POSIX
def test_missing_runtime_dir_is_reported_as_missing(xdg: Path) -> None:
    with pytest.raises(FileNotFoundError):
        check_runtime_dir(xdg / APP_DIR_NAME)


# --- the client against a scripted server --------------------------------------------------


Script = Callable[[socket.socket], None]


@pytest.fixture
def scripted(xdg: Path, tmp_path: Path) -> Iterator[Callable[[Script], Path]]:
    """Starts a one-connection server running `script`; joins it at teardown."""
    threads: list[threading.Thread] = []
    listeners: list[socket.socket] = []

    def start(script: Script) -> Path:
        path = socket_path(tmp_path)
        ensure_runtime_dir(path.parent)
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(str(path))
        listener.listen(1)
        listener.settimeout(5)
        listeners.append(listener)

        def serve() -> None:
            conn, _ = listener.accept()
            with conn:
                conn.settimeout(5)
                script(conn)

        thread = threading.Thread(target=serve, daemon=True)
        thread.start()
        threads.append(thread)
        return path

    yield start
    for thread in threads:
        thread.join(timeout=5)
    for listener in listeners:
        listener.close()


def read_request(conn: socket.socket) -> dict[str, Any]:
    decoder = FrameDecoder()
    while True:
        for body in decoder.feed(conn.recv(65536)):
            return json.loads(body)  # type: ignore[no-any-return]


def test_client_delivers_notifications_before_the_result(
    scripted: Callable[[Script], Path],
) -> None:
    def script(conn: socket.socket) -> None:
        request = read_request(conn)
        note = {"jsonrpc": "2.0", "method": "progress", "params": {"request_id": request["id"]}}
        reply = {"jsonrpc": "2.0", "id": request["id"], "result": {"ok": True}}
        conn.sendall(encode_frame(note) + encode_frame(note) + encode_frame(reply))

    path = scripted(script)
    seen: list[tuple[str, dict[str, Any]]] = []
    with IpcClient(path, on_notification=lambda m, p: seen.append((m, p))) as client:
        assert client.call("decision.present", {"x": 1}) == {"ok": True}
    assert seen == [("progress", {"request_id": 1}), ("progress", {"request_id": 1})]


def test_client_raises_remote_error_and_stays_connected(
    scripted: Callable[[Script], Path],
) -> None:
    def script(conn: socket.socket) -> None:
        for _ in range(2):
            request = read_request(conn)
            error = ProtocolError(ErrorCode.NOT_FOUND, "no such decision", "decision_id")
            conn.sendall(encode_frame(error_message(request["id"], error)))

    path = scripted(script)
    with IpcClient(path) as client:
        for _ in range(2):
            with pytest.raises(RemoteError) as info:
                client.call("decision.present", {})
            assert info.value.code == ErrorCode.NOT_FOUND
            assert info.value.field == "decision_id"
            assert client.connected


def test_client_times_out_and_closes(scripted: Callable[[Script], Path]) -> None:
    done = threading.Event()

    def script(conn: socket.socket) -> None:
        read_request(conn)
        assert conn.recv(1) == b""  # the client hung up after its timeout
        done.set()

    path = scripted(script)
    client = IpcClient(path, timeout=0.2)
    with pytest.raises(IpcTimeout):
        client.call("decision.present")
    assert not client.connected
    assert done.wait(5)


@pytest.mark.parametrize(
    ("reply", "error"),
    [
        (b"", ConnectionLost),
        (encode_frame({"jsonrpc": "2.0", "id": 99, "result": {}}), UnexpectedReply),
        (struct.pack(">I", 3) + b"{x}", UnexpectedReply),
        (b"\xff\xff\xff\xff", UnexpectedReply),
    ],
    ids=["hang-up", "wrong-id", "bad-json", "oversized"],
)
def test_client_fails_cleanly_on_a_broken_app(
    scripted: Callable[[Script], Path], reply: bytes, error: type[Exception]
) -> None:
    def script(conn: socket.socket) -> None:
        read_request(conn)
        conn.sendall(reply)

    path = scripted(script)
    client = IpcClient(path)
    with pytest.raises(error):
        client.call("app.show")
    assert not client.connected


def test_client_reports_the_apps_parting_error(scripted: Callable[[Script], Path]) -> None:
    """A refusal written before the client speaks still reaches the caller as RemoteError."""

    def script(conn: socket.socket) -> None:
        error = ProtocolError(ErrorCode.FORBIDDEN_PEER, "not this user")
        conn.sendall(encode_frame(error_message(None, error)))

    path = scripted(script)
    client = IpcClient(path)
    with pytest.raises(RemoteError) as info:
        client.call("hello", {"protocol": PROTOCOL_VERSION})
    assert info.value.code == ErrorCode.FORBIDDEN_PEER
    assert info.value.request_id is None
    assert not client.connected


def test_hello_checks_the_protocol_version(scripted: Callable[[Script], Path]) -> None:
    def script(conn: socket.socket) -> None:
        request = read_request(conn)
        result = {"protocol": 2, "app_version": "9", "journal": "/j"}
        conn.sendall(encode_frame({"jsonrpc": "2.0", "id": request["id"], "result": result}))

    path = scripted(script)
    with IpcClient(path) as client, pytest.raises(UnexpectedReply, match="protocol 2"):
        client.hello()


def test_client_sends_a_strict_request(scripted: Callable[[Script], Path]) -> None:
    received: list[dict[str, Any]] = []

    def script(conn: socket.socket) -> None:
        request = read_request(conn)
        received.append(request)
        conn.sendall(encode_frame({"jsonrpc": "2.0", "id": request["id"], "result": {}}))

    path = scripted(script)
    with IpcClient(path) as client:
        client.call("app.show", {"view": "journal"})
    assert received == [request_message(1, "app.show", {"view": "journal"})]
    parse_request(body_of(received[0]))


@POSIX
def test_client_without_socket_reports_app_not_running(xdg: Path, tmp_path: Path) -> None:
    path = socket_path(tmp_path)
    with pytest.raises(AppNotRunning):
        IpcClient(path).connect()
    ensure_runtime_dir(path.parent)
    with pytest.raises(AppNotRunning):
        IpcClient(path).connect()
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(path))
    stale.close()
    with pytest.raises(AppNotRunning):
        IpcClient(path).connect()
