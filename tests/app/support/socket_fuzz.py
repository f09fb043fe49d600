"""A seeded generator of hostile and broken frames for the socket server.

Why seeded rather than hypothesis: the memory test runs sixteen thousand cases in one process
and compares RSS before and after; a generator that keeps no example database and no shrinking
state measures the server, not the test tool. A failing seed reproduces exactly.
"""

from __future__ import annotations

import json
import random
import struct
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from core.ipc.framing import MAX_DEPTH, MAX_FRAME

METHODS = ("echo", "hello", "no.such.method", "decision.pending", "app.show", "decision.present")


@dataclass(frozen=True, slots=True)
class Case:
    """Bytes to send, and whether they end on a frame boundary (so a reply may follow)."""

    payload: bytes
    complete: bool


def _frame(body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + body


def _value(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(8 if depth < 4 else 5)
    if kind == 0:
        return rng.randint(-(2**60), 2**60)
    if kind == 1:
        return rng.random() * 10 ** rng.randint(-5, 300)
    if kind == 2:
        return "".join(chr(rng.randrange(0x20, 0x2FFF)) for _ in range(rng.randrange(12)))
    if kind == 3:
        return rng.choice([True, False, None])
    if kind == 4:
        return "x" * rng.randrange(2000)
    if kind == 5:
        return [_value(rng, depth + 1) for _ in range(rng.randrange(6))]
    return {f"k{i}": _value(rng, depth + 1) for i in range(rng.randrange(6))}


def _envelope(rng: random.Random) -> dict[str, Any]:
    envelope: dict[str, Any] = {
        "jsonrpc": rng.choice(["2.0", "2.0", "2.0", "1.0", 2]),
        "id": rng.choice([1, "a", 2**60, None, True, 1.5, "x" * 200]),
        "method": rng.choice(METHODS),
    }
    if rng.random() < 0.8:
        envelope["params"] = _value(rng, 3) if rng.random() < 0.3 else {"view": "journal"}
    if rng.random() < 0.1:
        envelope["extra"] = 1
    return envelope


def _valid_json(rng: random.Random) -> Case:
    return Case(_frame(json.dumps(_envelope(rng)).encode()), True)


def _truncated(rng: random.Random) -> Case:
    whole = _frame(json.dumps(_envelope(rng)).encode())
    return Case(whole[: rng.randrange(1, len(whole))], False)


def _flipped(rng: random.Random) -> Case:
    body = bytearray(json.dumps(_envelope(rng)).encode())
    for _ in range(rng.randrange(1, 4)):
        body[rng.randrange(len(body))] = rng.randrange(256)
    return Case(_frame(bytes(body)), True)


def _noise(rng: random.Random) -> Case:
    return Case(_frame(rng.randbytes(rng.randrange(64))), True)


def _oversized_header(rng: random.Random) -> Case:
    return Case(struct.pack(">I", rng.randrange(MAX_FRAME + 1, 2**32)), True)


def _deep(rng: random.Random) -> Case:
    depth = rng.randrange(MAX_DEPTH - 2, MAX_DEPTH * 3)
    return Case(_frame(b'{"a":' + b"[" * depth + b"]" * depth + b"}"), True)


def _duplicate_key(rng: random.Random) -> Case:
    return Case(_frame(b'{"jsonrpc":"2.0","id":1,"id":2,"method":"echo"}'), True)


def _strict_breakers(rng: random.Random) -> Case:
    body = rng.choice(
        [b'{"a":NaN}', b'{"a":1e999}', b'{"a":"\\ud800"}', b"\xef\xbb\xbf{}", b"[1,2", b"{} {}"]
    )
    return Case(_frame(body), True)


def _pipelined(rng: random.Random) -> Case:
    frames = b"".join(_valid_json(rng).payload for _ in range(rng.randrange(2, 5)))
    return Case(frames, True)


_KINDS: tuple[Callable[[random.Random], Case], ...] = (
    _valid_json,
    _truncated,
    _flipped,
    _noise,
    _oversized_header,
    _deep,
    _duplicate_key,
    _strict_breakers,
    _pipelined,
)


def cases(seed: int, count: int) -> Iterator[Case]:
    """`count` cases drawn from every kind above, reproducibly for `seed`."""
    rng = random.Random(seed)
    for _ in range(count):
        yield rng.choice(_KINDS)(rng)
