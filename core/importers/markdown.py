"""The little Markdown the importers need: GFM tables, headings, sections and bullet items.

Why not a Markdown library: decision logs and ADRs use a small, regular subset, and the table
rules that matter (escaped pipes, delimiter rows, code fences that are not tables) are a few
lines; a full parser would add a dependency for the same result.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_DELIMITER_CELL = re.compile(r"^\s*:?-{1,}:?\s*$")
_BULLET = re.compile(r"^\s*(?:[*+-]|\d+[.)])\s+(.*)$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_EMPHASIS = re.compile(r"(\*\*|__)")
_CODE_SPAN = re.compile(r"(`+)(.*?)\1")
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
"""CommonMark's backslash escapes: a backslash before ASCII punctuation stands for it."""


def split_row(line: str) -> list[str]:
    """Cells of a table row: outer pipes dropped, `\\|` kept as a literal pipe, cells trimmed."""
    text = line.strip()
    if text.startswith("|"):
        text = text[1:]
    if text.endswith("|") and not text.endswith("\\|"):
        text = text[:-1]
    cells, current, escaped = [], [], False
    for ch in text:
        if escaped:
            current.append(ch if ch == "|" else "\\" + ch)
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch == "|":
            cells.append("".join(current).strip())
            current = []
        else:
            current.append(ch)
    if escaped:
        current.append("\\")
    cells.append("".join(current).strip())
    return cells


@dataclass(slots=True)
class Table:
    """One table with the heading it sits under; `rows` pair a 1-based line with its cells."""

    section: str
    header: list[str]
    rows: list[tuple[int, list[str]]] = field(default_factory=list)
    line: int = 0

    def column(self, *names: str) -> int | None:
        """The first column whose header folds to one of `names`."""
        folded = [plain(h).casefold() for h in self.header]
        for name in names:
            if name in folded:
                return folded.index(name)
        return None


def _is_delimiter(line: str) -> bool:
    cells = split_row(line)
    return "|" in line and bool(cells) and all(_DELIMITER_CELL.match(c) for c in cells)


def tables(text: str) -> list[Table]:
    """Every GFM table outside code fences, in document order."""
    lines = text.splitlines()
    found: list[Table] = []
    section, in_fence, index = "", False, 0
    while index < len(lines):
        line = lines[index]
        if _FENCE.match(line):
            in_fence = not in_fence
        elif not in_fence:
            heading = _HEADING.match(line)
            if heading:
                section = plain(heading.group(2))
            elif "|" in line and index + 1 < len(lines) and _is_delimiter(lines[index + 1]):
                table = Table(section, split_row(line), line=index + 1)
                index += 2
                while index < len(lines) and "|" in lines[index] and lines[index].strip():
                    table.rows.append((index + 1, split_row(lines[index])))
                    index += 1
                found.append(table)
                continue
        index += 1
    return found


def plain(text: str) -> str:
    """Inline Markdown reduced to its text: links to their label, bold marks off, backslash
    escapes resolved (`\\$` is `$`); code spans are kept exactly as written."""
    pieces = []
    last = 0
    for span in _CODE_SPAN.finditer(text):
        pieces.append(_plain_prose(text[last : span.start()]))
        pieces.append(span.group(0))
        last = span.end()
    pieces.append(_plain_prose(text[last:]))
    return "".join(pieces).strip()


def _plain_prose(text: str) -> str:
    return _ESCAPE.sub(r"\1", _EMPHASIS.sub("", _LINK.sub(r"\1", text)))


@dataclass(slots=True)
class Section:
    level: int
    title: str
    lines: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "\n".join(self.lines).strip()

    def bullets(self) -> list[str]:
        """Top-level list items, continuation lines joined to their item; lines inside code
        fences are examples, not items."""
        items: list[str] = []
        in_fence = False
        for line in self.lines:
            if _FENCE.match(line):
                in_fence = not in_fence
                continue
            if in_fence:
                continue
            match = _BULLET.match(line)
            if match and (len(line) - len(line.lstrip())) < 2:
                items.append(match.group(1).strip())
            elif items and line.strip() and line[:1].isspace():
                items[-1] += " " + line.strip()
        return items


def sections(text: str) -> list[Section]:
    """The body split at headings (outside code fences); text before the first heading is
    a level-0 section with an empty title."""
    found = [Section(0, "")]
    in_fence = False
    for line in text.splitlines():
        if _FENCE.match(line):
            in_fence = not in_fence
        heading = None if in_fence else _HEADING.match(line)
        if heading:
            found.append(Section(len(heading.group(1)), plain(heading.group(2))))
        else:
            found[-1].lines.append(line)
    return found
