"""The user stops Claude Code (Ctrl-C) while our window waits, then resumes in a new session.

Why: the scenario a person new to the project ran, stopping and resuming the client, that no other
real-client test runs. The interrupted client must stop our server cleanly (no "SIGINT failed,
sending SIGTERM" in its log), the decision must stay pending with its window still open, and a new
session (a new server process, so the gate holds by workspace, not session) must read it, be
refused an edit and another MCP server's tool, and collect the human's answer by id. The proposal
has three options with `recommended_option_id`, and the human picks one the agent did not
recommend.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from core.agents.tools import PRESENT_TOOL, RECENT_TOOL, client_tool_name
from tests.clients.support.agent_desktop import Person, desktop_for
from tests.clients.support.claude_session import (
    PROMPT_MARKER,
    SESSION_ENV,
    ClaudeHome,
    run_claude,
    scripted,
)
from tests.clients.support.fake_anthropic import Exchange, FakeAnthropic, Turn, call, say
from tests.clients.support.sessions import structured
from tests.integration.agent_support import Desktop

pytestmark = [pytest.mark.xvfb, pytest.mark.timeout(240)]

PRESENT = client_tool_name("claude-code", PRESENT_TOOL)
RECENT = client_tool_name("claude-code", RECENT_TOOL)
FOREIGN = "mcp__scratchpad__jot"
FOREIGN_SERVER = """
import json, sys, pathlib
for line in sys.stdin:
    m = json.loads(line)
    reply = {"jsonrpc": "2.0", "id": m.get("id")}
    if m.get("method") == "initialize":
        info = {"name": "scratchpad", "version": "1"}
        reply["result"] = {"protocolVersion": m["params"]["protocolVersion"],
                           "capabilities": {"tools": {}}, "serverInfo": info}
    elif m.get("method") == "tools/list":
        schema = {"type": "object", "properties": {"text": {"type": "string"}}}
        reply["result"] = {"tools": [{"name": "jot", "description": "Jot", "inputSchema": schema}]}
    elif m.get("method") == "tools/call":
        pathlib.Path("jotted.txt").write_text("x")
        reply["result"] = {"content": [{"type": "text", "text": "jotted"}]}
    elif "id" not in m:
        continue
    else:
        reply["result"] = {}
    print(json.dumps(reply), flush=True)
"""
"""A user's own MCP server with one tool that writes a file."""
PROPOSAL: dict[str, Any] = {
    "problem": "Where should request retries live?",
    "decision_kind": "retries",
    "options": [
        {"id": "client", "label": "In the client", "description": "Each caller retries."},
        {"id": "server", "label": "In the server", "description": "The server retries once."},
        {"id": "queue", "label": "In a queue", "description": "Failed calls go to a queue."},
    ],
    "recommended_option_id": "client",
    "detector_confidence": 0.9,
}
PROPOSAL["options"][0]["recommended"] = True
CHOOSE_SECOND = (
    ("key", "2"),
    ("key", "Return"),
    ("type", "the server knows the backoff budget"),
    ("key", "Tab"),
    ("type", "callers retry blindly"),
    ("key", "Tab"),
    ("type", "a queue is more to run"),
    ("key", "ctrl+Return"),
)
ALLOWED = f"{PRESENT},{RECENT},Write,{FOREIGN}"


