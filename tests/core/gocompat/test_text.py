"""The list-at-once text helpers against their one-item definitions.

`all_trimmed`, `all_collapsed`, `fold_keys` and `all_valid_decision_ids` decide for a whole
list in a few C calls what `go_trim`, `collapse_spaces`, `go_lower(go_trim(...))` and the id
pattern decide per item. A wrong True would let a record that is not normal pass as normal (or
an invalid id into a profile), so they are checked here on text built from every kind of
space, NUL (their separator), case and non-ASCII letters.
"""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from core.gocompat.text import (
    GO_SPACE,
    all_collapsed,
    all_trimmed,
    collapse_spaces,
    fold_keys,
    go_lower,
    go_trim,
)
from core.record.validation import all_valid_decision_ids, is_valid_decision_id

_PIECES = st.sampled_from(
    [*GO_SPACE, "\x00", "\x1c", "\x1f", "a", "B", "z9", "İ", "ß", "Σ", "é", "-", "_", "  "]
)
_ITEM = st.lists(_PIECES | st.text(max_size=3), max_size=6).map("".join)
_ITEMS = st.lists(_ITEM, max_size=6)


@settings(max_examples=800, deadline=None)
@given(items=_ITEMS)
@example(items=["a \x00b"])
@example(items=["a", " b"])
def test_all_trimmed_is_go_trim_of_each_item(items: list[str]) -> None:
    assert all_trimmed(items) == all(go_trim(item) == item for item in items)


@settings(max_examples=800, deadline=None)
@given(items=_ITEMS)
@example(items=["a b", "c  d"])
@example(items=["a\u3000b"])
def test_all_collapsed_never_claims_what_collapse_spaces_denies(items: list[str]) -> None:
    """It may answer False for a collapsed list holding NUL (the caller then checks the slow
    way), never True for a list that `collapse_spaces` would change."""
    expected = all(collapse_spaces(item) == item for item in items)
    if all_collapsed(items):
        assert expected
    elif not any("\x00" in item for item in items):
        assert not expected


@settings(max_examples=800, deadline=None)
@given(items=_ITEMS)
@example(items=["", "A", "a\x00b"])
@example(items=["İ", "ABC", " x"])
def test_fold_keys_folds_each_item_as_go_does(items: list[str]) -> None:
    assert fold_keys(items) == [go_lower(go_trim(item)) for item in items]


_ID_PIECES = st.sampled_from(["a", "Z", "9", ".", "..", "-", "_", "\n", " ", "é", "x" * 80])
_IDS = st.sets(st.lists(_ID_PIECES, max_size=4).map("".join), max_size=6)


@settings(max_examples=800, deadline=None)
@given(ids=_IDS)
@example(ids={"a.", ".b"})  # two dots meet only across the ids
@example(ids={"a..b"})
@example(ids={"."})
@example(ids={"x" * 161})
@example(ids={"decision-1\n"})
def test_all_valid_decision_ids_is_the_pattern_of_each_id(ids: set[str]) -> None:
    assert all_valid_decision_ids(ids) == all(map(is_valid_decision_id, ids))
