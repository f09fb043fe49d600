"""`decision-journal mcp` stops at once and cleanly on SIGINT and SIGTERM, even mid-question.

Clients stop their servers with SIGINT (Claude Code logs "SIGINT failed, sending SIGTERM" when
one ignores it) or SIGTERM. A server waiting for the human must not hold them up, and the
decision it was asking must stay resumable: the app keeps it, so the next server's resume by
id reaches the app again. A scripted app stands in for the real one here, so the wait can be
made to last; `test_mcp_window` covers the real window's side of a cancelled call.
"""

from __future__ import annotations

import contextlib
import json
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from core.capture.proposal import parse_proposal
from tests.factories import proposal_dict
from tests.integration.agent_support import (
    ROOT,
    FakeApp,
    agent_env,
    cli_command,
    method_not_found,
    short_runtime_dir,
)

pytestmark = pytest.mark.timeout(60)
PROMPT_EXIT_SECONDS = 0.5


@pytest.fixture
def runtime(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    with short_runtime_dir() as path:
        monkeypatch.setenv("XDG_RUNTIME_DIR", str(path))
        yield path


class PatientApp(FakeApp):
    """The scripted app, untroubled when a waiter it answers late has gone (as the real one)."""

    def _talk(self, conn: socket.socket) -> None:
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            super()._talk(conn)


class Server:
    """One `decision-journal mcp` process spoken to in raw JSON-RPC lines over stdio."""

    def __init__(self, journal: Path, runtime: Path, workspace: Path) -> None:
        env = agent_env(runtime, CLAUDE_PROJECT_DIR=str(workspace))
        self.process = subprocess.Popen(
            cli_command(journal, "mcp"),
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self._next_id = 0

    def send(self, method: str, params: dict[str, Any] | None = None, *, note: bool = False) -> int:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        if not note:
            self._next_id += 1
            message["id"] = self._next_id
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message) + "\n")
        self.process.stdin.flush()
        return self._next_id

    def reply(self, request_id: int) -> dict[str, Any]:
        assert self.process.stdout is not None
        while line := self.process.stdout.readline():
            message = json.loads(line)
            if message.get("id") == request_id:
                return dict(message)
        raise AssertionError("the server closed stdout before replying")

    def initialize(self) -> None:
        request = self.send(
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "signal-test", "version": "1"},
            },
        )
        assert "result" in self.reply(request)
        self.send("notifications/initialized", note=True)

    def stop(self, signum: int) -> tuple[int, float, str]:
        """Sends `signum`; returns the exit code, the seconds it took and stderr."""
        started = time.monotonic()
        self.process.send_signal(signum)
        try:
            code = self.process.wait(timeout=10)
        finally:
            self.process.kill()
        seconds = time.monotonic() - started
        _, stderr = self.process.communicate()
        return code, seconds, stderr


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_an_idle_server_exits_0_at_once(tmp_path: Path, runtime: Path, signum: int) -> None:
    server = Server(tmp_path / "journal", runtime, tmp_path)
    server.initialize()
    request = server.send("tools/list", {})
    assert len(server.reply(request)["result"]["tools"]) == 5
    code, seconds, stderr = server.stop(signum)
    assert code == 0, stderr
    assert seconds < PROMPT_EXIT_SECONDS
    assert "Traceback" not in stderr, stderr


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_server_waiting_for_the_human_exits_0_and_the_decision_stays_resumable(
    tmp_path: Path, runtime: Path, signum: int
) -> None:
    journal = tmp_path / "journal"
    asked = threading.Event()
    never = threading.Event()
    resumed: list[str] = []

    def app(method: str, params: dict[str, Any]) -> Any:
        if method != "decision.present":
            return method_not_found(method, params)
        if "decision_id" in params:
            resumed.append(params["decision_id"])
            return {"status": "pending", "decision_id": params["decision_id"], "message": "w"}
        asked.set()
        never.wait(30)
        return method_not_found(method, params)

    fake = PatientApp(journal, app)
    try:
        server = Server(journal, runtime, tmp_path)
        server.initialize()
        server.send(
            "tools/call", {"name": "present_implementation_decision", "arguments": proposal_dict()}
        )
        assert asked.wait(20), "the server never asked the app"
        code, seconds, stderr = server.stop(signum)
        (_, params), *_ = [r for r in fake.requests if r[0] == "decision.present"]
        decision_id = _derived_id(tmp_path, params)
        again = Server(journal, runtime, tmp_path)
        again.initialize()
        request = again.send(
            "tools/call",
            {"name": "present_implementation_decision", "arguments": {"decision_id": decision_id}},
        )
        reply = again.reply(request)
        again.stop(signal.SIGTERM)
    finally:
        never.set()
        fake.close()
    assert code == 0, stderr
    assert seconds < PROMPT_EXIT_SECONDS
    assert "Traceback" not in stderr, stderr
    assert resumed == [decision_id]
    assert reply["result"]["structuredContent"]["status"] == "pending"


def _derived_id(workspace: Path, params: dict[str, Any]) -> str:
    """The id the server derived for the proposal it sent to the app."""
    proposal = parse_proposal(
        params["proposal"], workspace=str(workspace), session_id=params["session_id"]
    )
    return proposal.decision_id