def _interrupted_session(claude: Path, place: ClaudeHome, desk: Desktop) -> str:
    """Session one: present, and Ctrl-C once the window shows. Returns the client's debug log."""
    debug = place.home.parent / "interrupted.log"
    with FakeAnthropic(scripted([call(PRESENT, PROPOSAL), say("not reached")])) as fake:
        env = desk.env | {"ANTHROPIC_BASE_URL": fake.base_url, "ANTHROPIC_API_KEY": "t"}
        command = [
            str(claude), "-p", f"{PROMPT_MARKER} retries", "--output-format", "json",
            "--debug-file", str(debug), "--allowedTools", ALLOWED,
        ]  # fmt: skip
        client = subprocess.Popen(
            command,
            cwd=place.workspace,
            env=env | SESSION_ENV,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            desk.find_window(timeout=90)
            client.send_signal(signal.SIGINT)
            client.wait(timeout=30)
        finally:
            client.kill()
            client.wait()
    return debug.read_text(encoding="utf-8")


def _resume_script(workspace: Path, person: threading.Event) -> list[Any]:
    def resume(exchange: Exchange) -> Turn:
        person.set()  # the human answers once the agent has come back for the decision
        recent = structured(exchange.results[0])
        return call(PRESENT, {"decision_id": recent["pending"][0]["decision_id"]})

    return [
        call(RECENT, {}),
        call("Write", {"file_path": str(workspace / "retry.py"), "content": "RETRIES = 3\n"}),
        call(FOREIGN, {"text": "while pending"}),
        resume,
        say("Resumed with the human's answer."),
    ]


class _AnswersOnce:
    """A person who sits down at the window (already open) only once `ready` is set."""

    def __init__(self, ready: threading.Event, person: Person) -> None:
        self.ready, self.person = ready, person
        self._thread = threading.Thread(target=self._sit_down, daemon=True)
        self._thread.start()

    def _sit_down(self) -> None:
        if self.ready.wait(120):
            self.person.__enter__()

    def problem(self) -> str:
        self._thread.join(5)
        if not self.ready.is_set():
            return "the agent never came back for the decision"
        return self.person.problem()


def test_an_interrupted_session_leaves_the_decision_pending_for_the_next_one(
    claude_executable: Path, tmp_path: Path
) -> None:
    place = ClaudeHome.create(tmp_path)
    (tmp_path / "foreign.py").write_text(FOREIGN_SERVER, encoding="utf-8")
    settings = place.home / ".claude.json"
    config = json.loads(settings.read_text(encoding="utf-8"))
    foreign = {"command": sys.executable, "args": [str(tmp_path / "foreign.py")]}
    config["mcpServers"]["scratchpad"] = foreign
    settings.write_text(json.dumps(config), encoding="utf-8")
    with desktop_for(place.home) as desk:
        log = _interrupted_session(claude_executable, place, desk)
        ours = [line for line in log.splitlines() if 'MCP server "decision-journal"' in line]
        assert any("Sending SIGINT" in line for line in ours), "\n".join(ours[-20:])
        assert not any("SIGINT failed" in line for line in ours), "\n".join(ours[-20:])
        pending = sorted((place.journal / "pending").glob("decision-*.json"))
        assert len(pending) == 1, sorted(place.journal.rglob("*"))
        # nobody waits any more and nothing was typed: the question is withdrawn
        # (docs/protocol.md); the next session's resume shows it again
        deadline = time.monotonic() + 20
        while not desk.window_gone():
            assert time.monotonic() < deadline, "the interrupted client's window stayed open"
            time.sleep(0.2)

        ready = threading.Event()
        with FakeAnthropic(scripted(_resume_script(place.workspace, ready))) as fake:
            person = _AnswersOnce(ready, Person(desk, CHOOSE_SECOND))
            run = run_claude(
                claude_executable, place, desk.env, fake, allowed_tools=ALLOWED.split(",")
            )
            problem = person.problem()
        results = [r for _, r in sorted(fake.results().items())]
    assert run.returncode == 0 and not problem and not fake.errors, run.describe()
    decision_id = pending[0].stem
    recent, write, jot, resumed = results
    assert structured(recent)["pending"][0]["decision_id"] == decision_id
    for denied in (write, jot):
        assert denied.is_error and decision_id in denied.text, denied
        assert f'{PRESENT} with only {{"decision_id": "{decision_id}"}}' in denied.text
    assert not (place.workspace / "retry.py").exists()
    assert not (place.workspace / "jotted.txt").exists()
    answer = structured(resumed)
    assert (answer["status"], answer["decision_id"]) == ("recorded", decision_id), answer
    assert answer["selection"]["option_id"] == "server", answer
    reasons = {r["option_id"]: r["reason"] for r in answer["rationales"]["rejected"]}
    assert reasons == {"client": "callers retry blindly", "queue": "a queue is more to run"}
