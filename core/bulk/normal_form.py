"""Whether a stored record is already normal, decided in a few C-level passes.

Faster variant of `core.record.normalize.normalized` for bulk reads: `is_normal(record)` is
True only when `normalized(record)` would return the record itself, and False for a normal
record only in one rare case (a list item holding NUL, the separator of the joined scans), which
the caller then reads the strict way. A bulk read keeps a decoded view only when normalizing
it would change nothing, and a view is no pydantic model, so the question is answered on the
view's fields: the strings are gathered and each group is tested at once instead of being
normalized and compared one by one. `tests/core/bulk/test_normal_form.py` holds the two equal.
"""

from __future__ import annotations

import re
from itertools import repeat
from operator import attrgetter

from core.gocompat.text import GO_SPACE, fold_keys
from core.record.fields import rule
from core.record.normalize import (
    LOWERED,
    OPTION_TRIMMED,
    PROVENANCE_TRIMMED,
    REJECTION_TRIMMED,
    TRIMMED_SCALARS,
)
from core.record.shape import RecordShape

_scalar_values = attrgetter(*TRIMMED_SCALARS)
_option_texts = attrgetter(*OPTION_TRIMMED)
_rejection_texts = attrgetter(*REJECTION_TRIMMED)
_provenance_texts = attrgetter(*PROVENANCE_TRIMMED)
_lowered_values = attrgetter(*LOWERED)
_SEPARATOR = "\x00"
_SPACE_BUT_SPACE = re.compile(f"[{re.escape(GO_SPACE.replace(' ', ''))}]")


def is_normal(record: RecordShape) -> bool:
    """True only when `normalized` would change nothing (see the module docstring)."""
    if not (
        record.schema_version != 0
        and record.revision > 0
        and record.created_at is not None
        and record.updated_at is not None
        and record.summary_sentence
        and record.status  # an empty status becomes "completed"
        and len(record.evidence_refs) <= rule("evidence_refs").most
    ):
        return False
    trimmed = [*_scalar_values(record), *_provenance_texts(record.provenance)]
    collapsed = list(record.evidence_refs)  # each collapse_list item must be collapse-stable
    folded = [record.domains, record.languages, record.tags, record.evidence_refs]
    previous_order = 1  # orders must be positive and never decrease (sorted keeps the list)
    details_max = rule("option.details").most
    for option in record.options:
        if option.order < previous_order:
            return False
        previous_order = option.order
        pros, cons = option.pros, option.cons
        if len(pros) > details_max or len(cons) > details_max:
            return False
        trimmed += _option_texts(option)
        collapsed += pros
        collapsed += cons
        folded += (pros, cons)
    for rejection in record.rejected_reasons:
        trimmed += _rejection_texts(rejection)
    lowered = list(_lowered_values(record))
    return (
        all_trimmed(trimmed)
        and all_collapsed(collapsed)
        and fold_keys(lowered) == lowered
        and folds_unchanged(folded)
    )


def all_trimmed(items: list[str]) -> bool:
    """Faster variant of `all(go_trim(item) == item for item in items)`: one C-level pass."""
    return list(map(str.strip, items, repeat(GO_SPACE))) == items


def all_collapsed(items: list[str]) -> bool:
    """Faster variant of `all(collapse_spaces(item) == item for item in items)`; it may also
    answer False for collapsed items holding NUL.

    An item is collapsed when it holds no whitespace but single spaces between other
    characters. Joined with NUL (not whitespace), every test below is a C-level scan: a space
    next to a separator or an end is an item's leading or trailing space.
    """
    joined = _SEPARATOR.join(items)
    return not (
        "  " in joined
        or " \x00" in joined
        or "\x00 " in joined
        or joined.startswith(" ")
        or joined.endswith(" ")
        or _SPACE_BUT_SPACE.search(joined)
    )


def folds_unchanged(lists: list[list[str]]) -> bool:
    """Faster variant of `dedupe_fold(items) == items` for each list: no blank item and no two
    items of one list equal once folded; all lists are folded in one pass."""
    keys = fold_keys([item for items in lists for item in items])
    if "" in keys:
        return False
    start = 0
    for items in lists:
        end = start + len(items)
        if end - start > 1 and len(set(keys[start:end])) != end - start:
            return False
        start = end
    return True
