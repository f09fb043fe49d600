"""Chooses the importer for a source the user did not label with `--from`.

Why by content and not by name alone: `decisions.md` may be an ADR or a log, and a `.jsonl`
file may be a Claude transcript, a goal journal or a learning journal. Only the first lines of
a few files are read, so detection stays instant on a large folder.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from core.errors import UnknownSource
from core.importers.markdown import tables
from core.importers.source_file import is_regular_file
from core.importers.sources.madr_parse import front_matter

_SQLITE_MAGIC = b"SQLite format 3\x00"
_ADR_HEADINGS = ("## considered options", "## decision outcome", "## status", "## decision\n")
_SAMPLE_FILES = 20
_SAMPLE_LINES = 20
_SAMPLE_BYTES = 200_000


def _json_lines(path: Path) -> Iterator[dict[str, Any]]:
    try:
        with open(path, "rb") as handle:
            for _, raw in zip(range(_SAMPLE_LINES), handle, strict=False):
                try:
                    value = json.loads(raw)
                except ValueError:
                    continue
                if isinstance(value, dict):
                    yield value
    except OSError:
        return


def sniff_jsonl(path: Path) -> str | None:
    for value in _json_lines(path):
        if "type" in value and ({"sessionId", "message", "uuid"} & set(value)):
            return "claude-code"
        if "decision" in value and ({"why", "evidence", "reason"} & set(value)):
            return "goal-jsonl"
        if "ts" in value and ({"agent", "outcome", "signals", "task"} & set(value)):
            return "memory-journal"
    return None


def sniff_markdown(path: Path) -> str | None:
    try:
        with open(path, "rb") as handle:
            text = handle.read(_SAMPLE_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return None
    meta, body = front_matter(text)
    lowered = body.casefold()
    if "status" in meta or any(h in lowered for h in _ADR_HEADINGS[:2]):
        return "madr"
    for table in tables(text):
        if table.column("decision", "change") is not None:
            return "decisions-md"
    if all(h in lowered for h in _ADR_HEADINGS[2:]):
        return "madr"
    return None


def _walk(source: Path) -> Iterator[Path]:
    """Regular files only: a FIFO in the folder would hang the sniffing that opens it."""
    for directory, _dirs, files in os.walk(source, followlinks=False):
        for name in sorted(files):
            path = Path(directory) / name
            if is_regular_file(path):
                yield path


def detect_kind(source: Path) -> str:
    """The importer kind for `source`.

    Raises:
        UnknownSource: nothing recognisable, or the source does not exist.
    """
    if not source.exists():
        raise UnknownSource(f"{source} does not exist")
    if source.is_file():
        kind = _detect_file(source)
    elif (source / "records").is_dir():
        kind = "kernforge"
    elif source.name == ".claude" or (source / "projects").is_dir():
        kind = "claude-code"
    else:
        kind = _detect_folder(source)
    if kind is None:
        raise UnknownSource(f"cannot tell what kind of source {source} is; name it with --from")
    return kind


def _detect_file(path: Path) -> str | None:
    suffix = path.suffix.casefold()
    if suffix in (".jsonl", ".ndjson"):
        return sniff_jsonl(path)
    if suffix in (".md", ".markdown"):
        return sniff_markdown(path)
    try:
        with open(path, "rb") as handle:
            head = handle.read(64)
    except OSError:
        return None
    if head.startswith(_SQLITE_MAGIC):
        return "decider"
    if head.lstrip()[:1] == b"[":
        return "json"
    return None


def _detect_folder(source: Path) -> str | None:
    votes: dict[str, int] = {}
    seen = 0
    for path in _walk(source):
        if path.suffix.casefold() not in (".md", ".jsonl", ".ndjson"):
            continue
        kind = _detect_file(path)
        if kind is not None:
            votes[kind] = votes.get(kind, 0) + 1
        seen += 1
        if seen >= _SAMPLE_FILES:
            break
    return max(votes, key=lambda k: votes[k]) if votes else None
