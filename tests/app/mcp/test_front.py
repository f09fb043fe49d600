"""`decision-journal mcp` answers the handshake and the tool list before the SDK loads, then
hands the session to the SDK server as if it had served it from the start.

The import set is checked in a fresh interpreter: a module this test process already loaded
would hide what the listing path imports.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from app.mcp.front import Options, parse_argv
from app.mcp.listing import LISTING_FILE, Listing, generate, render
from core import __version__
from tests.integration.agent_support import (
    MCP_INITIALIZE,
    MCP_INITIALIZED,
    ROOT,
    agent_env,
    mcp_process,
    short_runtime_dir,
)

pytestmark = pytest.mark.timeout(90)

INITIALIZE = MCP_INITIALIZE
INITIALIZED = MCP_INITIALIZED
LIST = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
RECENT = {
    "jsonrpc": "2.0",
    "id": 3,
    "method": "tools/call",
    "params": {"name": "recent_decisions", "arguments": {}},
}
PROMPTS = {"jsonrpc": "2.0", "id": 5, "method": "prompts/list", "params": {}}
RESOURCES = {"jsonrpc": "2.0", "id": 6, "method": "resources/list"}
LISTING_PATH_FORBIDS = (
    "mcp", "mcp_types", "pydantic", "pydantic_core", "anyio", "argparse", "logging",
    "app.mcp.server", "app.mcp.present", "app.mcp.schemas", "app.cli.exit_codes",
    "core.errors", "core.journal", "core.record", "core.store", "core.capture", "core.ipc",
    "core.index", "core.profile", "core.bulk", "core.agents", "multiprocessing",
)  # fmt: skip
"""Packages whose modules the handshake and the lists load none of (nor their children)."""


def test_the_listing_file_is_what_the_sdk_server_answers() -> None:
    assert render(generate()) == LISTING_FILE.read_text(encoding="utf-8"), (
        "app/mcp/listing.json is stale: run `python -m app.mcp.listing`"
    )


def test_an_unknown_protocol_version_gets_the_latest_as_the_sdk_negotiates() -> None:
    listing = Listing.load()
    assert listing.negotiate("1999-01-01") == listing.latest
    assert listing.negotiate("2025-03-26") == "2025-03-26"
    answer = listing.initialize("2025-03-26")
    assert answer["protocolVersion"] == "2025-03-26"
    assert answer["serverInfo"]["version"] == __version__


@pytest.mark.parametrize(
    ("argv", "options"),
    [
        (["mcp"], (None, None)),
        (["--journal", "/j", "mcp"], ("/j", None)),
        (["--journal", "/j", "mcp", "--workspace", "/w"], ("/j", "/w")),
        (["mcp", "--help"], None),
        (["mcp", "--workspace"], None),
        (["--journal", "--workspace", "mcp"], None),
        (["-v", "mcp"], None),
    ],
)
def test_only_the_plain_forms_skip_the_parser(
    argv: list[str], options: tuple[str | None, str | None] | None
) -> None:
    parsed = parse_argv(argv)
    if options is None:
        assert parsed is None
    else:
        assert isinstance(parsed, Options)
        assert (parsed.journal, parsed.workspace) == options


def _lines(*messages: dict[str, Any]) -> str:
    return "".join(json.dumps(message) + "\n" for message in messages)


def test_the_listing_path_loads_neither_the_sdk_nor_the_journal(tmp_path: Path) -> None:
    """Up to the tool list's answer: the process then ends with stdin (the background load of
    the SDK is switched off, so only the answering path's own imports remain)."""
    script = (
        "import json, os, sys\n"
        "import app.mcp.front as front\n"
        "front._preload = lambda: None\n"
        "def report():\n"
        "    os.write(2, json.dumps(sorted(sys.modules)).encode())\n"
        "    os._exit(0)\n"
        "front.exit_now = report\n"
        "from app.cli.main import main\n"
        f"main(['--journal', {str(tmp_path / 'journal')!r}, 'mcp'])\n"
    )
    with short_runtime_dir() as runtime:
        run = subprocess.run(
            [sys.executable, "-c", script],
            input=_lines(INITIALIZE, INITIALIZED, LIST, PROMPTS, RESOURCES),
            cwd=ROOT,
            env=agent_env(runtime),
            capture_output=True,
            text=True,
            timeout=60,
        )
    replies = [json.loads(line) for line in run.stdout.splitlines()]
    assert [reply["id"] for reply in replies] == [1, 2, 5, 6], run.stdout + run.stderr
    assert len(replies[1]["result"]["tools"]) == 5
    assert (replies[2]["result"], replies[3]["result"]) == ({"prompts": []}, {"resources": []})
    modules = set(json.loads(run.stderr))
    loaded = sorted(
        name
        for name in modules
        for p in LISTING_PATH_FORBIDS
        if name == p or name.startswith(p + ".")
    )
    assert not loaded, f"the listing path loaded {loaded}"


def _replies_until(server: subprocess.Popen[str], *ids: int) -> list[dict[str, Any]]:
    """The server's messages until each of `ids` is answered (in any order: the SDK serves
    requests concurrently), sorted by id."""
    assert server.stdout is not None
    replies: list[dict[str, Any]] = []
    while not set(ids) <= {reply.get("id") for reply in replies}:
        line = server.stdout.readline()
        assert line, f"the server ended early; got {replies}"
        replies.append(json.loads(line))
    return sorted(replies, key=lambda reply: reply.get("id", 0))


