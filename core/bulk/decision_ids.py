"""Whether every text of a collection is a valid decision id, in one regex pass over them all.

Faster variant of `all(map(core.record.validation.is_valid_decision_id, ids))` for the profile's
validation, which asks it of every rule's supporting and contradicting ids (thousands per
rebuild of a large journal): the ids are joined by a character no id may hold and matched once,
in C, instead of one `fullmatch` call each. An id holding the separator itself makes the count
of separators wrong, and is then refused as it must be. `tests/core/bulk/test_decision_ids.py`
holds the two equal.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from core.record.fields import ID_CHARACTERS, rule

_SEPARATOR = "\n"
"""Outside `ID_CHARACTERS`, so it never ends or starts an id the pattern accepts."""
_ONE = f"[{ID_CHARACTERS}]{{1,{rule('id').most}}}"
_ALL = re.compile(f"{_ONE}(?:{_SEPARATOR}{_ONE})*")


def all_valid_decision_ids(ids: Collection[str]) -> bool:
    """`all(map(is_valid_decision_id, ids))`: 1 to 160 id characters each, none "." and none
    holding "..", in one pass."""
    if not ids:
        return True
    joined = _SEPARATOR.join(ids)
    return (
        joined.count(_SEPARATOR) == len(ids) - 1
        and ".." not in joined
        and _ALL.fullmatch(joined) is not None
        and "." not in ids
    )
