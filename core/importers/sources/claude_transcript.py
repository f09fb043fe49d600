"""Reads Claude Code transcripts: AskUserQuestion calls joined to their results by tool_use_id.

Why so defensive: the transcript format is internal to Claude Code and changes between versions
(answers as strings or arrays, results with or without `toolUseResult`, new envelope fields).
Only the structure that matters is read (an assistant `tool_use` named AskUserQuestion, a user
`tool_result` with the same id, and the top-level `toolUseResult`); unknown fields are ignored,
and a line that cannot be read becomes a reported skip, never an exception. The human-readable
result text is never parsed.

The reader keeps its place per file (byte offset and questions still waiting for an answer), so
`--watch` reads only what was appended since the last pass.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.importers.source_file import bounded_lines, open_regular

TOOL_NAME = "AskUserQuestion"
_ASK_MARK = b'"AskUserQuestion"'
_HEAD_BYTES = 4096
"""A rewritten file is recognised by its first bytes (inode numbers are reused at once)."""
_RESULT_ID = re.compile(rb'"tool_use_id"\s*:\s*"([^"\\]+)"')


@dataclass(frozen=True, slots=True)
class LineMeta:
    """Envelope fields of one transcript line that a decision keeps."""

    session_id: str
    cwd: str
    timestamp: str
    sidechain: bool


@dataclass(frozen=True, slots=True)
class Asked:
    tool_use_id: str
    input: dict[str, Any]
    meta: LineMeta
    line: int


@dataclass(frozen=True, slots=True)
class Answered:
    """An AskUserQuestion call with its result; `result` is the raw `toolUseResult`."""

    asked: Asked
    result: object
    is_error: bool
    meta: LineMeta
    line: int


@dataclass(frozen=True, slots=True)
class Unreadable:
    line: int
    reason: str


@dataclass(frozen=True, slots=True)
class Unanswered:
    asked: Asked


Event = Answered | Unreadable | Unanswered


@dataclass(slots=True)
class FileCursor:
    """How far one transcript was read, and the questions still open at that point."""

    offset: int = 0
    line: int = 0
    inode: int = 0
    head: bytes = b""
    open_asks: dict[str, Asked] = field(default_factory=dict)


def _meta(value: dict[str, Any], fallback_session: str) -> LineMeta:
    def text(name: str) -> str:
        item = value.get(name)
        return item if isinstance(item, str) else ""

    return LineMeta(
        session_id=text("sessionId") or fallback_session,
        cwd=text("cwd"),
        timestamp=text("timestamp"),
        sidechain=value.get("isSidechain") is True,
    )


def _content(value: dict[str, Any]) -> list[Any]:
    message = value.get("message")
    if not isinstance(message, dict):
        return []
    content = message.get("content")
    return content if isinstance(content, list) else []


def read_events(path: Path, cursor: FileCursor, *, session: str, final: bool) -> Iterator[Event]:
    """Events from `cursor.offset` on; advances the cursor past every complete line read.

    Args:
        final: the last line may lack its newline (a finished file); when False (watching a
            live file) an unterminated line is left for the next pass, and questions still
            open stay in the cursor instead of being reported as unanswered.
    """
    with open_regular(path) as handle:
        info = os.fstat(handle.fileno())
        head = handle.read(_HEAD_BYTES)
        replaced = info.st_ino != cursor.inode or head[: len(cursor.head)] != cursor.head
        if replaced or info.st_size < cursor.offset:
            cursor.offset, cursor.line, cursor.inode = 0, 0, info.st_ino
            cursor.open_asks.clear()
        cursor.head = head
        handle.seek(cursor.offset)
        for raw, length, ended in bounded_lines(handle):
            if not ended and not final:
                break
            cursor.offset += length
            cursor.line += 1
            if raw is not None:  # a line over the limit holds no question a person answered
                yield from _line_events(raw, cursor, session)
    if final:
        for asked in cursor.open_asks.values():
            yield Unanswered(asked)
        cursor.open_asks.clear()


def _wanted(raw: bytes, cursor: FileCursor) -> bool:
    """Cheap prefilter: only question lines and results of open questions are parsed."""
    if _ASK_MARK in raw:
        return True
    return any(
        m.group(1).decode("utf-8", "replace") in cursor.open_asks for m in _RESULT_ID.finditer(raw)
    )


def _line_events(raw: bytes, cursor: FileCursor, session: str) -> Iterator[Event]:
    if not raw.strip() or not _wanted(raw, cursor):
        return
    try:
        value = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        yield Unreadable(cursor.line, "unreadable line (not JSON)")
        return
    if not isinstance(value, dict):
        yield Unreadable(cursor.line, "unreadable line (not a JSON object)")
        return
    meta = _meta(value, session)
    for item in _content(value):
        if not isinstance(item, dict):
            continue
        if item.get("type") == "tool_use" and item.get("name") == TOOL_NAME:
            use_id, given = item.get("id"), item.get("input")
            if isinstance(use_id, str) and isinstance(given, dict):
                cursor.open_asks[use_id] = Asked(use_id, given, meta, cursor.line)
            else:
                yield Unreadable(cursor.line, "AskUserQuestion call without an id or input")
        elif item.get("type") == "tool_result":
            asked = cursor.open_asks.pop(str(item.get("tool_use_id")), None)
            if asked is not None:
                result = value.get("toolUseResult")
                yield Answered(asked, result, item.get("is_error") is True, meta, cursor.line)
