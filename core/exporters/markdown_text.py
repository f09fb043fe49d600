"""Record text made safe for Markdown: one line, no raw HTML, no accidental block structure.

Why: decision text comes from an agent and a user; a stray newline followed by `## ` or `---`
would forge headings or front matter in an exported ADR, and `|` would split a table cell.
Inline emphasis characters are left alone so ordinary text reads as written.
"""

from __future__ import annotations

import re
import unicodedata

from core.gocompat.text import collapse_spaces
from core.record.redaction import redact_text

_BLOCK_START = re.compile(r"^(#{1,6}(?=\s|$)|[>*+=-]|\d+[.)](?=\s|$))")


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def one_line(text: str) -> str:
    """Control characters become spaces too: some tools split lines at U+001C..U+001E."""
    return collapse_spaces(_CONTROL.sub(" ", text))


def md_text(text: str) -> str:
    """One line of inline Markdown that renders as the literal text."""
    line = one_line(text).replace("\\", "\\\\").replace("<", "&lt;")
    return _BLOCK_START.sub(lambda m: "\\" + m.group(0), line)


def md_cell(text: str) -> str:
    """md_text for a table cell: `|` is escaped so it cannot end the cell."""
    return md_text(text).replace("|", "\\|")


def name_slug(text: str, limit: int = 60) -> str:
    """`slug` for a derived name (an export's file name): from redacted text, and without a word
    that looks generated (letters mixed with digits, eight characters or more; or longer than
    24), so a secret the redactor missed still never becomes a file name."""
    words = _TOKEN.sub(" ", redact_text(text)[0]).split()
    kept = [word for word in words if not _looks_generated(slug(word, limit=200))]
    return slug(" ".join(kept), limit)


_TOKEN = re.compile(r"\[REDACTED[^\]]*\]")


def _looks_generated(word: str) -> bool:
    parts = word.split("-")
    return any(
        len(part) > 24
        or (len(part) >= 8 and any(c.isdigit() for c in part) and any(c.isalpha() for c in part))
        for part in parts
    )


def slug(text: str, limit: int = 60) -> str:
    """title-with-dashes: ASCII letters and digits, accents folded, at most `limit` long."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    words = re.findall(r"[a-z0-9]+", ascii_text.lower())
    out = ""
    for word in words:
        candidate = f"{out}-{word}" if out else word
        if len(candidate) > limit:
            break
        out = candidate
    return out or (words[0][:limit] if words else "")
