"""No per-connection memory growth: thousands of connections and fuzz cases leave RSS in place.

The app runs for weeks and any local process may connect as often as it likes, so a few
hundred bytes kept per connection would add up without bound. Both runs warm up first (the
allocator's arenas, Qt's event queue) and then must stay within 5 MB.
"""

from __future__ import annotations

import contextlib
import gc
import sys
from pathlib import Path
from typing import Any

import pytest

from app.ipc.server import IpcServer
from core.ipc.client import app_is_running
from tests.app.support.socket_fuzz import cases
from tests.app.support.socket_support import (
    TinyHandler,
    connect,
    in_thread,
    private_journal,
    read_messages,
    request,
    rss_bytes,
    serving,
)

pytestmark = [
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/statm"),
    pytest.mark.timeout(600),
]

MIB = 1024 * 1024
RSS_BUDGET = 5 * MIB


@pytest.fixture
def journal(tmp_path: Path, runtime_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return private_journal(tmp_path, runtime_dir, monkeypatch)


def _cycles(server: IpcServer, count: int) -> None:
    """Connects and closes `count` times; every tenth connection asks something first."""
    for index in range(count):
        with connect(server.socket_path) as sock:
            if index % 10 == 0:
                sock.sendall(request("echo", index, {"n": index}))
                read_messages(sock, 1)


def _fuzz(server: IpcServer, seed: int, count: int) -> None:
    for case in cases(seed, count):
        with connect(server.socket_path) as sock, contextlib.suppress(OSError):
            sock.sendall(case.payload)
            if case.complete:
                sock.settimeout(2.0)
                read_messages(sock, 1)


def _settled_rss(qtbot: Any, server: IpcServer) -> int:
    qtbot.waitUntil(lambda: not server.connections, timeout=20_000)
    qtbot.wait(200)
    gc.collect()
    return rss_bytes()


def test_30000_connections_leave_rss_where_it_was(qtbot: Any, journal: Path) -> None:
    with serving(journal, TinyHandler()) as server:
        in_thread(qtbot, lambda: _cycles(server, 3000), timeout_ms=120_000)
        before = _settled_rss(qtbot, server)
        in_thread(qtbot, lambda: _cycles(server, 30_000), timeout_ms=500_000)
        after = _settled_rss(qtbot, server)
        assert after - before < RSS_BUDGET, f"RSS {before / MIB:.1f} -> {after / MIB:.1f} MB"
        assert in_thread(qtbot, lambda: app_is_running(server.socket_path, timeout=5))


def test_16000_fuzz_cases_leave_rss_where_it_was(qtbot: Any, journal: Path) -> None:
    handler = TinyHandler()
    with serving(journal, handler) as server:
        in_thread(qtbot, lambda: _fuzz(server, 1, 2000), timeout_ms=120_000)
        before = _settled_rss(qtbot, server)
        in_thread(qtbot, lambda: _fuzz(server, 2, 16_000), timeout_ms=500_000)
        after = _settled_rss(qtbot, server)
        assert after - before < RSS_BUDGET, f"RSS {before / MIB:.1f} -> {after / MIB:.1f} MB"
        assert handler.calls > 0
        assert in_thread(qtbot, lambda: app_is_running(server.socket_path, timeout=5))
