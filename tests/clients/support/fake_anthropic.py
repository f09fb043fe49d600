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
(titles, summaries, quota checks) get a short text reply, and unknown paths a JSON 404; all
are recorded (`fake_http.RecordingServer`).
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from tests.clients.support.fake_http import Recorded, RecordingServer, Reply, sse

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


def tool_use_id(turn: int, call: int = 0) -> str:
    """The id the script gives the `call`-th tool call of its `turn`-th turn, when it has none."""
    return f"toolu_{turn:02d}_{call:02d}"


@dataclass
class Script:
    """The assistant turns for the one conversation whose first user message holds `marker`."""

    marker: str
    steps: list[Step]

    def is_main(self, body: dict[str, Any]) -> bool:
        users = [m for m in body.get("messages", []) if m.get("role") == "user"]
        return bool(users) and any(self.marker in _message_text(m) for m in users[:1])

    def next_item(self, body: dict[str, Any]) -> Turn:
        messages = body.get("messages", [])
        done = sum(1 for m in messages if m.get("role") == "assistant")
        if done >= len(self.steps):
            return say("The scripted session is over.")
        step = self.steps[done]
        turn = step(Exchange(body, tool_results(messages))) if callable(step) else step
        return self._with_ids(turn, done)

    def _with_ids(self, turn: Turn, index: int) -> Turn:
        uses = itertools.count()
        blocks = tuple(
            ToolUse(b.name, b.input, b.id or tool_use_id(index, next(uses)))
            if isinstance(b, ToolUse)
            else b
            for b in turn.blocks
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
    return sse([(name, {"type": name, **data}) for name, data in events])


class FakeAnthropic(RecordingServer):
    """The fake Messages API on 127.0.0.1, serving until `close()` (see fake_http).

    Serves `POST /v1/messages` (streamed or not), `POST /v1/messages/count_tokens` and the
    model listing; anything else is a recorded JSON 404.
    """

    script: Script
    GENERATION_PATH = "/v1/messages"  # ANTHROPIC_BASE_URL is the origin: the client adds it
    DEFAULT_MODEL = MODEL

    def results(self) -> dict[str, ToolResult]:
        """Every tool result the client sent in the main conversation, by tool_use id."""
        found: dict[str, ToolResult] = {}
        for body in self.main_requests:
            found.update((r.tool_use_id, r) for r in tool_results(body.get("messages", [])))
        return found

    def offered_tools(self) -> dict[str, dict[str, Any]]:
        """Every tool the main conversation's requests carried with its schema, by name."""
        return {
            str(t.get("name", "")): t for body in self.main_requests for t in body.get("tools", [])
        }

    def named_tools(self) -> set[str]:
        """Every tool the model was told of: offered with a schema, or named as deferred."""
        deferred = {name for body in self.main_requests for name in deferred_tools(body)}
        return set(self.offered_tools()) | deferred

    def answer(self, body: dict[str, Any]) -> Turn:
        """The scripted turn for the main conversation, a short reply to anything else."""
        turn = self.next_item(body, say("ok"))
        return turn if isinstance(turn, Turn) else say(str(turn))

    def route(self, request: Recorded) -> Reply | None:
        path, body = request.path.split("?", 1)[0], request.body
        if request.method == "GET" and path == "/v1/models":
            return Reply.json(
                {"data": [_model(MODEL)], "has_more": False, "first_id": MODEL, "last_id": MODEL}
            )
        if request.method == "GET" and path.startswith("/v1/models/"):
            return Reply.json(_model(path.rsplit("/", 1)[1]))
        if request.method == "POST" and path == "/v1/messages/count_tokens":
            return Reply.json({"input_tokens": 100})
        asked = self.generation(request)
        if asked is None:
            return None
        body, index, model = asked
        turn = self.answer(body)
        message_id = f"msg_fake_{index:04d}"
        if body.get("stream"):
            return Reply(200, sse_events(turn, message_id, model), "text/event-stream")
        return Reply.json(message_json(turn, message_id, model))


def _model(model_id: str) -> dict[str, Any]:
    return {
        "type": "model",
        "id": model_id,
        "display_name": model_id,
        "created_at": "2025-09-29T00:00:00Z",
    }
