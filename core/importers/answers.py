"""Answer values as sources store them, matched to the offered option labels.

Why shared: Claude Code transcripts and the owner-decision ledger both store an answer as a
label, free "Other" text, a list (multi-select) or a ", "-joined string, and both must decide
the same way which option was chosen, so an answer imports identically from either source.
"""

from __future__ import annotations

from collections.abc import Sequence

from core.gocompat.text import collapse_spaces, go_trim
from core.outcomes.verdict import strip_recommended


def _fold(text: str) -> str:
    return collapse_spaces(text).casefold()


def label_index(part: str, labels: Sequence[str]) -> int | None:
    folded = _fold(part)
    for index, label in enumerate(labels):
        if folded in (_fold(label), _fold(strip_recommended(label))):
            return index
    return None


def answer_parts(value: object, labels: Sequence[str], multi: bool) -> list[str]:
    """Answer values as a list: arrays as given; a multi-select string split on ", " when
    every piece is a listed label (a label may itself contain a comma)."""
    if isinstance(value, list):
        return [go_trim(str(v)) for v in value if go_trim(str(v))]
    if not isinstance(value, str) or not go_trim(value):
        return []
    if multi and ", " in value:
        pieces = [go_trim(p) for p in value.split(", ")]
        if all(label_index(p, labels) is not None for p in pieces):
            return pieces
    return [go_trim(value)]


def selection(parts: list[str], labels: Sequence[str]) -> tuple[int | None, str, tuple[int, ...]]:
    """(chosen option, custom text, options inside a multi-part custom answer)."""
    indexes = [label_index(p, labels) for p in parts]
    if len(parts) == 1 and indexes[0] is not None:
        return indexes[0], "", ()
    also = tuple(i for i in indexes if i is not None)
    return None, ", ".join(parts), also
