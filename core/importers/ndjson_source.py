"""Line-by-line reading of JSONL/NDJSON source files, tolerant of torn and foreign lines.

Why shared: goal journals and memory journals are both append-only logs written by other
programs, possibly while we read them. A line that does not parse is reported as a skip with
its place, never an error that stops the file, and each entry's key comes from its content, so
it stays the same however the file grows.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core import limits
from core.gocompat.gotime import GoTime
from core.importers.source_file import bounded_lines
from core.messages.wording import count

TORN = "torn or unreadable line (not a JSON object)"
OVER_LONG = f"line over {count(limits.IMPORT_LINE_MAX, 'byte')}, the limit of one imported line"


@dataclass(frozen=True, slots=True)
class Line:
    path: Path
    number: int
    value: dict[str, Any] | None
    digest: str
    problem: str = TORN
    """Why `value` is None."""

    @property
    def where(self) -> str:
        return f"{self.path}:{self.number}"


def jsonl_files(source: Path, suffixes: tuple[str, ...] = (".jsonl", ".ndjson")) -> list[Path]:
    if source.is_file():
        return [source]
    return sorted(
        p for p in source.rglob("*") if p.suffix in suffixes and p.is_file() and not p.is_symlink()
    )


def read_lines(path: Path) -> Iterator[Line]:
    """Every non-blank line; `value` is None for a line that is not a JSON object.

    A line over the import's line limit is one too (`problem` says so), read past unheld.
    """
    with open(path, "rb") as handle:
        for number, (raw, length, _) in enumerate(bounded_lines(handle), start=1):
            if raw is None:
                yield Line(path, number, None, f"over-long-{length}", OVER_LONG)
                continue
            if not raw.strip():
                continue
            digest = hashlib.sha256(raw.strip()).hexdigest()
            try:
                value = json.loads(raw)
            except (ValueError, UnicodeDecodeError):
                value = None
            yield Line(path, number, value if isinstance(value, dict) else None, digest)


def first_text(value: dict[str, Any], *names: str) -> str:
    """The first of `names` holding a non-blank string (or a number, as text)."""
    for name in names:
        item = value.get(name)
        if isinstance(item, str) and item.strip():
            return item.strip()
        if isinstance(item, int | float) and not isinstance(item, bool):
            return str(item)
    return ""


def parse_when(value: dict[str, Any], *names: str) -> GoTime | None:
    """An RFC 3339 time from the first field that holds one; milliseconds since the epoch too."""
    for name in names:
        item = value.get(name)
        if isinstance(item, str):
            try:
                return GoTime.parse(item.strip())
            except ValueError:
                continue
        if isinstance(item, int) and not isinstance(item, bool) and item > 10**11:
            return GoTime(item * 1_000_000)
    return None
