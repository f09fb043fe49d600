"""The MCP server's first moments: the handshake and the tool list answered before the SDK loads.

Why: a client connects its MCP servers before its agent's first request, and the SDK and the
journal's code take several times the interpreter's start to import (`bench/start_bench.py`).
So the process first answers the handshake and the lists itself (tools, and the empty prompts
and resources some clients ask for too), from `listing.json` (the SDK server's own answers,
`app.mcp.listing`), and then loads the SDK in the background.
At the first other message it hands the connection to the SDK server (`app.mcp.server`),
replaying what it held: the client's `initialize` (the server's second answer to it is
dropped), `notifications/initialized`, and that message. The server then sees the session
exactly as if it had served it from the start.

Protocols without the handshake (2026-07-28, which Claude Code 2.1.332 probes first with
`server/discover`) carry the version, client and capabilities in each request's `_meta`: the
front answers `server/discover` and the lists of those too, and hands over at the first other
request (no replay is needed: such a session has no state before it). Only plain, well-formed
handshake, discovery and listing requests take the early answer; anything else (a cursor, an
envelope without the client or its capabilities, a batch, a parse error, a line over
`EARLY_LINE_MAX`) goes to the server as it came, which checks it as the socket checks a frame
before the SDK reads it. Every line is read with a bound on its size (`app.mcp.lines`).

The protocol keeps private duplicates of fds 0 and 1, as the SDK's own transport does: fd 0
then reads the null device and fd 1 writes to stderr, so a child process or a stray print can
never reach the protocol stream. The end of stdin, SIGINT or SIGTERM before the handover end
the process at once with 0, as they end the server.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
import threading

from app.mcp.lines import read_line, too_long_error
from app.mcp.listing import ACKNOWLEDGED, ENVELOPE, INITIALIZE, LISTEN, Listing

TYPE_CHECKING = False  # typing, dataclasses and logging are a noticeable part of this start
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import IO, Any

INITIALIZED = "notifications/initialized"
EARLY_LINE_MAX = 64 * 1024
"""The longest line the front parses: its early answers are to small messages, and a longer
line goes to the server, which checks its nesting and size before parsing it."""


class Options:
    """`decision-journal [--journal DIR] mcp [--workspace DIR]`."""

    __slots__ = ("journal", "workspace")

    def __init__(self, journal: str | None = None, workspace: str | None = None) -> None:
        self.journal = journal
        self.workspace = workspace


def parse_argv(argv: Sequence[str]) -> Options | None:
    """The plain forms of the command, without the CLI's parser; None for anything else (help,
    an unknown flag), which the parser then answers."""
    journal = workspace = None
    words = list(argv)
    if "mcp" not in words:
        return None
    at = words.index("mcp")
    before, after = words[:at], words[at + 1 :]
    if before:
        if len(before) != 2 or before[0] != "--journal":
            return None
        journal = before[1]
    if after:
        if len(after) != 2 or after[0] != "--workspace":
            return None
        workspace = after[1]
    if any(value.startswith("-") for value in (journal or "", workspace or "")):
        return None
    return Options(journal, workspace)


class Wire:
    """The client's side of the connection: private duplicates of fds 0 and 1."""

    __slots__ = ("input", "output")

    def __init__(self, read: IO[bytes], write: IO[bytes]) -> None:
        self.input = read
        self.output = write

    @classmethod
    def take(cls) -> Wire:
        wire = cls(os.fdopen(os.dup(0), "rb"), os.fdopen(os.dup(1), "wb"))
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        os.dup2(2, 1)
        return wire

    def send(self, request_id: Any, result: dict[str, Any]) -> None:
        self._write({"jsonrpc": "2.0", "id": request_id, "result": result})

    def notify(self, method: str, params: dict[str, Any]) -> None:
        self._write({"jsonrpc": "2.0", "method": method, "params": params})

    def refuse_too_long(self) -> None:
        self._write(too_long_error())

    def _write(self, message: dict[str, Any]) -> None:
        self.output.write(json.dumps(message, ensure_ascii=False).encode("utf-8") + b"\n")
        self.output.flush()


class Handover:
    """What the SDK server receives: the wire, the lines to replay, the id whose answer the
    client already has (None when nothing was answered), the subscription it acknowledged."""

    __slots__ = ("acknowledged_id", "answered_id", "held", "wire")

    def __init__(self, wire: Wire) -> None:
        self.wire = wire
        self.held: list[bytes] = []
        self.answered_id: Any = None
        self.acknowledged_id: Any = None
        """The subscription the front acknowledged (None: none), whose held request the server
        acknowledges again when it is replayed."""


def serve(options: Options) -> int:
    """Answers the handshake and the listing, then runs the SDK server on the same connection."""
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: exit_now())
    handover = _answer_until_call(Wire.take())
    from app.mcp.server import run_handed_over  # noqa: PLC0415  # the SDK and the journal

    return run_handed_over(options.journal, options.workspace, handover)


