"""JSON exactly as Go's encoding/json writes it, and strict reading as the reference reads it.

Why: record files, decision IDs and the profile's source hash are byte-compatible with the Go
reference implementation, so escaping, float formatting and indentation must match Go, not
Python's defaults.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from typing import Any

import msgspec

from core.errors import JournalDamaged

_encode_string: Callable[[str], str] = json.encoder.encode_basestring

_GO_HTML_ESCAPES = {
    "<": "\\u003c",
    ">": "\\u003e",
    "&": "\\u0026",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
}


def _go_string(value: str) -> str:
    encoded = _encode_string(go_valid_text(value))
    if any(ch in encoded for ch in _GO_HTML_ESCAPES):
        for raw, escaped in _GO_HTML_ESCAPES.items():
            encoded = encoded.replace(raw, escaped)
    return encoded


def go_valid_text(value: str) -> str:
    """Go has no lone surrogates: its decoder reads an unpaired surrogate escape as U+FFFD and
    its encoder writes invalid UTF-8 as U+FFFD."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return "".join("\ufffd" if 0xD800 <= ord(ch) <= 0xDFFF else ch for ch in value)
    return value


def go_float(value: float) -> str:
    """Formats a float64 as encoding/json does: shortest digits, 'e' only when tiny or huge."""
    if math.isnan(value) or math.isinf(value):
        raise ValueError(f"unsupported float value {value!r}")
    if value == 0:
        return "-0" if math.copysign(1.0, value) < 0 else "0"
    magnitude = abs(value)
    text = repr(value)
    if magnitude < 1e-6 or magnitude >= 1e21:
        mantissa, _, exponent = text.partition("e")
        if not exponent:
            mantissa, exponent = _to_exponent(text)
        sign = "-" if exponent.startswith("-") else "+"
        digits = exponent.lstrip("+-").lstrip("0") or "0"
        if len(digits) < 2 and sign == "+":
            digits = digits.rjust(2, "0")
        mantissa = mantissa.removesuffix(".0")
        return f"{mantissa}e{sign}{digits}"
    if "e" in text or "E" in text:
        return _expand_exponent(text)
    return text.removesuffix(".0")


def _to_exponent(text: str) -> tuple[str, str]:
    formatted = f"{float(text):e}"
    mantissa, _, exponent = formatted.partition("e")
    return mantissa.rstrip("0").rstrip("."), exponent


def _expand_exponent(text: str) -> str:
    """Turns Python's '1e-05' or '1.5e+16' into Go's fixed notation with the same digits."""
    negative = text.startswith("-")
    mantissa, _, exponent_text = text.lstrip("-").partition("e")
    exponent = int(exponent_text)
    whole, _, fraction = mantissa.partition(".")
    digits = whole + fraction
    point = len(whole) + exponent
    if point <= 0:
        result = "0." + "0" * (-point) + digits
    elif point >= len(digits):
        result = digits + "0" * (point - len(digits))
    else:
        result = digits[:point] + "." + digits[point:]
    return ("-" if negative else "") + result


def _encode(value: Any, indent: str | None, level: int) -> str:
    if isinstance(value, str):
        return _go_string(value)
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "null"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return go_float(value)
    if isinstance(value, dict):
        return _encode_object(value, indent, level)
    if isinstance(value, list | tuple):
        return _encode_array(value, indent, level)
    raise TypeError(f"cannot encode {type(value).__name__} as JSON")


def _encode_object(value: dict[str, Any], indent: str | None, level: int) -> str:
    if not value:
        return "{}"
    if indent is None:
        items = (f"{_go_string(k)}:{_encode(v, None, 0)}" for k, v in value.items())
        return "{" + ",".join(items) + "}"
    inner = "\n" + indent * (level + 1)
    items = (f"{_go_string(k)}: {_encode(v, indent, level + 1)}" for k, v in value.items())
    return "{" + inner + ("," + inner).join(items) + "\n" + indent * level + "}"


def _encode_array(value: list[Any] | tuple[Any, ...], indent: str | None, level: int) -> str:
    if not value:
        return "[]"
    if indent is None:
        return "[" + ",".join(_encode(v, None, 0) for v in value) + "]"
    inner = "\n" + indent * (level + 1)
    items = (_encode(v, indent, level + 1) for v in value)
    return "[" + inner + ("," + inner).join(items) + "\n" + indent * level + "]"


def dumps_compact(value: Any) -> str:
    """Go's json.Marshal output."""
    return _encode(value, None, 0)


def dumps_indented(value: Any) -> str:
    """Go's json.MarshalIndent(v, "", "  ") output plus the trailing newline the files carry."""
    return _encode(value, "  ", 0) + "\n"


