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

Only plain, well-formed handshake and listing messages take the early answer; anything else
(a cursor, a protocol without the handshake, a batch, a parse error) goes to the SDK as it came.

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

from app.mcp.listing import INITIALIZE, Listing

TYPE_CHECKING = False  # typing, dataclasses and logging are a noticeable part of this start
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import IO, Any

INITIALIZED = "notifications/initialized"


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
        reply = {"jsonrpc": "2.0", "id": request_id, "result": result}
        self.output.write(json.dumps(reply, ensure_ascii=False).encode("utf-8") + b"\n")
        self.output.flush()


class Handover:
    """What the SDK server receives: the wire, the lines to replay, the id whose answer the
    client already has (None when nothing was answered)."""

    __slots__ = ("answered_id", "held", "wire")

    def __init__(self, wire: Wire) -> None:
        self.wire = wire
        self.held: list[str] = []
        self.answered_id: Any = None


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
        line = wire.input.readline()
        if not line:
            exit_now()  # the client left before any call: nothing to hand over
        message = _message(line)
        method = message.get("method") if message is not None else None
        if message is not None and method == INITIALIZE and not version:
            requested = _handshake_version(message)
            if requested:
                listing = Listing.load()
                version = listing.negotiate(requested)
                wire.send(message["id"], listing.initialize(version))
                handover.held.append(line.decode("utf-8"))
                handover.answered_id = message["id"]
                continue
        elif message is not None and method == INITIALIZED and version:
            handover.held.append(line.decode("utf-8"))
            continue
        elif message is not None and listing is not None and _plain_request(message):
            listed = listing.listed(str(method))
            if listed is not None:
                wire.send(message["id"], listed)
                _preload()
                continue
        handover.held.append(line.decode("utf-8", "replace"))
        return handover


def _message(line: bytes) -> dict[str, Any] | None:
    """A JSON-RPC 2.0 object with a string method, or None (the SDK answers anything else)."""
    try:
        value = json.loads(line)
    except ValueError:
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
    if "logging" in sys.modules:  # loaded by the SDK; the front never needs it
        sys.modules["logging"].shutdown()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(0)
