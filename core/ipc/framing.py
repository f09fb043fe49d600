"""The socket's bytes: length-prefixed frames and the strict JSON inside them.

Why strict: the socket accepts input from any process of this user, so an unknown field, a
duplicate key, a NaN or trailing bytes are errors, never guesses, and a frame is refused by
its header before its body is read. The envelopes and methods inside a frame are
`core.ipc.protocol` and `core.ipc.methods`.
"""

from __future__ import annotations

import json
import math
import re
import struct
from collections.abc import Iterator
from typing import Any

from core.errors import ErrorCode, FrameTooLarge, ProtocolError

MAX_FRAME = 4 * 1024 * 1024
HEADER_SIZE = 4
MAX_DEPTH = 64
"""Deepest JSON nesting accepted; real messages nest five levels, hostile ones thousands."""
MAX_VALUES = 16_384
"""JSON values one frame may hold. A full proposal holds a small fraction of this; a hostile
frame of tiny values holds far more, and building them would hold the interpreter for long."""
_HEADER = struct.Struct(">I")
_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
"""Strict UTF-8 cannot carry a surrogate, so only a `\\uD800`-`\\uDFFF` escape can make one."""
_TOKEN = re.compile(rb'"(?:[^"\\]++|\\.)*+"|[,\[{]')
"""A whole string, or a character that adds a value: a separator or an opened container."""
_SHOWN_TEXT_MAX = 64
MAX_INT_DIGITS = 4300
"""Longest integer accepted, in digits (the interpreter's own default bound)."""


def _shown(text: str) -> str:
    """Quotes client-supplied text in a message without letting it grow the message."""
    if len(text) > _SHOWN_TEXT_MAX:
        text = text[:_SHOWN_TEXT_MAX] + "..."
    return json.dumps(text)


# --- framing -----------------------------------------------------------------------------


