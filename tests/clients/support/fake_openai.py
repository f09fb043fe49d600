"""A local stand-in for the OpenAI Responses API that records requests and replays a script.

Why a fake: the real Codex CLI must run in the test suite without the network. Codex takes a
custom provider (`model_providers.fake = {base_url = …, wire_api = "responses"}`), so a tiny
threaded HTTP server on 127.0.0.1 in the test process can play the model: it records every
request (above all the `tools` array, where Codex groups each MCP server's tools under a
`namespace` entry), and answers `POST /v1/responses` with scripted output items, streamed as
server-sent events like the real API (`response.created`, `response.output_item.added` and
`.done` per item, `response.completed`).

The conversation is stateless on our side: Codex sends the whole history each time, so the
next turn is chosen by how many model turns the request's `input` already holds, and a retried
request gets the same answer. A step may be a function of the tool outputs so far, so a script
can react to what our tools or hooks said. Unknown paths get a JSON 404; all are recorded
(`fake_http.RecordingServer`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from tests.clients.support.fake_http import Recorded, RecordingServer, Reply, sse

MODEL = "gpt-5.5"
"""A model in Codex 0.171's own catalog, so it offers `apply_patch` (unknown models do not)."""

MODEL_ITEMS = frozenset(
    {"function_call", "custom_tool_call", "tool_search_call", "message", "reasoning"}
)
OUTPUT_ITEMS = frozenset({"function_call_output", "custom_tool_call_output", "tool_search_output"})


@dataclass(frozen=True, slots=True)
class FunctionCall:
    """A `function_call` item: the model calls `name` (inside `namespace`, for MCP tools)."""

    name: str
    arguments: dict[str, Any]
    namespace: str = ""


@dataclass(frozen=True, slots=True)
class CustomCall:
    """A `custom_tool_call` item: a freeform tool such as `apply_patch` gets raw text."""

    name: str
    input: str


@dataclass(frozen=True, slots=True)
class ToolSearch:
    """A `tool_search_call` item: the model asks Codex to load deferred tools (Codex lists a
    catalog model's MCP tools only by namespace until the model searches for them)."""

    query: str
    limit: int = 8


Item = str | FunctionCall | CustomCall | ToolSearch
"""One output item; a plain string is an assistant message."""


@dataclass(frozen=True, slots=True)
class ToolOutput:
    """What Codex sent back for one call: the call's id and the output text."""

    call_id: str
    text: str

    @property
    def payload(self) -> str:
        """The tool's own output: Codex puts `Wall time: …` and `Output:` lines before it."""
        head, marker, rest = self.text.partition("\nOutput:\n")
        return rest if marker and head.startswith("Wall time:") else self.text

    def json(self) -> Any:
        """The payload parsed as JSON (our MCP tools' structured results arrive as JSON)."""
        return json.loads(self.payload)


Step = Item | Callable[[list[ToolOutput]], Item]
"""A scripted turn, or a function of every tool output so far (oldest first)."""


def _output_text(output: Any) -> str:
    if isinstance(output, str):
        return output
    if isinstance(output, list):
        return "".join(str(part.get("text", "")) for part in output if isinstance(part, dict))
    if isinstance(output, dict):
        return str(output.get("content", ""))
    return ""


def tool_outputs(items: Sequence[dict[str, Any]]) -> list[ToolOutput]:
    """Every tool output in a request's input, oldest first (a tool search's found tools as
    JSON)."""
    return [
        ToolOutput(
            str(item.get("call_id", "")),
            json.dumps(item.get("tools", []))
            if item.get("type") == "tool_search_output"
            else _output_text(item.get("output")),
        )
        for item in items
        if item.get("type") in OUTPUT_ITEMS
    ]


def model_turns(items: Sequence[dict[str, Any]]) -> int:
    """How many model turns the history holds: runs of consecutive model-output items."""
    turns, inside = 0, False
    for item in items:
        is_model = item.get("type") in MODEL_ITEMS and item.get("role", "assistant") == "assistant"
        turns += is_model and not inside
        inside = is_model
    return turns


