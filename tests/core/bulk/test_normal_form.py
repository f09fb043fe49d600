"""`core.bulk.normal_form` against `core.record.normalize`, which it stands in for.

A wrong True would let a bulk read keep a record the strict read would have changed, so
`is_normal` is checked on generated records (raw, and normalized once) and on the decoded view
of the same bytes; the list-at-once text tests are checked on text built from every kind of
space, NUL (their separator), case and non-ASCII letters.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from core.bulk.normal_form import all_collapsed, all_trimmed, folds_unchanged, is_normal
from core.bulk.record_view import plain_view
from core.gocompat.gotime import GoTime
from core.gocompat.text import collapse_spaces, go_trim
from core.record.models import DecisionRecord
from core.record.normalize import dedupe_fold, normalized
from core.record.summary import korean_summary
from tests.core.bulk.support.raw_records import base_raw, raw_records, records_of
from tests.core.support.go_text import ITEMS

NOW = GoTime(1_780_000_000_123_456_789)
_SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _lists(record: DecisionRecord) -> list[list[str]]:
    lists = [record.domains, record.languages, record.tags, record.evidence_refs]
    for option in record.options:
        lists += [option.pros, option.cons]
    return lists


def _refused_only_by_the_shortcut(record: DecisionRecord) -> bool:
    """The cases `is_normal` may answer False for a record `normalized` leaves alone: a list
    item holding NUL, or no summary when none can be written."""
    holds_nul = any("\x00" in item for items in _lists(record) for item in items)
    return holds_nul or (not record.summary_sentence and not korean_summary(record))


@_SETTINGS
@given(raw=raw_records(), normalize_first=st.booleans())
def test_is_normal_is_what_normalized_leaves_unchanged(
    raw: dict[str, Any], normalize_first: bool
) -> None:
    record = records_of(raw)
    if record is None:
        return
    if normalize_first:
        record = normalized(record, now=NOW)
    before = record.model_dump()
    unchanged = normalized(record, now=NOW) is record
    assert record.model_dump() == before
    if is_normal(record):
        assert unchanged
    elif unchanged:
        assert _refused_only_by_the_shortcut(record)


@_SETTINGS
@given(raw=raw_records())
def test_the_decoded_view_answers_as_the_record(raw: dict[str, Any]) -> None:
    """Where the bulk read asks it: a view whose timestamps are written as Go writes them (a
    view reads no other time text)."""
    record = records_of(raw)
    try:
        view = plain_view(json.dumps(raw).encode())
    except msgspec.DecodeError:
        return
    texts = (view.created_text, view.updated_text, view.deleted_text)
    times = (view.created_at, view.updated_at, view.deleted_at)
    unread = any(t is not None and v is None for t, v in zip(texts, times, strict=True))
    if record is None or unread:
        return
    assert is_normal(view) == is_normal(record)


def test_a_stored_record_is_normal() -> None:
    record = normalized(DecisionRecord.model_validate(base_raw()), now=NOW)
    assert is_normal(record)
    assert normalized(record, now=NOW) is record


@settings(max_examples=800, deadline=None)
@given(items=ITEMS)
@example(items=["a \x00b"])
@example(items=["a", " b"])
def test_all_trimmed_is_go_trim_of_each_item(items: list[str]) -> None:
    assert all_trimmed(items) == all(go_trim(item) == item for item in items)


@settings(max_examples=800, deadline=None)
@given(items=ITEMS)
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
@given(lists=st.lists(ITEMS, max_size=4))
@example(lists=[["a", "A"]])
@example(lists=[["a"], ["A"]])
@example(lists=[[" "]])
def test_folds_unchanged_is_dedupe_fold_of_each_list(lists: list[list[str]]) -> None:
    assert folds_unchanged(lists) == all(dedupe_fold(items) == items for items in lists)
