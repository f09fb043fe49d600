"""String primitives with Go's semantics (TrimSpace, ToLower, Fields, EqualFold).

Why: IDs, fingerprints and dedupe rules must agree with the Go reference to the byte, and
Python's strip()/lower() differ from Go's on a few code points (U+001C-U+001F, final sigma, U+0130).
"""

from __future__ import annotations

import re

GO_SPACE = (
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
_FIELDS = re.compile(f"[{re.escape(GO_SPACE)}]+")
_NOT_SPACE = f"[^{re.escape(GO_SPACE)}]"
_COLLAPSED = re.compile(f"(?:{_NOT_SPACE}+(?: {_NOT_SPACE}+)*)?")
"""Text that collapse_spaces leaves as it is: words separated by single plain spaces."""


def go_trim(text: str) -> str:
    return text.strip(GO_SPACE)


def go_lower(text: str) -> str:
    """Simple (one-to-one) lowercase mapping, as Go's strings.ToLower."""
    if text.isascii():
        return text.lower()
    return "".join(_lower_char(ch) for ch in text)


def _lower_char(ch: str) -> str:
    if ch == "\u0130":
        return "i"
    lowered = ch.lower()
    return lowered if len(lowered) == 1 else ch


def collapse_spaces(text: str) -> str:
    """strings.Join(strings.Fields(s), " "): trims and folds every whitespace run to one space."""
    if _COLLAPSED.fullmatch(text):
        return text  # the common case, and far cheaper to confirm than to rebuild
    return " ".join(part for part in _FIELDS.split(text) if part)


_SEPARATOR = "\x00"


def fold_keys(items: list[str]) -> list[str]:
    """`go_lower(go_trim(item))` of each item, in one C pass for trimmed ASCII items.

    Why: derivation folds every decision ID of every group and the normal-form check folds
    every list of every record read; for ASCII text that `str.strip` leaves alone (it strips
    all of Go's ASCII spaces and more) folding is `str.lower`, done here on all items at once.
    """
    joined = _SEPARATOR.join(items)
    if joined.isascii() and list(map(str.strip, items)) == items:
        keys = joined.lower().split(_SEPARATOR)
        if len(keys) == len(items):  # no item held a separator of its own
            return keys
    return [go_lower(go_trim(item)) for item in items]


def equal_fold(left: str, right: str) -> bool:
    return left.casefold() == right.casefold()


def utf8_len(text: str) -> int:
    if text.isascii():
        return len(text)
    return len(text.encode("utf-8", "surrogatepass"))
