"""`decision-journal mcp` ends quickly and with 0 when its client closes stdin, then signals.

Why: Claude Code stops a server by closing stdin, sending SIGINT, and SIGTERM shortly after
("SIGINT failed, sending SIGTERM" in its debug log, seen with Claude Code 2.1.197 when a
person new to the project used it). The interpreter's own shutdown after the end of stdin was slower
than that pause, and a SIGINT arriving during it killed the server by signal.
"""

from __future__ import annotations

import json
import signal
import statistics
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from tests.integration.agent_support import mcp_process, short_runtime_dir

pytestmark = pytest.mark.timeout(90)
CLAUDE_CODE_SIGINT_WAIT = 0.1
"""Seconds Claude Code waits after SIGINT before it sends SIGTERM."""
RUNS = 3
"""Servers stopped per test: one stop can be quick by chance, the median of three is not."""


def _started(journal: Path, runtime: Path, count: int = RUNS) -> list[subprocess.Popen[str]]:
    """`count` servers, started together so their interpreters' start-ups overlap, each having
    answered its client's first tool call."""
    processes = [mcp_process(journal, runtime) for _ in range(count)]
    for process in processes:
        _greeted(process)
    return processes


def _greeted(process: subprocess.Popen[str]) -> None:
    hello = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t"}}
    _send(process, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello})
    _send(process, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    call = {"name": "recent_decisions", "arguments": {}}
    _send(process, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call})
    assert process.stdout is not None
    replies = [json.loads(process.stdout.readline()) for _ in range(2)]
    assert [r.get("id") for r in replies] == [1, 2], replies


def _send(process: subprocess.Popen[str], message: dict[str, Any]) -> None:
    assert process.stdin is not None
    process.stdin.write(json.dumps(message) + "\n")
    process.stdin.flush()


def _stop(process: subprocess.Popen[str], *, then_signal: bool) -> tuple[int, float, str]:
    assert process.stdin is not None
    started = time.monotonic()
    process.stdin.close()
    if then_signal:
        process.send_signal(signal.SIGINT)
    try:
        code = process.wait(timeout=10)
    finally:
        process.kill()
    seconds = time.monotonic() - started
    assert process.stdout is not None and process.stderr is not None
    stderr = process.stderr.read()
    process.stdout.close()
    process.stderr.close()
    return code, seconds, stderr


def test_the_end_of_stdin_ends_the_server_before_claude_code_would_signal(
    tmp_path: Path,
) -> None:
    with short_runtime_dir() as runtime:
        runs = [_stop(p, then_signal=False) for p in _started(tmp_path / "journal", runtime)]
    assert all(code == 0 and not err for code, _, err in runs), runs
    assert statistics.median(s for _, s, _ in runs) < CLAUDE_CODE_SIGINT_WAIT, runs


def test_sigint_right_after_the_end_of_stdin_still_exits_0(tmp_path: Path) -> None:
    with short_runtime_dir() as runtime:
        runs = [_stop(p, then_signal=True) for p in _started(tmp_path / "journal", runtime)]
    assert all(code == 0 and "Traceback" not in err for code, _, err in runs), runs