def encode_frame(obj: Any) -> bytes:
    """One frame: a 4-byte big-endian length, then the compact UTF-8 JSON body.

    Raises:
        FrameTooLarge: the body would exceed `MAX_FRAME`.
        ValueError: the value holds NaN, Infinity or a lone surrogate.
        TypeError: the value is not JSON-serializable.
    """
    text = json.dumps(obj, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    body = text.encode("utf-8")
    if len(body) > MAX_FRAME:
        raise FrameTooLarge(len(body), MAX_FRAME)
    return _HEADER.pack(len(body)) + body


class FrameDecoder:
    """Splits a byte stream into frame bodies, refusing an oversized frame from its header.

    Why incremental: sockets deliver arbitrary slices, and a hostile header announcing 4 GiB
    must be refused after 4 bytes, not after buffering what it promises. A decoder that raised
    `FrameTooLarge` stays failed: the stream has lost its framing and cannot be trusted.
    """

    def __init__(self, max_frame: int = MAX_FRAME) -> None:
        self._buffer = bytearray()
        self._offset = 0
        self._max_frame = max_frame
        self._failed_size: int | None = None

    @property
    def buffered(self) -> int:
        """Bytes held for a frame that has not completed yet."""
        return len(self._buffer) - self._offset

    def feed(self, data: bytes | bytearray | memoryview) -> Iterator[bytes]:
        """Appends `data` now and yields each complete body, oldest first.

        The bytes are buffered even if the caller stops iterating; unyielded bodies come out
        of the next call.

        Raises:
            FrameTooLarge: (while iterating) a header announced more than `max_frame` bytes.
        """
        if self._failed_size is not None:
            raise FrameTooLarge(self._failed_size, self._max_frame)
        if self._offset:
            del self._buffer[: self._offset]
            self._offset = 0
        self._buffer += data
        return self._drain()

    def _drain(self) -> Iterator[bytes]:
        buffer = self._buffer
        while len(buffer) - self._offset >= HEADER_SIZE:
            (size,) = _HEADER.unpack_from(buffer, self._offset)
            if size > self._max_frame:
                self._failed_size = size
                buffer.clear()
                self._offset = 0
                raise FrameTooLarge(size, self._max_frame)
            start = self._offset + HEADER_SIZE
            end = start + size
            if len(buffer) < end:
                return
            with memoryview(buffer) as view:
                body = bytes(view[start:end])
            self._offset = end
            yield body


# --- strict JSON -------------------------------------------------------------------------


class _DuplicateKeyError(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _finite_float(text: str) -> float:
    """Python reads 1e999 as infinity without consulting parse_constant; we refuse it."""
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"number {text[:_SHOWN_TEXT_MAX]} is out of range")
    return value


class _IntTooLong(ValueError):
    def __init__(self, digits: int) -> None:
        super().__init__(digits)
        self.digits = digits


def _bounded_int(text: str) -> int:
    """Refuses an integer longer than `MAX_INT_DIGITS` in our words, not the interpreter's."""
    digits = len(text) - text.startswith("-")
    if digits > MAX_INT_DIGITS:
        raise _IntTooLong(digits)
    return int(text)


def _unique_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKeyError(key)
            seen.add(key)
    return obj


def _check_value_count(body: bytes) -> None:
    """Refuses a body of more than `MAX_VALUES` values before anything is built from it.

    Counting separators and opened containers bounds the values from above. The byte counts
    run in C and settle every ordinary frame; only a frame over the bound is walked token by
    token (strings skipped whole), and the walk stops at the limit.
    """
    bound = body.count(b",") + body.count(b"[") + body.count(b"{") + 1
    if bound <= MAX_VALUES:
        return
    values = tokens = 1
    for match in _TOKEN.finditer(body):
        tokens += 1
        if body[match.start()] != 0x22:
            values += 1
        if values > MAX_VALUES or tokens > 3 * MAX_VALUES:
            raise ProtocolError(
                ErrorCode.PARSE_ERROR,
                f"JSON holds more than {MAX_VALUES} values",
                data={"limit": MAX_VALUES},
            )


def _check_tree(value: Any, *, strings: bool) -> None:
    """Refuses deep nesting and, when `strings` is set, lone surrogates (they cannot be
    written back as UTF-8)."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            if not strings:
                continue
            if _SURROGATE.search(item):
                raise ProtocolError(ErrorCode.PARSE_ERROR, "JSON string holds a lone surrogate")
        elif isinstance(item, dict | list):
            if depth >= MAX_DEPTH:
                raise _too_deep()
            children = [*item.keys(), *item.values()] if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)


def _too_deep() -> ProtocolError:
    return ProtocolError(
        ErrorCode.PARSE_ERROR,
        f"JSON nests deeper than {MAX_DEPTH} levels",
        data={"limit": MAX_DEPTH},
    )


def decode_json(body: bytes) -> Any:
    """Parses one JSON value strictly: UTF-8 only, no NaN/Infinity, no duplicate keys,
    nothing after the value, at most `MAX_VALUES` values.

    Raises:
        ProtocolError: code PARSE_ERROR, naming the duplicate key as the field.
    """
    _check_value_count(body)
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ProtocolError(
            ErrorCode.PARSE_ERROR, f"body is not valid UTF-8 (byte {exc.start})"
        ) from None
    if text.startswith("\ufeff"):
        raise ProtocolError(ErrorCode.PARSE_ERROR, "JSON starts with a byte order mark (U+FEFF)")
    try:
        value = json.loads(
            text,
            object_pairs_hook=_unique_object,
            parse_constant=_reject_constant,
            parse_float=_finite_float,
            parse_int=_bounded_int,
        )
    except json.JSONDecodeError as exc:
        if exc.msg == "Extra data":
            message = f"trailing data after the JSON value at character {exc.pos}"
        else:
            message = f"invalid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        raise ProtocolError(ErrorCode.PARSE_ERROR, message) from None
    except _DuplicateKeyError as exc:
        key = exc.key[:_SHOWN_TEXT_MAX]
        raise ProtocolError(
            ErrorCode.PARSE_ERROR, f"duplicate key {_shown(exc.key)}", field=key
        ) from None
    except RecursionError:
        raise _too_deep() from None
    except _IntTooLong as exc:
        raise ProtocolError(
            ErrorCode.PARSE_ERROR,
            f"integer has {exc.digits} digits; the limit is {MAX_INT_DIGITS}",
            data={"limit": MAX_INT_DIGITS},
        ) from None
    except ValueError as exc:
        raise ProtocolError(ErrorCode.PARSE_ERROR, f"invalid JSON: {exc}") from None
    _check_tree(value, strings=_SURROGATE_ESCAPE.search(body) is not None)
    return value