def _item_text(item: dict[str, Any]) -> str:
    content = item.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(c.get("text", "")) for c in content if isinstance(c, dict))
    return ""


@dataclass
class Script:
    """The model's turns for the one conversation whose user messages hold `marker`."""

    marker: str
    steps: list[Step]

    def is_main(self, body: dict[str, Any]) -> bool:
        users = [i for i in body.get("input", []) if i.get("role") == "user"]
        return any(self.marker in _item_text(i) for i in users)

    def next_item(self, body: dict[str, Any]) -> Item:
        items = body.get("input", [])
        done = model_turns(items)
        if done >= len(self.steps):
            return "The scripted session is over."
        step = self.steps[done]
        return step(tool_outputs(items)) if callable(step) else step


def _wire_item(item: Item, index: int) -> dict[str, Any]:
    if isinstance(item, FunctionCall):
        wire = {
            "type": "function_call",
            "id": f"fc_{index}",
            "call_id": f"call_{index}",
            "name": item.name,
            "arguments": json.dumps(item.arguments),
            "status": "completed",
        }
        return wire | ({"namespace": item.namespace} if item.namespace else {})
    if isinstance(item, ToolSearch):
        return {
            "type": "tool_search_call",
            "id": f"tsc_{index}",
            "call_id": f"call_{index}",
            "execution": "client",
            "arguments": {"query": item.query, "limit": item.limit},
            "status": "completed",
        }
    if isinstance(item, CustomCall):
        return {
            "type": "custom_tool_call",
            "id": f"ctc_{index}",
            "call_id": f"call_{index}",
            "name": item.name,
            "input": item.input,
            "status": "completed",
        }
    return {
        "type": "message",
        "id": f"msg_{index}",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": item, "annotations": []}],
    }


USAGE = {
    "input_tokens": 100,
    "input_tokens_details": {"cached_tokens": 0},
    "output_tokens": 20,
    "output_tokens_details": {"reasoning_tokens": 0},
    "total_tokens": 120,
}


def sse_events(item: Item, response_id: str, index: int, model: str) -> bytes:
    """One response as the streaming API sends it: created, the item added and done, completed."""
    wire = _wire_item(item, index)
    head = {"id": response_id, "object": "response", "model": model, "status": "in_progress"}
    done = head | {"status": "completed", "output": [wire], "usage": USAGE}
    return sse(
        [
            (name, {"type": name, **data})
            for name, data in (
                ("response.created", {"response": head}),
                ("response.output_item.added", {"output_index": 0, "item": wire}),
                ("response.output_item.done", {"output_index": 0, "item": wire}),
                ("response.completed", {"response": done}),
            )
        ]
    )


class FakeResponses(RecordingServer):
    """The fake API on 127.0.0.1, serving until `close()`; `base_url` ends in `/v1`."""

    script: Script
    GENERATION_PATH = "/v1/responses"
    API_ROOT = "/v1"
    DEFAULT_MODEL = MODEL

    def route(self, request: Recorded) -> Reply | None:
        asked = self.generation(request)
        if asked is None:
            return None
        body, index, model = asked
        events = sse_events(self.next_item(body, "ok"), f"resp_{index:04d}", index, model)
        return Reply(200, events, "text/event-stream")


def namespace_tools(body: dict[str, Any]) -> dict[str, dict[str, dict[str, Any]]]:
    """A request's tools by namespace ("" for top-level tools), each by name."""
    found: dict[str, dict[str, dict[str, Any]]] = {"": {}}
    for tool in body.get("tools", []):
        if tool.get("type") == "namespace":
            inner = found.setdefault(str(tool.get("name", "")), {})
            inner.update({str(t.get("name", "")): t for t in tool.get("tools", [])})
        elif "name" in tool:
            found[""][str(tool["name"])] = tool
    return found
