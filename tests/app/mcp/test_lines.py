"""`decision-journal mcp` reads hostile lines as the socket reads hostile frames: a line too
deep, too full of values or too long is answered with a JSON-RPC error naming the limit, never
held whole nor parsed past the limit, and the session goes on with the next line, before the
SDK has loaded (the first line) and after (a call in a session)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from app.mcp.lines import MAX_LINE, read_line
from core.ipc.framing import MAX_DEPTH, MAX_FRAME, MAX_VALUES
from tests.integration.agent_support import (
    MCP_INITIALIZE,
    MCP_INITIALIZED,
    mcp_process,
    short_runtime_dir,
)

pytestmark = pytest.mark.timeout(90)

INITIALIZE = MCP_INITIALIZE
INITIALIZED = MCP_INITIALIZED


def _recent(request_id: int, **arguments: Any) -> dict[str, Any]:
    params = {"name": "recent_decisions", "arguments": arguments}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def _line(message: dict[str, Any]) -> str:
    return json.dumps(message) + "\n"


def _deep_call(request_id: int, depth: int = 1000) -> str:
    """A call whose argument nests `depth` lists (the attack: model output shaped by a prompt)."""
    head, tail = _line(_recent(request_id, query="Q")).split('"Q"')
    return head + "[" * depth + "]" * depth + tail


def _serve(tmp_path: Path, text: str, *ids: int) -> tuple[list[dict[str, Any]], int, str]:
    """Sends `text`, reads until each of `ids` is answered, then closes stdin."""
    with short_runtime_dir() as runtime:
        server = mcp_process(tmp_path / "journal", runtime)
        assert server.stdin is not None and server.stdout is not None
        assert server.stderr is not None
        server.stdin.write(text)
        server.stdin.flush()
        replies: list[dict[str, Any]] = []
        while not set(ids) <= {reply.get("id") for reply in replies}:
            line = server.stdout.readline()
            assert line, f"the server ended early; got {replies}: {server.stderr.read()}"
            replies.append(json.loads(line))
        server.stdin.close()
        code = server.wait(timeout=20)
        stderr = server.stderr.read()
        server.stdout.close()
        server.stderr.close()
    return replies, code, stderr


def _refusals(replies: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [reply["error"] for reply in replies if reply.get("id") is None and "error" in reply]


def _answered(replies: list[dict[str, Any]], request_id: int) -> dict[str, Any]:
    (reply,) = [reply for reply in replies if reply.get("id") == request_id]
    assert not reply["result"].get("isError"), reply
    return reply


def test_a_deep_first_line_is_refused_and_the_session_then_starts(tmp_path: Path) -> None:
    deep = "[" * 1000 + "]" * 1000
    text = deep + "\n" + _line(INITIALIZE) + _line(INITIALIZED) + _line(_recent(2))
    replies, code, stderr = _serve(tmp_path, text, 1, 2)
    (error,) = _refusals(replies)
    assert error == {
        "code": -32700,
        "message": f"JSON nests deeper than {MAX_DEPTH} levels",
        "data": {"limit": MAX_DEPTH},
    }
    _answered(replies, 2)
    assert code == 0 and stderr == "", stderr


def test_deep_calls_in_a_session_are_refused_and_the_tools_stay(tmp_path: Path) -> None:
    """The first call is the front's handover line; the second reaches the loaded server."""
    text = (
        _line(INITIALIZE)
        + _line(INITIALIZED)
        + _deep_call(2)
        + _line(_recent(3))
        + _deep_call(4, depth=200_000)
        + _line(_recent(5))
    )
    replies, code, stderr = _serve(tmp_path, text, 1, 3, 5)
    errors = _refusals(replies)
    assert [error["code"] for error in errors] == [-32700, -32700], errors
    assert errors[0]["data"] == {"limit": MAX_DEPTH}
    assert errors[1]["data"] == {"limit": MAX_VALUES}, "more lists than values: refused unread"
    _answered(replies, 3)
    _answered(replies, 5)
    assert code == 0 and stderr == "", stderr


def test_a_line_longer_than_a_frame_is_refused_unheld_and_the_next_is_served(
    tmp_path: Path,
) -> None:
    huge = _line(_recent(2, query="A" * (MAX_LINE + 10)))
    digits = _line(_recent(4, query="Q")).replace('"Q"', "9" * 5000)
    text = _line(INITIALIZE) + _line(INITIALIZED) + huge + _line(_recent(3)) + digits
    replies, code, stderr = _serve(tmp_path, text + _line(_recent(5)), 1, 3, 5)
    errors = _refusals(replies)
    assert errors == [
        {
            "code": -32700,
            "message": f"message is longer than {MAX_LINE} bytes; the limit is {MAX_LINE}",
            "data": {"limit": MAX_LINE},
        },
        {
            "code": -32700,
            "message": "integer has 5000 digits; the limit is 4300",
            "data": {"limit": 4300},
        },
    ]
    _answered(replies, 3)
    _answered(replies, 5)
    assert code == 0 and stderr == "", stderr


class _Counted(io.BytesIO):
    """A stream that records the largest read asked of it."""

    largest = 0

    def readline(self, size: int | None = -1) -> bytes:
        assert size is not None and size > 0, "an unbounded readline"
        self.largest = max(self.largest, size)
        return super().readline(size)


def test_the_line_bound_is_the_frame_bound_and_every_read_is_bounded() -> None:
    assert MAX_LINE == MAX_FRAME
    stream = _Counted(b"x" * (3 * MAX_LINE) + b"\n" + b"next\n" + b"x" * (MAX_LINE + 1))
    assert read_line(stream) is None
    assert stream.largest == MAX_LINE + 1
    assert read_line(stream) == b"next\n"
    assert read_line(stream) is None, "a long last line without its newline"
    assert read_line(stream) == b""
    exact = _Counted(b"x" * MAX_LINE + b"\n")
    assert read_line(exact) == b"x" * MAX_LINE + b"\n"
