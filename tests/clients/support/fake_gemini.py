"""A local stand-in for the Gemini API that records requests and replays a script.

Why a fake: the real Gemini CLI must run in the test suite without the network. With an API
key it talks to `GOOGLE_GEMINI_BASE_URL` (loopback may be plain HTTP), so a tiny threaded HTTP
server on 127.0.0.1 in the test process can play the model: it records every request (above
all `tools[].functionDeclarations`, where Gemini lists MCP tools as
`mcp_<server>_<tool>`) and answers `models/<model>:streamGenerateContent?alt=sse` with
scripted candidates as server-sent events, `:generateContent` with one JSON response and
`:countTokens` with a count.

The conversation is stateless on our side: the CLI sends the whole history each time, so the
next turn is chosen by how many `model` turns the request's `contents` already hold. A step
may be a function of the function responses so far. Requests outside the scripted
conversation (the CLI's own checks, which ask for JSON) get a JSON text saying the user
speaks next.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tests.clients.support.fake_http import Recorded, RecordingServer, Reply, sse

MODEL = "gemini-2.5-pro"
_UNTRUSTED = re.compile(r"<untrusted_context>\s*(?P<inner>.*?)\s*</untrusted_context>", re.DOTALL)
_PATH = re.compile(r"^/v1beta/models/(?P<model>[^/:]+):(?P<method>[A-Za-z]+)$")
SIDE_ANSWER = {"reasoning": "scripted test session", "next_speaker": "user"}
"""The answer to the CLI's own JSON checks (who speaks next, and similar)."""


@dataclass(frozen=True, slots=True)
class FunctionCall:
    """A `functionCall` part: the model calls `name` (the CLI's spelling) with `args`."""

    name: str
    args: dict[str, Any]


Item = str | FunctionCall
"""One model turn; a plain string is a text answer."""


@dataclass(frozen=True, slots=True)
class FunctionResponse:
    """What the CLI sent back for one call: the tool's name and its `response` object."""

    name: str
    response: dict[str, Any]

    @property
    def text(self) -> str:
        """The response as text: an MCP tool's text content, a built-in's output or error."""
        for key in ("output", "error", "content"):
            value = self.response.get(key)
            if isinstance(value, str):
                return value
            if isinstance(value, list):
                return "".join(str(p.get("text", "")) for p in value if isinstance(p, dict))
        return json.dumps(self.response)

    @property
    def payload(self) -> str:
        """The tool's own output: Gemini wraps an MCP tool's in `<untrusted_context>` tags."""
        found = _UNTRUSTED.fullmatch(self.text.strip())
        return found["inner"] if found else self.text

    def json(self) -> Any:
        """The payload parsed as JSON (our MCP tools' structured results arrive as JSON)."""
        return json.loads(self.payload)


Step = Item | Callable[[list[FunctionResponse]], Item]
"""A scripted turn, or a function of every function response so far (oldest first)."""


def function_responses(contents: list[dict[str, Any]]) -> list[FunctionResponse]:
    """Every functionResponse part in a request's contents, oldest first."""
    return [
        FunctionResponse(str(part["functionResponse"].get("name", "")), _object(part))
        for content in contents
        for part in content.get("parts", [])
        if isinstance(part, dict) and isinstance(part.get("functionResponse"), dict)
    ]


def _object(part: dict[str, Any]) -> dict[str, Any]:
    response = part["functionResponse"].get("response")
    return response if isinstance(response, dict) else {"output": str(response)}


def _user_text(contents: list[dict[str, Any]]) -> str:
    return "".join(
        str(part.get("text", ""))
        for content in contents
        if content.get("role", "user") == "user"
        for part in content.get("parts", [])
        if isinstance(part, dict)
    )


@dataclass
class Script:
    """The model's turns for the conversation whose user text holds `marker` and which
    offers tools (the CLI's side requests carry the history but no tools)."""

    marker: str
    steps: list[Step]

    def is_main(self, body: dict[str, Any]) -> bool:
        return bool(body.get("tools")) and self.marker in _user_text(body.get("contents", []))

    def next_item(self, body: dict[str, Any]) -> Item:
        contents = body.get("contents", [])
        done = sum(1 for c in contents if c.get("role") == "model")
        if done >= len(self.steps):
            return "The scripted session is over."
        step = self.steps[done]
        return step(function_responses(contents)) if callable(step) else step


def response_json(item: Item) -> dict[str, Any]:
    """One GenerateContentResponse holding `item` as the whole model turn."""
    part = (
        {"functionCall": {"name": item.name, "args": item.args}}
        if isinstance(item, FunctionCall)
        else {"text": item}
    )
    return {
        "candidates": [
            {"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}
        ],
        "usageMetadata": {
            "promptTokenCount": 100,
            "candidatesTokenCount": 20,
            "totalTokenCount": 120,
        },
        "modelVersion": MODEL,
    }


def declared_tools(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """A request's function declarations by name."""
    return {
        str(declaration.get("name", "")): declaration
        for tool in body.get("tools", [])
        for declaration in tool.get("functionDeclarations", [])
    }


def parameters_of(declaration: dict[str, Any]) -> dict[str, Any]:
    """A declaration's JSON schema (`parametersJsonSchema`, or the older `parameters`)."""
    schema = declaration.get("parametersJsonSchema") or declaration.get("parameters") or {}
    return schema if isinstance(schema, dict) else {}


class FakeGemini(RecordingServer):
    """The fake API on 127.0.0.1, serving until `close()`; `base_url` is the origin."""

    script: Script

    def is_generation(self, path: str) -> bool:
        found = _PATH.match(path)
        return found is not None and found["method"] != "countTokens"

    def route(self, request: Recorded) -> Reply | None:
        found = _PATH.match(request.path.split("?", 1)[0])
        if request.method != "POST" or found is None or not isinstance(request.body, dict):
            return None
        if found["method"] == "countTokens":
            return Reply.json({"totalTokens": 100})
        turn = response_json(self.next_item(request.body, json.dumps(SIDE_ANSWER)))
        if found["method"] == "generateContent":
            return Reply.json(turn)
        if found["method"] == "streamGenerateContent":
            return Reply(200, sse([("", turn)]), "text/event-stream")
        return None
