"""Checks a tool call's arguments against the very schema the tool advertises.

Why our own validator: the SDK checks arguments against a pydantic model generated from the
Python signature, which is not the schema a client is shown (it ignores `additionalProperties:
false`, bounds, patterns and enums) and words its errors in pydantic's terms, with URLs. This
walks the advertised schema dicts, so they are the one source of truth, and words each problem
for the model: the field as a JSON path, what it must be, the limit and what it got, e.g.
`limit: must be an integer from 1 to 50 (got 0)`. It knows exactly the keywords
`app.mcp.schema_rules` allows; `maxLength` counts UTF-8 bytes, as the descriptions say.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from core.errors import Violation
from core.gocompat.text import utf8_len
from core.messages.wording import count, number, too_large

_NOUNS = {
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "true or false",
    "array": "a list",
    "object": "an object",
}
_SHOWN_CHARS = 60


def argument_violations(schema: dict[str, Any], arguments: object) -> list[Violation]:
    """Every way `arguments` breaks `schema`, in field order; empty when they conform."""
    return list(_check(schema, arguments, ""))


def violations_text(subject: str, violations: list[Violation]) -> str:
    """One message listing every problem, so the model can fix them all in one retry."""
    lines = [f"{subject} is invalid ({count(len(violations), 'problem')}); fix all and retry:"]
    lines += [f"- {v.field}: {v.message}{_limit_note(v)}" for v in violations]
    return "\n".join(lines)


def _limit_note(violation: Violation) -> str:
    """The limit, unless the message already states it."""
    limit = violation.limit
    if limit is None or number(limit) in violation.message or str(limit) in violation.message:
        return ""
    return f" (limit {number(limit)})"


def _check(schema: dict[str, Any], value: object, path: str) -> Iterator[Violation]:
    kind = schema["type"]
    if not _is_type(kind, value):
        yield Violation(path or "arguments", f"must be {_expected(schema)} (got {_shown(value)})")
        return
    if kind == "object":
        assert isinstance(value, dict)
        yield from _check_object(schema, value, path)
    elif kind == "array":
        assert isinstance(value, list)
        yield from _check_array(schema, value, path)
    elif kind == "string":
        assert isinstance(value, str)
        yield from _check_string(schema, value, path)
    elif kind in ("integer", "number"):
        assert isinstance(value, int | float)
        yield from _check_number(schema, value, path)


def _check_object(schema: dict[str, Any], value: dict[Any, Any], path: str) -> Iterator[Violation]:
    """Fields in the schema's order, then the unknown ones."""
    properties: dict[str, Any] = schema["properties"]
    required = schema.get("required", [])
    for name, spec in properties.items():
        where = _join(path, name)
        if name not in value:
            if name in required:
                yield Violation(where, "is required")
        elif value[name] is None:
            yield Violation(where, "must not be null; omit the field instead")
        else:
            yield from _check(spec, value[name], where)
    if schema.get("additionalProperties", True) is False:
        accepted = ", ".join(properties)
        for name in value:
            if name not in properties:
                yield Violation(_join(path, str(name)), f"unknown field; accepted: {accepted}")


def _check_array(schema: dict[str, Any], value: list[Any], path: str) -> Iterator[Violation]:
    low, high = schema.get("minItems"), schema.get("maxItems")
    if (low is not None and len(value) < low) or (high is not None and len(value) > high):
        yield Violation(path, f"must have {_span(low, high)} items (got {len(value)})", high)
    for index, item in enumerate(value):
        yield from _check(schema["items"], item, f"{path}[{index}]")


def _check_string(schema: dict[str, Any], value: str, path: str) -> Iterator[Violation]:
    enum = schema.get("enum")
    if enum is not None and value not in enum:
        choices = ", ".join(repr(choice) for choice in enum)
        yield Violation(path, f"must be one of {choices} (got {_shown(value)})")
        return
    limit = schema.get("maxLength")
    if limit is not None and utf8_len(value) > limit:
        yield Violation(path, too_large(utf8_len(value), limit), limit)
        return
    pattern = schema.get("pattern")
    if pattern is not None and not _compiled(pattern).search(value):
        yield Violation(path, f"must match {pattern} (got {_shown(value)})")


def _check_number(schema: dict[str, Any], value: float, path: str) -> Iterator[Violation]:
    low, high = schema.get("minimum"), schema.get("maximum")
    if (
        not math.isfinite(value)
        or (low is not None and value < low)
        or (high is not None and value > high)
    ):
        yield Violation(path, f"must be {_expected(schema)} (got {_shown(value)})")


def _is_type(kind: str, value: object) -> bool:
    if kind == "integer":
        return _is_number(value) and float(value).is_integer()  # type: ignore[arg-type]
    if kind == "number":
        return _is_number(value)
    expected = {"string": str, "boolean": bool, "array": list, "object": dict}[kind]
    return isinstance(value, expected)


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _expected(schema: dict[str, Any]) -> str:
    """What the field must be, with its bounds: `an integer from 1 to 50`."""
    noun = _NOUNS[schema["type"]]
    low, high = schema.get("minimum"), schema.get("maximum")
    if low is not None and high is not None:
        return f"{noun} from {_number(low)} to {_number(high)}"
    if low is not None:
        return f"{noun} of at least {_number(low)}"
    if high is not None:
        return f"{noun} of at most {_number(high)}"
    return noun


def _span(low: int | None, high: int | None) -> str:
    if low is not None and high is not None:
        return f"{low} to {high}"
    return f"at least {low}" if high is None else f"at most {high}"


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def _shown(value: object) -> str:
    """The offending value as JSON would name it, long text cut short."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return _number(value) if math.isfinite(value) else str(value)
    if isinstance(value, str):
        return repr(value if len(value) <= _SHOWN_CHARS else value[:_SHOWN_CHARS] + "…")
    return "a list" if isinstance(value, list) else "an object"


def _join(path: str, name: str) -> str:
    shown = name if name and name.isprintable() and name.strip() == name else repr(name)
    return f"{path}.{shown}" if path else shown


@lru_cache(maxsize=32)
def _compiled(pattern: str) -> re.Pattern[str]:
    """The pattern as a client's ECMAScript engine reads it: a final `$` ends the text, where
    Python's `$` would also accept a trailing newline."""
    if pattern.endswith("$") and not pattern.endswith("\\$"):
        pattern = pattern[:-1] + r"\Z"
    return re.compile(pattern)