_GO_ONLY_ESCAPES = ((b"<", b"\\u003c"), (b">", b"\\u003e"), (b"&", b"\\u0026"))
_GO_LINE_ESCAPES = (("\u2028".encode(), b"\\u2028"), ("\u2029".encode(), b"\\u2029"))
_LINE_LEAD = "\u2028".encode()[:1]
"""The lead byte of U+2028/U+2029: one memchr rules both out before slower 3-byte searches."""


def shortest_float_is_go(value: float) -> bool:
    """Whether Go writes this nonzero float as the C encoders do (Python's repr digits).

    Both write the shortest digits in fixed notation for non-integral values from 1e-4 to
    1e16; Go writes integral values without ".0" and tiny or huge ones in its own exponent
    form. Zero is not written at all (omit-empty), so it agrees too.
    """
    return value == 0 or (1e-4 <= abs(value) < 1e16 and not value.is_integer())


def go_html_escaped(data: bytes) -> bytes:
    """Go's HTML-safe escapes applied to JSON a C encoder wrote.

    In UTF-8 these bytes never occur inside another character, and in JSON only inside strings,
    so replacing them in the whole text escapes exactly the characters Go escapes.
    """
    for raw, escaped in _GO_ONLY_ESCAPES:
        if raw in data:
            data = data.replace(raw, escaped)
    if _LINE_LEAD in data:
        for raw, escaped in _GO_LINE_ESCAPES:
            if raw in data:
                data = data.replace(raw, escaped)
    return data


def dumps_indented_bytes(value: Any) -> bytes:
    """`dumps_indented` as UTF-8, written by msgspec in C when that gives the same bytes.

    Why: a large journal's profile is megabytes of JSON, which msgspec writes many times faster
    than the Python encoder (bench/CHANGES.md); exports and record files gain too. msgspec
    indents as Go's MarshalIndent does (empty containers stay `[]` and `{}`) and escapes control
    characters as Python's encoder does; Go's HTML-safe escapes are patched in. Values it would
    write differently (integral or tiny floats, lone surrogates, integers beyond 64 bits) take
    the Python encoder. A property test checks the equality.
    """
    if not _floats_written_alike(value):
        return dumps_indented(value).encode("utf-8")
    try:
        compact = _MSGSPEC.encode(value)
    except (msgspec.EncodeError, OverflowError, UnicodeEncodeError, TypeError):
        return dumps_indented(value).encode("utf-8")
    return go_html_escaped(msgspec.json.format(compact, indent=2)) + b"\n"


_MSGSPEC = msgspec.json.Encoder()


def _floats_written_alike(value: Any) -> bool:
    """Every float in value is one msgspec writes as Go does (see `shortest_float_is_go`)."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, dict):
            pending.extend(item.values())
        elif isinstance(item, list | tuple):
            if not all(type(element) is str for element in item):
                pending.extend(item)
        elif isinstance(item, float) and not (item != 0 and shortest_float_is_go(item)):
            return False
    return True


def _reject_constant(name: str) -> Any:
    raise ValueError(f"JSON constant {name} is not allowed")


_STRICT_DECODER = json.JSONDecoder(parse_constant=_reject_constant)
"""Built once: json.loads with any option builds a decoder per call, a cost on every record."""


def loads_strict(data: bytes | str, *, what: str) -> Any:
    """Parses one JSON value; NaN/Infinity and trailing data are errors naming `what`."""
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
        if text.startswith("\ufeff"):  # json.loads' own check, which the decoder lacks
            raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
        value = _STRICT_DECODER.decode(text)
    except UnicodeDecodeError as exc:
        raise JournalDamaged(f"parse {what}: invalid UTF-8 ({exc.reason})") from exc
    except json.JSONDecodeError as exc:
        if exc.msg == "Extra data":
            raise JournalDamaged(f"parse {what}: trailing data") from exc
        raise JournalDamaged(f"parse {what}: {exc.msg} at line {exc.lineno}") from exc
    except ValueError as exc:
        raise JournalDamaged(f"parse {what}: {exc}") from exc
    return _go_decoded(value) if _SURROGATE_ESCAPE.search(text) else value


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
"""Where Python's decoder may leave a lone surrogate (it pairs valid ones, as Go does)."""


def _go_decoded(value: Any) -> Any:
    """The value as Go's decoder reads it: lone surrogates (in keys too) become U+FFFD.

    Why: such text cannot be written as UTF-8, so a record holding one would fail wherever its
    text is encoded (the profile's facts cache did), and Go hashes and writes U+FFFD.
    """
    if isinstance(value, str):
        return go_valid_text(value)
    if isinstance(value, list):
        return [_go_decoded(item) for item in value]
    if isinstance(value, dict):
        return {go_valid_text(key): _go_decoded(item) for key, item in value.items()}
    return value
