"""Counts agree with their nouns and carry thousands separators; lists read as English."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.messages.wording import count, join_words, noun, number, span, too_large, too_many


@pytest.mark.parametrize(
    ("value", "expected"),
    [(0, "0 decisions"), (1, "1 decision"), (2, "2 decisions"), (10_000, "10,000 decisions")],
)
def test_count_agrees(value: int, expected: str) -> None:
    assert count(value, "decision") == expected


def test_irregular_plural() -> None:
    assert count(1, "entry", "entries") == "1 entry"
    assert count(3, "entry", "entries") == "3 entries"


@given(st.integers(min_value=-(10**12), max_value=10**12))
def test_number_reads_back(value: int) -> None:
    text = number(value)
    assert int(text.replace(",", "")) == value
    assert all(len(group) == 3 for group in text.lstrip("-").split(",")[1:])


@pytest.mark.parametrize(
    ("words", "expected"),
    [([], ""), (["a"], "a"), (["a", "b"], "a and b"), (["a", "b", "c"], "a, b and c")],
)
def test_join_words(words: list[str], expected: str) -> None:
    assert join_words(words) == expected


def test_sizes_counts_and_spans_read_one_way() -> None:
    assert too_large(5000, 4096) == "is 5,000 bytes; the limit is 4,096 bytes"
    assert too_large(1, 1) == "is 1 byte; the limit is 1 byte"
    assert too_many(70, 64, "tag") == "has 70 tags; the limit is 64 tags"
    assert span(1, 160, "character") == "1 to 160 characters"
    assert span(2, 4) == "2 to 4"
    assert noun(1, "entry", "entries") == "entry" and noun(2, "entry", "entries") == "entries"
