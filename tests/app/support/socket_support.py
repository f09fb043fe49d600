"""A socket server with a tiny handler and short deadlines, and raw clients to abuse it.

Shared by the abuse and memory tests: each hostile case ends by checking that a well-behaved
client is still served.
"""

from __future__ import annotations

import json
import os
import socket
import struct
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import pytest
from PySide6.QtCore import QObject

from app.ipc.server import Connection, IpcServer, Limits
from core.errors import ErrorCode, ProtocolError
from core.ipc.framing import FrameDecoder
from core.ipc.protocol import Request

T = TypeVar("T")
WAIT_MS = 10_000
BIG_RESULT = "x" * 100_000


class TinyHandler(QObject):
    """`echo` answers at once, `big` answers 100 KB, `hold` never answers, `huge_error`
    answers an error whose details exceed the frame cap."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0
        self.held: list[tuple[Connection, Request]] = []

    def handle(self, connection: Connection, request: Request) -> None:
        self.calls += 1
        if request.method == "echo":
            connection.reply(request.id, {"echo": request.params})
        elif request.method == "big":
            connection.reply(request.id, {"blob": BIG_RESULT})
        elif request.method == "huge_result":
            connection.reply(request.id, {"blob": "y" * (5 * 1024 * 1024)})
        elif request.method == "hold":
            self.held.append((connection, request))
        elif request.method == "huge_error":
            blob = ["z" * 1024] * (5 * 1024)
            error = ProtocolError(
                ErrorCode.INVALID_PROPOSAL, "too much", "options", data={"limit": 4, "blob": blob}
            )
            connection.reply_error(request.id, error)
        else:
            raise ProtocolError(ErrorCode.METHOD_NOT_FOUND, f"no {request.method}", "method")


@contextmanager
def serving(journal: Path, handler: QObject, **limits: Any) -> Iterator[IpcServer]:
    server = IpcServer(journal, handler, limits=Limits(**limits))  # type: ignore[arg-type]
    assert server.listen()
    try:
        yield server
    finally:
        server.close()


def private_journal(tmp_path: Path, runtime_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty journal directory, the socket under the test's own runtime directory."""
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime_dir))
    path = tmp_path / "journal"
    path.mkdir()
    return path


def in_thread(qtbot: Any, fn: Callable[[], T], timeout_ms: int = WAIT_MS) -> T:
    """Runs a blocking client in a thread while the Qt loop serves it here."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["result"] = fn()
        except BaseException as exc:
            box["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    qtbot.waitUntil(lambda: not thread.is_alive(), timeout=timeout_ms)
    thread.join()
    if "error" in box:
        raise box["error"]
    return box["result"]  # type: ignore[no-any-return]


def frame(obj: Any) -> bytes:
    body = json.dumps(obj).encode() if not isinstance(obj, bytes) else obj
    return struct.pack(">I", len(body)) + body


def request(method: str, request_id: int | str = 1, params: Any = None) -> bytes:
    envelope: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        envelope["params"] = params
    return frame(envelope)


def connect(path: Path, timeout: float = 5.0) -> socket.socket:
    """A raw connection; a full backlog (EAGAIN) is retried as the real client does."""
    deadline = time.monotonic() + timeout
    while True:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(timeout)
        try:
            sock.connect(str(path))
        except BlockingIOError:
            sock.close()
            if time.monotonic() > deadline:
                raise
            time.sleep(0.005)
            continue
        except BaseException:
            sock.close()
            raise
        return sock


def read_until_closed(sock: socket.socket, limit_s: float = 5.0) -> tuple[list[Any], float]:
    """Every message until the app hangs up, and how long that took."""
    started = time.monotonic()
    sock.settimeout(limit_s)
    decoder, messages = FrameDecoder(), []
    while True:
        try:
            data = sock.recv(1 << 20)
        except ConnectionResetError:
            break
        if not data:
            break
        messages.extend(json.loads(body) for body in decoder.feed(data))
    return messages, time.monotonic() - started


def read_messages(sock: socket.socket, count: int) -> list[Any]:
    decoder, messages = FrameDecoder(), []
    while len(messages) < count:
        data = sock.recv(1 << 20)
        if not data:
            break
        messages.extend(json.loads(body) for body in decoder.feed(data))
    return messages


def rss_bytes() -> int:
    """This process's resident set size (Linux)."""
    with open("/proc/self/statm", encoding="ascii") as statm:
        resident_pages = int(statm.read().split()[1])
    return resident_pages * os.sysconf("SC_PAGE_SIZE")