def _end(server: subprocess.Popen[str]) -> tuple[int, str]:
    assert server.stdin is not None and server.stdout is not None and server.stderr is not None
    server.stdin.close()
    code = server.wait(timeout=20)
    stderr = server.stderr.read()
    server.stdout.close()
    server.stderr.close()
    return code, stderr


def test_the_sdk_takes_over_the_session_and_initialize_is_answered_once(tmp_path: Path) -> None:
    with short_runtime_dir() as runtime:
        server = mcp_process(tmp_path / "journal", runtime)
        assert server.stdin is not None
        after = [{**LIST, "id": 4}, {**PROMPTS, "id": 7}, {**RESOURCES, "id": 8}]
        server.stdin.write(
            _lines(INITIALIZE, INITIALIZED, LIST, PROMPTS, RESOURCES, RECENT, *after)
        )
        server.stdin.flush()
        replies = _replies_until(server, 1, 2, 3, 4, 5, 6, 7, 8)
        code, stderr = _end(server)
    assert [reply.get("id") for reply in replies] == [1, 2, 3, 4, 5, 6, 7, 8], replies
    by_id = {reply["id"]: reply for reply in replies}
    for front, sdk in ((2, 4), (5, 7), (6, 8)):
        assert by_id[front]["result"] == by_id[sdk]["result"], "the front lists what the SDK lists"
    recent = by_id[3]["result"]
    assert not recent.get("isError"), recent
    assert recent["structuredContent"]["pending"] == []
    assert code == 0 and "Traceback" not in stderr, stderr


def test_a_client_that_skips_the_handshake_gets_the_sdks_own_answer(tmp_path: Path) -> None:
    with short_runtime_dir() as runtime:
        server = mcp_process(tmp_path / "journal", runtime)
        assert server.stdin is not None
        server.stdin.write(_lines({**LIST, "id": 1}))
        server.stdin.flush()
        (reply,) = _replies_until(server, 1)
        _end(server)
    assert "error" in reply and "result" not in reply, reply


def test_a_stop_signal_before_any_call_ends_the_server_with_0(tmp_path: Path) -> None:
    with short_runtime_dir() as runtime:
        server = mcp_process(tmp_path / "journal", runtime)
        assert server.stdin is not None
        server.stdin.write(_lines(INITIALIZE, INITIALIZED, LIST))
        server.stdin.flush()
        _replies_until(server, 2)
        started = time.monotonic()
        server.send_signal(signal.SIGTERM)
        code = server.wait(timeout=10)
        seconds = time.monotonic() - started
        _, stderr = _end(server)
    assert code == 0, stderr
    assert seconds < 1.0


MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "test-client", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {},
}


def _modern(request_id: int, method: str, **params: Any) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": method,
        "params": {"_meta": MODERN_META, **params},
    }


def test_a_client_without_the_handshake_is_answered_early_as_the_sdk_answers(
    tmp_path: Path,
) -> None:
    """Claude Code 2.1.332 probes with `server/discover` (2026-07-28) before any `initialize`."""
    with short_runtime_dir() as runtime:
        server = mcp_process(tmp_path / "journal", runtime)
        assert server.stdin is not None
        early = [_modern(1, "server/discover"), _modern(2, "tools/list")]
        trigger = _modern(3, "tools/list", cursor="next")  # a page after the first: the SDK's
        late = [_modern(4, "tools/list"), _modern(5, "server/discover")]
        server.stdin.write(_lines(*early))
        server.stdin.flush()
        first = _replies_until(server, 1, 2)
        server.stdin.write(_lines(trigger, *late))
        server.stdin.flush()
        rest = _replies_until(server, 3, 4, 5)
        code, stderr = _end(server)
    by_id = {reply["id"]: reply for reply in [*first, *rest]}
    assert "result" in by_id[1] and "tools" in by_id[2]["result"], first
    assert by_id[1]["result"] == by_id[5]["result"], "the front discovers what the SDK does"
    assert by_id[2]["result"] == by_id[4]["result"], "the front lists what the SDK lists"
    assert code == 0, stderr


def test_the_subscription_claude_code_opens_is_acknowledged_once(tmp_path: Path) -> None:
    """Claude Code 2.1.332 waits for the acknowledgement of its `subscriptions/listen` before
    it lists: the front gives it, and the server's own, when the request reaches it at the
    handover, is not sent again."""
    listen = _modern(
        2,
        "subscriptions/listen",
        notifications={
            "toolsListChanged": True,
            "promptsListChanged": True,
            "resourcesListChanged": True,
        },
    )
    call = _modern(3, "tools/call", name="recent_decisions", arguments={})
    with short_runtime_dir() as runtime:
        server = mcp_process(tmp_path / "journal", runtime)
        assert server.stdin is not None and server.stdout is not None
        server.stdin.write(_lines(_modern(1, "server/discover"), listen))
        server.stdin.flush()
        early = [json.loads(server.stdout.readline()) for _ in range(2)]
        server.stdin.write(_lines(call))
        server.stdin.flush()
        later = _replies_until(server, 3)
        code, stderr = _end(server)
    acks = [
        m for m in [*early, *later] if m.get("method") == "notifications/subscriptions/acknowledged"
    ]
    assert len(acks) == 1, [*early, *later]
    assert acks[0]["params"]["_meta"] == {"io.modelcontextprotocol/subscriptionId": 2}
    assert acks[0] in early
    answer = next(m for m in later if m.get("id") == 3)
    assert "result" in answer and not answer["result"].get("isError"), answer
    assert code == 0, stderr
