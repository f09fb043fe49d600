"""Strict JSON reading as Go's decoder reads it: lone surrogate escapes become U+FFFD."""

from __future__ import annotations

import json
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from core.gocompat.gojson import loads_strict

# Any code point, lone surrogates included: json.dumps escapes them as `\udXXX`.
_TEXT = st.text(st.characters(min_codepoint=0, max_codepoint=0x10FFFF), max_size=12)
_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | _TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TEXT, inner, max_size=4),
    max_leaves=12,
)


def _go_read(value: object) -> object:
    """What Go's decoder gives for the JSON of `value`: every lone half replaced in the text."""
    return json.loads(re.sub("[\ud800-\udfff]", "\ufffd", json.dumps(value, ensure_ascii=False)))


@settings(max_examples=400, deadline=None)
@given(_VALUES)
def test_every_string_read_is_valid_utf8(value: object) -> None:
    read = loads_strict(json.dumps(value).encode("ascii"), what="value")
    assert read == _go_read(value)
    json.dumps(read, ensure_ascii=False).encode("utf-8")  # raises on any lone surrogate


def test_pairs_stay_one_character_and_lone_halves_become_replacement_characters() -> None:
    data = b'{"k\\udc00": ["\\ud83d\\ude00", "a\\ud800b", "\\uDBFF", "\\\\ud800"]}'
    assert loads_strict(data, what="value") == {
        "k\ufffd": ["\U0001f600", "a\ufffdb", "\ufffd", "\\ud800"]
    }
