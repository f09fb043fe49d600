"""What the MCP server answers to `initialize` and the lists, as data, before the SDK loads.

Why data: a client waits for our tool list before its agent starts, and the SDK's own import
costs several times the interpreter's start (`bench/start_bench.py`). `listing.json` holds the
SDK server's own answers, per protocol version the handshake offers; `app.mcp.front` sends
them. `python -m app.mcp.listing` regenerates the file from the real server (run it after
changing a tool, a schema, the instructions or the SDK); a test holds the file equal to what
the SDK answers, so the front never advertises anything the server would not.

Only the server's version is filled in at run time, from `core.__version__`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from core import __version__

TYPE_CHECKING = False  # the front loads this module; typing is no part of its answer
if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Callable
    from typing import Any

    from mcp.server.mcpserver import MCPServer

LISTING_FILE = Path(__file__).with_name("listing.json")
INITIALIZE = "initialize"
LISTS = ("tools/list", "prompts/list", "resources/list", "resources/templates/list")
"""What clients ask right after the handshake (Gemini CLI lists prompts and resources too);
we have only tools, so the others are empty lists."""
_VERSION_PLACEHOLDER = "<server version>"
_CLIENT = {"name": "decision-journal-listing", "version": "1"}


class Listing:
    """The SDK server's answers, the same for every protocol version the handshake offers
    (`generate` checks it) but for the version itself."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.latest: str = data["latest"]
        self.versions: list[str] = data["versions"]
        self._initialize: dict[str, Any] = data[INITIALIZE]
        self._lists: dict[str, dict[str, Any]] = {method: data[method] for method in LISTS}

    @classmethod
    def load(cls) -> Listing:
        return cls(json.loads(LISTING_FILE.read_text(encoding="utf-8")))

    def negotiate(self, requested: str) -> str:
        """The version the SDK agrees to: the client's when it offers it, else its latest."""
        return requested if requested in self.versions else self.latest

    def initialize(self, version: str) -> dict[str, Any]:
        server_info = {**self._initialize["serverInfo"], "version": __version__}
        return {**self._initialize, "protocolVersion": version, "serverInfo": server_info}

    def listed(self, method: str) -> dict[str, Any] | None:
        """The first page of one of `LISTS`, or None for any other method."""
        return self._lists.get(method)


def generate() -> dict[str, Any]:
    """Asks the real server, over an in-memory connection, for each handshake version.

    Raises:
        ValueError: the server answers two versions differently (beyond the version itself);
            the front would then need an answer per version.
    """
    import tempfile  # noqa: PLC0415  # generation only: the front loads none of this

    import anyio  # noqa: PLC0415
    from mcp_types.version import (  # noqa: PLC0415
        HANDSHAKE_PROTOCOL_VERSIONS,
        LATEST_HANDSHAKE_VERSION,
    )

    from app.mcp.server import build_server  # noqa: PLC0415
    from core.journal import Journal  # noqa: PLC0415

    answers: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="mcp-listing-") as tmp:
        server = build_server(Journal(Path(tmp)), workspace=tmp)
        for version in HANDSHAKE_PROTOCOL_VERSIONS:
            answer = anyio.run(_answers_of, server, version)
            if answer[INITIALIZE].pop("protocolVersion") != version:
                raise ValueError(f"the server did not accept protocol version {version}")
            answers[version] = answer
    first = answers[LATEST_HANDSHAKE_VERSION]
    differing = sorted(v for v, answer in answers.items() if answer != first)
    if differing:
        raise ValueError(f"the server answers {', '.join(differing)} differently")
    return {"latest": LATEST_HANDSHAKE_VERSION, "versions": list(answers), **first}


async def _answers_of(server: MCPServer, version: str) -> dict[str, Any]:
    from app.mcp.server import serve_on  # noqa: PLC0415

    hello = {"protocolVersion": version, "capabilities": {}, "clientInfo": _CLIENT}
    lines = [
        {"jsonrpc": "2.0", "id": 0, "method": INITIALIZE, "params": hello},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        *({"jsonrpc": "2.0", "id": n, "method": m} for n, m in enumerate(LISTS, start=1)),
    ]
    out = _Collected()
    sent = [json.dumps(line) + "\n" for line in lines]
    await serve_on(server, _Lines(sent, lambda: len(out.lines) > len(LISTS)), out)
    replies = {message.get("id"): message for message in map(json.loads, out.lines)}
    initialize = replies[0]["result"]
    initialize["serverInfo"]["version"] = _VERSION_PLACEHOLDER
    answers = {method: replies[n]["result"] for n, method in enumerate(LISTS, start=1)}
    return {INITIALIZE: initialize, **answers}


class _Lines:
    """Lines the server reads, as `mcp.server.stdio.stdio_server` takes its stdin; they end
    once `answered()` says so, so the server answers before it sees the client leave."""

    def __init__(self, lines: list[str], answered: Callable[[], bool]) -> None:
        self._lines = lines
        self._answered = answered

    def __aiter__(self) -> AsyncIterator[str]:
        return self._each()

    async def _each(self) -> AsyncIterator[str]:
        import anyio  # noqa: PLC0415

        for line in self._lines:
            yield line
        with anyio.fail_after(30):
            while not self._answered():
                await anyio.sleep(0.01)


class _Collected:
    """What the server writes, as `stdio_server` takes its stdout."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    async def write(self, text: str) -> None:
        self.lines.extend(line for line in text.splitlines() if line.strip())

    async def flush(self) -> None:
        return None


def render(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def main() -> int:
    """Writes `listing.json` from the real server; prints whether it changed."""
    text = render(generate())
    old = LISTING_FILE.read_text(encoding="utf-8") if LISTING_FILE.exists() else ""
    if text != old:
        LISTING_FILE.write_text(text, encoding="utf-8")
    sys.stdout.write(f"{LISTING_FILE}: {'written' if text != old else 'unchanged'}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
