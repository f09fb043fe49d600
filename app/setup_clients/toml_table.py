"""Replacing one TOML table in Codex's `config.toml`, byte for byte everywhere else.

Why not a TOML library for writing: none ships with Python, and a round trip through one would
drop the user's comments and layout. We read with `tomllib`, write only our own table as text
(a header and simple `key = value` lines), splice it in place of the old one or append it, and
re-read the result to prove it parses and holds exactly what we meant.
"""

from __future__ import annotations

import json
import re
import tomllib
from typing import Any

from app.setup_clients.files import SetupError, Transform

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_HEADER = re.compile(r"^\s*\[\[?\s*(?P<name>[^\]]+?)\s*\]\]?\s*(#.*)?$")


def _key(name: str) -> str:
    return name if _BARE_KEY.fullmatch(name) else json.dumps(name)


def _value(value: Any) -> str:
    """TOML for the few value types we write; JSON escapes are valid TOML basic strings."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(_value(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(f"cannot write {type(value).__name__} as TOML")


def render_table(path: tuple[str, ...], values: dict[str, Any]) -> str:
    header = "[" + ".".join(_key(part) for part in path) + "]"
    lines = [header, *(f"{_key(k)} = {_value(v)}" for k, v in values.items())]
    return "\n".join(lines) + "\n"


def _split_key(text: str) -> tuple[str, ...]:
    """A header's dotted key, unquoting simple quoted parts."""
    parts = re.findall(r'"[^"]*"|\'[^\']*\'|[^.\s]+', text)
    return tuple(part[1:-1] if part[:1] in "\"'" else part for part in parts)


def _headers(lines: list[str]) -> list[tuple[int, tuple[str, ...]]]:
    """(line index, dotted key) of every table header outside multi-line strings."""
    found: list[tuple[int, tuple[str, ...]]] = []
    in_string: str | None = None
    for index, line in enumerate(lines):
        if in_string is None:
            match = _HEADER.match(line)
            if match:
                found.append((index, _split_key(match.group("name"))))
                continue
        for quote in ('"""', "'''"):
            if line.count(quote) % 2 == 1 and in_string in (None, quote):
                in_string = None if in_string == quote else quote
    return found


def _lookup(data: dict[str, Any], path: tuple[str, ...]) -> Any:
    value: Any = data
    for part in path:
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


def _parse(text: str, what: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SetupError(f"{what} is not valid TOML ({exc}); nothing was written") from exc


def _separator(text: str) -> str:
    if not text or text.endswith("\n\n"):
        return ""
    return "\n" if text.endswith("\n") else "\n\n"


def _splice(
    lines: list[str], headers: list[tuple[int, tuple[str, ...]]], ours: list[int], block: str
) -> str:
    """Removes each of our table's sections and puts `block` where the first one was.

    A section ends at the next header; blank lines and comments just before that header stay,
    since they usually introduce the next table.
    """
    starts = [i for i, _ in headers]
    drop: set[int] = set()
    for start in ours:
        later = [i for i in starts if i > start]
        end = later[0] if later else len(lines)
        last = start
        for index in range(start, end):
            stripped = lines[index].strip()
            if stripped and not stripped.startswith("#"):
                last = index
        drop.update(range(start, last + 1))
    out: list[str] = []
    for index, line in enumerate(lines):
        if index == ours[0]:
            out.append(block)
        if index not in drop:
            out.append(line)
    return "".join(out)


def upsert_table(path: tuple[str, ...], values: dict[str, Any], what: str) -> Transform:
    """A transform that makes `[path]` hold exactly `values` (its sub-tables are replaced)."""
    block = render_table(path, values)

    def transform(old: str | None) -> tuple[str, list[str]]:
        text = old or ""
        current = _lookup(_parse(text, what), path)
        if current == values:
            return text, []
        lines = text.splitlines(keepends=True)
        headers = _headers(lines)
        ours = [i for i, key in headers if key[: len(path)] == path]
        dotted = ".".join(path)
        if current is not None and not ours:
            raise SetupError(
                f"{what} defines {dotted} inline or with dotted keys; edit it by hand "
                "(see --print); nothing was written"
            )
        if ours:
            new = _splice(lines, headers, ours, block)
            change = f"updated [{dotted}]"
        else:
            new = text + _separator(text) + block
            change = f"added [{dotted}]"
        if _lookup(_parse(new, what), path) != values:
            raise SetupError(f"{what}: could not place [{dotted}] safely; nothing was written")
        return new, [change]

    return transform
