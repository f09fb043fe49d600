"""A local stand-in for the Anthropic Messages API that records requests and replays a script.

Why a fake: the real Claude Code must run in the test suite without the network. It reads
`ANTHROPIC_BASE_URL`, so a tiny threaded HTTP server on 127.0.0.1 in the test process can play
the model: it records every request (above all the `tools` array the client offers), and
answers the agent's main conversation with scripted assistant turns, streamed as server-sent
events like the real API, or as one JSON message for `stream: false`.

The conversation is stateless on our side: the next turn is chosen by how many assistant turns
the request already carries, so a retried request gets the same answer. A turn may be a
function of the `tool_result`s the client sent back (the last one first of all), so a script
can react to what our tools or hooks said. Requests that are not the main conversation
(titles, summaries, quota checks) get a short text reply, and unknown paths a JSON 404; both
are recorded.
"""

from __future__ import annotations

import itertools
import json
import re
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODEL = "claude-sonnet-4-5-20250929"


@dataclass(frozen=True, slots=True)
class ToolUse:
    """A `tool_use` content block: the model calls `name` with `input`."""

    name: str
    input: dict[str, Any]
    id: str = ""


@dataclass(frozen=True, slots=True)
class Turn:
    """One assistant message: text and tool calls, in order."""

    blocks: tuple[str | ToolUse, ...]

    @property
    def stop_reason(self) -> str:
        return "tool_use" if any(isinstance(b, ToolUse) for b in self.blocks) else "end_turn"


def say(text: str) -> Turn:
    return Turn((text,))


def call(name: str, tool_input: dict[str, Any], text: str = "") -> Turn:
    """A turn that calls one tool, after an optional sentence."""
    return Turn(((text,) if text else ()) + (ToolUse(name, tool_input),))


@dataclass(frozen=True, slots=True)
class ToolResult:
    """What the client sent back for one tool call: its text and whether it is an error."""

    tool_use_id: str
    text: str
    is_error: bool

    def json(self) -> Any:
        """The result text parsed as JSON (MCP structured results arrive as JSON text)."""
        return json.loads(self.text)


@dataclass(frozen=True, slots=True)
class Exchange:
    """The request a scripted turn answers: its body and every tool result so far."""

    body: dict[str, Any]
    results: list[ToolResult]

    @property
    def last(self) -> ToolResult | None:
        """The newest tool result, which most scripts decide on."""
        return self.results[-1] if self.results else None

    @property
    def tool_names(self) -> list[str]:
        """The tools this request offers the model, in the client's order."""
        return [str(t.get("name", "")) for t in self.body.get("tools", [])]

    @property
    def deferred_names(self) -> list[str]:
        """The tools this request only names, for the model to load with ToolSearch."""
        return deferred_tools(self.body)


Step = Turn | Callable[[Exchange], Turn]
"""A turn, or a function of the request (above all its last tool result) that returns one."""


@dataclass
class Recorded:
    """One HTTP request as the client sent it."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any


def _block_text(block: Any) -> str:
    if isinstance(block, str):
        return block
    if isinstance(block, dict) and block.get("type") == "text":
        return str(block.get("text", ""))
    return ""


def tool_results(messages: Sequence[dict[str, Any]]) -> list[ToolResult]:
    """Every tool_result block in a request's messages, oldest first."""
    found = []
    for message in messages:
        content = message.get("content")
        if message.get("role") != "user" or not isinstance(content, list):
            continue
        for block in content:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                inner = block.get("content", "")
                text = inner if isinstance(inner, str) else "".join(_block_text(b) for b in inner)
                found.append(ToolResult(block["tool_use_id"], text, bool(block.get("is_error"))))
    return found


_TOOL_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")


def _all_texts(body: dict[str, Any]) -> Iterator[str]:
    system = body.get("system", "")
    yield from [system] if isinstance(system, str) else (_block_text(b) for b in system)
    for message in body.get("messages", []):
        yield _message_text(message)


def deferred_tools(body: dict[str, Any]) -> list[str]:
    """Tool names the request lists as deferred (Claude Code's tool search), in order.

    Claude Code names such tools one per line after a sentence about "deferred tools", and sends
    their schemas only once the model asks for them with ToolSearch.
    """
    names: list[str] = []
    for text in _all_texts(body):
        lines = text.splitlines()
        for index, line in enumerate(lines):
            if "deferred tools" not in line:
                continue
            for candidate in lines[index + 1 :]:
                if not _TOOL_NAME.match(candidate.strip()):
                    break
                names.append(candidate.strip())
    return list(dict.fromkeys(names))


def _message_text(message: dict[str, Any]) -> str:
    content = message.get("content", "")
    if isinstance(content, str):
        return content
    return "".join(_block_text(b) for b in content if isinstance(b, dict | str))


@dataclass
class Script:
    """The assistant turns for the one conversation whose first user message holds `marker`."""

    marker: str
    steps: list[Step]
    ids: Iterator[int] = field(default_factory=itertools.count)

    def is_main(self, body: dict[str, Any]) -> bool:
        users = [m for m in body.get("messages", []) if m.get("role") == "user"]
        return bool(users) and any(self.marker in _message_text(m) for m in users[:1])

    def next_turn(self, body: dict[str, Any]) -> Turn:
        messages = body.get("messages", [])
        done = sum(1 for m in messages if m.get("role") == "assistant")
        if done >= len(self.steps):
            return say("The scripted session is over.")
        step = self.steps[done]
        turn = step(Exchange(body, tool_results(messages))) if callable(step) else step
        return self._with_ids(turn, done)

    def _with_ids(self, turn: Turn, index: int) -> Turn:
        blocks = tuple(
            ToolUse(b.name, b.input, b.id or f"toolu_{index:02d}_{n:02d}")
            if isinstance(b, ToolUse)
            else b
            for n, b in enumerate(turn.blocks)
        )
        return Turn(blocks)


