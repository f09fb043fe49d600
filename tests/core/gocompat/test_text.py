"""`fold_keys` against its one-item definition.

It folds a whole list in a few C calls as `go_lower(go_trim(...))` folds each item; it is
checked here on text built from every kind of space, NUL (its separator), case and non-ASCII
letters. The normal form's list-at-once tests are checked in tests/core/bulk.
"""

from __future__ import annotations

from hypothesis import example, given, settings

from core.gocompat.text import fold_keys, go_lower, go_trim
from tests.core.support.go_text import ITEMS


@settings(max_examples=800, deadline=None)
@given(items=ITEMS)
@example(items=["", "A", "a\x00b"])
@example(items=["İ", "ABC", " x"])
def test_fold_keys_folds_each_item_as_go_does(items: list[str]) -> None:
    assert fold_keys(items) == [go_lower(go_trim(item)) for item in items]
