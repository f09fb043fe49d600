"""The part every fake model API shares: a threaded HTTP server on 127.0.0.1 that records each
request and hands it to the API's own `route`.

Why a base: the fakes differ only in paths and wire formats (the Responses API's events,
Gemini's `streamGenerateContent`); starting, stopping, recording and replying are the same.
"""

from __future__ import annotations

import itertools
import json
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Protocol, Self


@dataclass
class Recorded:
    """One HTTP request as the client sent it."""

    method: str
    path: str
    body: Any


@dataclass(frozen=True, slots=True)
class Reply:
    """What the fake answers: a status, a body and its content type."""

    status: int
    payload: bytes
    content_type: str = "application/json"

    @classmethod
    def json(cls, value: Any, status: int = 200) -> Reply:
        return cls(status, json.dumps(value).encode())


class Scripted(Protocol):
    """A fake's script: which requests are the scripted conversation, and its next turn."""

    def is_main(self, body: dict[str, Any]) -> bool: ...

    def next_item(self, body: dict[str, Any]) -> Any: ...


class RecordingServer:
    """Serves until `close()` (or the end of a `with` block); a subclass's `route` answers
    each request and `is_generation` (by default: a POST to `GENERATION_PATH`) says which
    paths ask the model for a turn.

    A scripted step that raises ends the session with a text naming the error (kept in
    `errors`), instead of leaving the client retrying a broken stream.

    Attributes:
        requests: every request received, in order.
        unknown: the requests `route` did not serve (answered 404).
        errors: what a scripted step raised, for the test's failure message.
    """

    GENERATION_PATH = ""
    """Where a POST asks this API's model for a turn."""
    API_ROOT = ""
    """What the client's base URL adds to the origin (`/v1`, or nothing)."""
    DEFAULT_MODEL = ""
    """The model a turn names when the request names none."""

    def __init__(self, script: Scripted) -> None:
        self.script = script
        self._turns = itertools.count(1)
        self.requests: list[Recorded] = []
        self.unknown: list[Recorded] = []
        self.errors: list[str] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def base_url(self) -> str:
        """What the client is told the API's address is."""
        return self.origin + self.API_ROOT

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def route(self, request: Recorded) -> Reply | None:
        """The reply to `request`, or None for a path this API does not serve."""
        raise NotImplementedError

    def is_generation(self, path: str) -> bool:
        """Whether a POST to `path` (without the query) asks the model for a turn."""
        return path == self.GENERATION_PATH

    def generation(self, request: Recorded) -> tuple[dict[str, Any], int, str] | None:
        """A request for a model turn as (its body, the turn's number from 1, the model it
        names); None for any other request."""
        path, body = request.path.split("?", 1)[0], request.body
        if request.method != "POST" or not self.is_generation(path) or not isinstance(body, dict):
            return None
        return body, next(self._turns), str(body.get("model") or self.DEFAULT_MODEL)

    @property
    def main_requests(self) -> list[dict[str, Any]]:
        """The bodies of the scripted conversation's requests for a turn, in order."""
        return [
            r.body
            for r in self.requests
            if self.is_generation(r.path.split("?", 1)[0])
            and isinstance(r.body, dict)
            and self.script.is_main(r.body)
        ]

    def next_item(self, body: dict[str, Any], side: Any) -> Any:
        """The script's next turn for its conversation; `side` for any other request."""
        if not self.script.is_main(body):
            return side
        try:
            return self.script.next_item(body)
        except Exception as exc:  # a step that cannot read the output it expected
            with self._lock:
                self.errors.append(f"{type(exc).__name__}: {exc}")
            return f"The script failed: {exc}"

    def _handle(self, request: Recorded) -> Reply:
        with self._lock:
            self.requests.append(request)
        reply = self.route(request)
        if reply is not None:
            return reply
        with self._lock:
            self.unknown.append(request)
        error = {"message": f"{request.method} {request.path} is not served", "code": 404}
        return Reply.json({"error": error}, 404)


def _handler_for(server: RecordingServer) -> type[BaseHTTPRequestHandler]:
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

        def _serve(self, method: str) -> None:
            body = self._read_body() if method == "POST" else None
            reply = server._handle(Recorded(method, self.path, body))
            self.send_response(reply.status)
            self.send_header("Content-Type", reply.content_type)
            self.send_header("Content-Length", str(len(reply.payload)))
            self.end_headers()
            self.wfile.write(reply.payload)

        def do_POST(self) -> None:
            self._serve("POST")

        def do_GET(self) -> None:
            self._serve("GET")

    return Handler


def sse(events: list[tuple[str, dict[str, Any]]]) -> bytes:
    """Server-sent events; an empty name sends a bare `data:` line (Gemini's stream)."""
    return b"".join(
        (f"event: {name}\n" if name else "").encode() + f"data: {json.dumps(data)}\n\n".encode()
        for name, data in events
    )


def first_json(text: str) -> Any:
    """The first JSON document of a tool result's text: our tool's own result, when a client
    sends an MCP tool's structured content and then its text content in one string."""
    return json.JSONDecoder().raw_decode(text.lstrip())[0]