def _content(turn: Turn) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for block in turn.blocks:
        if isinstance(block, ToolUse):
            out.append(
                {"type": "tool_use", "id": block.id, "name": block.name, "input": block.input}
            )
        else:
            out.append({"type": "text", "text": block})
    return out


def message_json(turn: Turn, message_id: str, model: str) -> dict[str, Any]:
    """The whole message, as `stream: false` returns it."""
    return {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": _content(turn),
        "stop_reason": turn.stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": 100, "output_tokens": 20},
    }


def sse_events(turn: Turn, message_id: str, model: str) -> bytes:
    """The message as the streaming API sends it: start, each block's start/delta/stop, end."""
    head = message_json(Turn(()), message_id, model) | {"stop_reason": None}
    events: list[tuple[str, dict[str, Any]]] = [("message_start", {"message": head})]
    for index, block in enumerate(_content(turn)):
        if block["type"] == "text":
            start = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        else:
            start = block | {"input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        events.append(("content_block_start", {"index": index, "content_block": start}))
        events.append(("content_block_delta", {"index": index, "delta": delta}))
        events.append(("content_block_stop", {"index": index}))
    stop = {"stop_reason": turn.stop_reason, "stop_sequence": None}
    events.append(("message_delta", {"delta": stop, "usage": {"output_tokens": 20}}))
    events.append(("message_stop", {}))
    return b"".join(
        f"event: {name}\ndata: {json.dumps({'type': name, **data})}\n\n".encode()
        for name, data in events
    )


class FakeAnthropic:
    """The fake API on 127.0.0.1:`port`, serving until `close()`.

    Attributes:
        requests: every request received, in order.
        unknown: the requests answered with 404 (paths we do not serve).
    """

    def __init__(self, script: Script) -> None:
        self.script = script
        self.requests: list[Recorded] = []
        self.unknown: list[Recorded] = []
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)

    def __enter__(self) -> FakeAnthropic:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def record(self, request: Recorded) -> None:
        with self._lock:
            self.requests.append(request)

    def message_id(self) -> str:
        with self._lock:
            return f"msg_fake_{next(self._ids):04d}"

    @property
    def main_requests(self) -> list[dict[str, Any]]:
        """The bodies of the scripted conversation's /v1/messages requests, in order."""
        return [
            r.body
            for r in self.requests
            if r.path.startswith("/v1/messages")
            and not r.path.startswith("/v1/messages/count_tokens")
            and isinstance(r.body, dict)
            and self.script.is_main(r.body)
        ]

    def offered_tools(self) -> set[str]:
        """Every tool name the client offered in any main-conversation request."""
        return {t.get("name", "") for body in self.main_requests for t in body.get("tools", [])}

    def answer(self, body: dict[str, Any]) -> Turn:
        if self.script.is_main(body):
            return self.script.next_turn(body)
        return say("ok")


def _handler_for(fake: FakeAnthropic) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: the recorded requests are the log."""

        def _read_body(self) -> Any:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                return json.loads(raw) if raw else None
            except ValueError:
                return raw.decode("utf-8", "replace")

        def _send(self, status: int, payload: bytes, content_type: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(payload)))
            self.send_header("request-id", "req_fake")
            self.end_headers()
            self.wfile.write(payload)

        def _json(self, status: int, value: Any) -> None:
            self._send(status, json.dumps(value).encode(), "application/json")

        def _serve(self, method: str) -> None:
            path = self.path.split("?", 1)[0]
            body = self._read_body() if method == "POST" else None
            recorded = Recorded(method, self.path, dict(self.headers.items()), body)
            fake.record(recorded)
            if method == "POST" and path == "/v1/messages/count_tokens":
                self._json(200, {"input_tokens": 100})
            elif method == "POST" and path == "/v1/messages" and isinstance(body, dict):
                self._messages(body)
            elif method in ("GET", "HEAD") and path == "/v1/models":
                self._json(200, _models())
            elif method in ("GET", "HEAD") and path.startswith("/v1/models/"):
                self._json(200, _model(path.rsplit("/", 1)[1]))
            else:
                fake.unknown.append(recorded)
                error = {"type": "not_found_error", "message": f"{method} {path} is not served"}
                self._json(404, {"type": "error", "error": error})

        def _messages(self, body: dict[str, Any]) -> None:
            turn = fake.answer(body)
            model = str(body.get("model") or MODEL)
            message_id = fake.message_id()
            if body.get("stream"):
                self._send(200, sse_events(turn, message_id, model), "text/event-stream")
            else:
                self._json(200, message_json(turn, message_id, model))

        def do_POST(self) -> None:
            self._serve("POST")

        def do_GET(self) -> None:
            self._serve("GET")

        def do_HEAD(self) -> None:
            self._serve("HEAD")

    return Handler


def _model(model_id: str) -> dict[str, Any]:
    return {
        "type": "model",
        "id": model_id,
        "display_name": model_id,
        "created_at": "2025-09-29T00:00:00Z",
    }


def _models() -> dict[str, Any]:
    return {"data": [_model(MODEL)], "has_more": False, "first_id": MODEL, "last_id": MODEL}
