"""The client's lines, each read with a bound on its size before anything holds it whole.

Why here and this small: the front (`app.mcp.front`) reads the first lines before the SDK or
the journal load, so this module imports nothing of theirs. A line longer than `MAX_LINE` is
read to its end in small pieces and dropped, so a client that never sends a newline cannot
grow the server's memory; the reader answers it with `too_long_error`. What a line holds
(its nesting, its count of values) is checked by `core.ipc.framing.decode_json`, the
socket's own check, once the server has loaded (`app.mcp.server`).
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing is a noticeable part of the front's start
if TYPE_CHECKING:
    from typing import IO, Any

MAX_LINE = 4 * 1024 * 1024
"""The longest line read, the socket's `core.ipc.framing.MAX_FRAME` (a test holds them equal)."""
PARSE_ERROR = -32700
_PIECE = 64 * 1024


def read_line(stream: IO[bytes]) -> bytes | None:
    """The next line, newline included (b"" at the end of the stream), or None for a line
    longer than `MAX_LINE` bytes, which is consumed up to its newline and never held."""
    line = stream.readline(MAX_LINE + 1)
    if len(line) <= MAX_LINE or line.endswith(b"\n"):
        return line
    while True:
        piece = stream.readline(_PIECE)
        if not piece or piece.endswith(b"\n"):
            return None


def too_long_error() -> dict[str, Any]:
    """The JSON-RPC answer to a line longer than `MAX_LINE` (its id could not be read)."""
    message = f"message is longer than {MAX_LINE} bytes; the limit is {MAX_LINE}"
    error = {"code": PARSE_ERROR, "message": message, "data": {"limit": MAX_LINE}}
    return {"jsonrpc": "2.0", "id": None, "error": error}
