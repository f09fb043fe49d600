"""A local stand-in for an OpenAI-compatible Chat Completions API that replays a script.

Why a fake: Qwen Code and opencode must run in the test suite without the network, and both
take any OpenAI-compatible endpoint (Qwen Code through `OPENAI_BASE_URL`, opencode through a
custom provider's `baseURL`). A tiny threaded HTTP server on 127.0.0.1 in the test process
plays the model: it records every request (above all its `tools`, where each client lists
our MCP tools in its own spelling) and answers `POST /v1/chat/completions` with scripted
turns, streamed as `chat.completion.chunk` events ending in `data: [DONE]` like the real API
when the request asks for a stream, as one `chat.completion` otherwise. `GET /v1/models`
lists the one model.

The conversation is stateless on our side: the client sends the whole history each time, so
the next turn is chosen by how many assistant messages the request already holds, and a
retried request gets the same answer. A step may be a function of the tool results so far.
Requests outside the scripted conversation (a title, a summary: no tools, or without the
marker) get a short text.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tests.clients.support.fake_http import Recorded, RecordingServer, Reply, first_json

MODEL = "fake-coder"
SIDE_ANSWER = "Scripted session"
"""What a request outside the scripted conversation gets (a session title, say)."""


@dataclass(frozen=True, slots=True)
class FunctionCall:
    """One assistant tool call: `name` as the client offered it, with `arguments`."""

    name: str
    arguments: dict[str, Any]


Item = str | FunctionCall
"""One model turn; a plain string is a text answer."""


@dataclass(frozen=True, slots=True)
class ToolResult:
    """What the client sent back for one call: the call's id and the tool message's text."""

    call_id: str
    text: str

    def json(self) -> Any:
        """Our tool's own result (Qwen Code sends an MCP tool's structured content and then its
        text content, both JSON, in one string)."""
        return first_json(self.text)


Step = Item | Callable[[list[ToolResult]], Item]
"""A scripted turn, or a function of every tool result so far (oldest first)."""


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


def tool_results(messages: list[dict[str, Any]]) -> list[ToolResult]:
    """Every `role: tool` message in a request, oldest first."""
    return [
        ToolResult(str(m.get("tool_call_id", "")), _text(m.get("content")))
        for m in messages
        if isinstance(m, dict) and m.get("role") == "tool"
    ]


@dataclass
class Script:
    """The model's turns for the conversation whose user messages hold `marker` and which
    offers tools."""

    marker: str
    steps: list[Step]

    def is_main(self, body: dict[str, Any]) -> bool:
        users = [m for m in body.get("messages", []) if m.get("role") == "user"]
        return bool(body.get("tools")) and any(
            self.marker in _text(m.get("content")) for m in users
        )

    def next_item(self, body: dict[str, Any]) -> Item:
        messages = body.get("messages", [])
        done = sum(1 for m in messages if m.get("role") == "assistant")
        if done >= len(self.steps):
            return "The scripted session is over."
        step = self.steps[done]
        return step(tool_results(messages)) if callable(step) else step


USAGE = {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}


def _tool_call(item: FunctionCall, index: int) -> dict[str, Any]:
    return {
        "index": 0,
        "id": f"call_{index}",
        "type": "function",
        "function": {"name": item.name, "arguments": json.dumps(item.arguments)},
    }


def completion(item: Item, index: int, model: str) -> dict[str, Any]:
    """One non-streamed `chat.completion` holding `item` as the whole turn."""
    message: dict[str, Any] = {"role": "assistant", "content": None}
    if isinstance(item, FunctionCall):
        call = _tool_call(item, index)
        call.pop("index")
        message["tool_calls"] = [call]
    else:
        message["content"] = item
    return {
        "id": f"chatcmpl-{index:04d}",
        "object": "chat.completion",
        "created": 1_700_000_000 + index,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if isinstance(item, FunctionCall) else "stop",
            }
        ],
        "usage": USAGE,
    }


def chunks(item: Item, index: int, model: str) -> bytes:
    """The same turn as the streaming API sends it: role, content or call, finish, [DONE]."""
    head = {
        "id": f"chatcmpl-{index:04d}",
        "object": "chat.completion.chunk",
        "created": 1_700_000_000 + index,
        "model": model,
    }
    if isinstance(item, FunctionCall):
        delta: dict[str, Any] = {"tool_calls": [_tool_call(item, index)]}
        finish = "tool_calls"
    else:
        delta, finish = {"content": item}, "stop"
    events = [
        head | {"choices": [{"index": 0, "delta": {"role": "assistant"}, "finish_reason": None}]},
        head | {"choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
        head | {"choices": [{"index": 0, "delta": {}, "finish_reason": finish}]},
        head | {"choices": [], "usage": USAGE},
    ]
    lines = [f"data: {json.dumps(event)}\n\n" for event in events] + ["data: [DONE]\n\n"]
    return "".join(lines).encode()


def offered_tools(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """A request's function tools by name."""
    return {
        str(tool["function"].get("name", "")): tool["function"]
        for tool in body.get("tools", [])
        if isinstance(tool, dict) and isinstance(tool.get("function"), dict)
    }


class FakeChat(RecordingServer):
    """The fake API on 127.0.0.1, serving until `close()`; `base_url` ends in `/v1`."""

    script: Script
    GENERATION_PATH = "/v1/chat/completions"
    API_ROOT = "/v1"
    DEFAULT_MODEL = MODEL

    def route(self, request: Recorded) -> Reply | None:
        if request.method == "GET" and request.path.split("?", 1)[0] == "/v1/models":
            return Reply.json({"object": "list", "data": [{"id": MODEL, "object": "model"}]})
        asked = self.generation(request)
        if asked is None:
            return None
        body, index, model = asked
        item = self.next_item(body, SIDE_ANSWER)
        if body.get("stream"):
            return Reply(200, chunks(item, index, model), "text/event-stream")
        return Reply.json(completion(item, index, model))