def _answer_until_call(wire: Wire) -> Handover:
    handover = Handover(wire)
    listing: Listing | None = None
    version = ""
    while True:
        line = read_line(wire.input)
        if line is None:
            wire.refuse_too_long()
            continue
        if not line:
            exit_now()  # the client left before any call: nothing to hand over
        message = _message(line)
        method = message.get("method") if message is not None else None
        if message is not None and method == LISTEN and _enveloped(message, LISTEN_PARAMS):
            listing = listing or Listing.load()
            ack = listing.acknowledgement(message["params"]["notifications"], message["id"])
            current = _envelope_version(message) in listing.modern_versions
            if current and ack is not None and handover.acknowledged_id is None:
                wire.notify(ACKNOWLEDGED, ack)  # the stream stays open: the server serves it
                handover.held.append(line)
                handover.acknowledged_id = message["id"]
                continue
        elif message is not None and not version and _enveloped(message):
            listing = listing or Listing.load()
            answer = listing.modern(str(method))
            if _envelope_version(message) in listing.modern_versions and answer is not None:
                wire.send(message["id"], answer)
                _preload()
                continue
        elif message is not None and method == INITIALIZE and not version:
            requested = _handshake_version(message)
            if requested:
                listing = Listing.load()
                version = listing.negotiate(requested)
                wire.send(message["id"], listing.initialize(version))
                handover.held.append(line)
                handover.answered_id = message["id"]
                continue
        elif message is not None and method == INITIALIZED and version:
            handover.held.append(line)
            continue
        elif message is not None and listing is not None and _plain_request(message):
            listed = listing.listed(str(method))
            if listed is not None:
                wire.send(message["id"], listed)
                _preload()
                continue
        handover.held.append(line)
        return handover


def _message(line: bytes) -> dict[str, Any] | None:
    """A JSON-RPC 2.0 object with a string method, or None (the server answers anything else,
    a line too deep or too long for the front among them)."""
    if len(line) > EARLY_LINE_MAX:
        return None
    try:
        value = json.loads(line)
    except (ValueError, RecursionError):
        return None
    if not isinstance(value, dict) or value.get("jsonrpc") != "2.0":
        return None
    if not isinstance(value.get("method"), str):
        return None
    request_id = value.get("id")
    if "id" in value and (isinstance(request_id, bool) or not isinstance(request_id, int | str)):
        return None
    return value


def _handshake_version(message: dict[str, Any]) -> str:
    """The requested protocol version of a well-formed `initialize` request, else ""."""
    params = message.get("params")
    if "id" not in message or not isinstance(params, dict):
        return ""
    client = params.get("clientInfo")
    if not isinstance(params.get("capabilities"), dict) or not isinstance(client, dict):
        return ""
    if not all(isinstance(client.get(key), str) for key in ("name", "version")):
        return ""
    version = params.get("protocolVersion")
    return version if isinstance(version, str) and version else ""


LISTEN_PARAMS = frozenset({"_meta", "notifications"})


def _enveloped(message: dict[str, Any], allowed: frozenset[str] = frozenset({"_meta"})) -> bool:
    """A request of a protocol without the handshake: no parameters but `allowed`, and a
    `_meta` that names the version, the client (name and version) and its capabilities."""
    params = message.get("params", {})
    if "id" not in message or not isinstance(params, dict) or not set(params) <= allowed:
        return False
    meta = message.get("params", {}).get("_meta")
    if not isinstance(meta, dict) or not isinstance(
        meta.get(ENVELOPE + "clientCapabilities"), dict
    ):
        return False
    client = meta.get(ENVELOPE + "clientInfo")
    named = isinstance(client, dict) and all(
        isinstance(client.get(k), str) for k in ("name", "version")
    )
    return named and isinstance(meta.get(ENVELOPE + "protocolVersion"), str)


def _envelope_version(message: dict[str, Any]) -> str:
    return str(message["params"]["_meta"][ENVELOPE + "protocolVersion"])


def _plain_request(message: dict[str, Any]) -> bool:
    """A request without parameters but `_meta` (a list's first page: no cursor)."""
    params = message.get("params", {})
    return "id" in message and isinstance(params, dict) and set(params) <= {"_meta"}


_preloading: list[threading.Thread] = []


def _preload() -> None:
    """Loads the SDK server's modules while the client starts its agent, so the first call
    does not wait for them."""
    if _preloading:
        return

    def load() -> None:
        with contextlib.suppress(Exception):  # the handover imports again and reports it
            import app.mcp.server  # noqa: F401, PLC0415

    thread = threading.Thread(target=load, name="mcp-preload", daemon=True)
    _preloading.append(thread)
    thread.start()


def exit_now() -> None:
    """Ends the process with 0 at once.

    The SDK reads stdin in a worker thread that no cancellation can interrupt, so the event
    loop would otherwise wait for the client's next line; Claude Code sends SIGTERM 100 ms
    after SIGINT. A second stop signal while it ends is ignored, so it can neither interrupt
    the flush nor turn exit 0 into death by signal.
    """
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, signal.SIG_IGN)
    try:
        # Loaded by the SDK, the front never needs it; the background load may be halfway
        # through importing it when a stop signal arrives, so it may lack `shutdown` yet.
        shutdown = getattr(sys.modules.get("logging"), "shutdown", None)
        if shutdown is not None:
            shutdown()
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
    finally:
        os._exit(0)
