"""JSON exactly as Go's encoding/json writes it, and strict reading as the reference reads it.

Why: record files, decision IDs and the profile's source hash are byte-compatible with the Go
reference implementation, so escaping, float formatting and indentation must match Go, not
Python's defaults.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

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
    encoded = _encode_string(_replace_surrogates(value))
    if any(ch in encoded for ch in _GO_HTML_ESCAPES):
        for raw, escaped in _GO_HTML_ESCAPES.items():
            encoded = encoded.replace(raw, escaped)
    return encoded


def _replace_surrogates(value: str) -> str:
    """Go writes invalid UTF-8 (here: lone surrogates) as U+FFFD."""
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
        return _STRICT_DECODER.decode(text)
    except UnicodeDecodeError as exc:
        raise JournalDamaged(f"parse {what}: invalid UTF-8 ({exc.reason})") from exc
    except json.JSONDecodeError as exc:
        if exc.msg == "Extra data":
            raise JournalDamaged(f"parse {what}: trailing data") from exc
        raise JournalDamaged(f"parse {what}: {exc.msg} at line {exc.lineno}") from exc
    except ValueError as exc:
        raise JournalDamaged(f"parse {what}: {exc}") from exc
