"""Strict JSON reading as Go's decoder reads it: lone surrogate escapes become U+FFFD; otherwise
as `json.loads` with NaN and Infinity refused (the step-by-step model below)."""

from __future__ import annotations

import json
import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from core.errors import JournalDamaged
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


def _reject_constant(name: str) -> Any:
    raise ValueError(f"JSON constant {name} is not allowed")


def reference_loads(data: bytes | str, *, what: str) -> Any:
    """json.loads with its options, building a decoder per call; a lone surrogate it leaves
    becomes U+FFFD, as Go's decoder reads it (replaced in the value's own JSON text)."""
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
        value = json.loads(text, parse_constant=_reject_constant)
        written = json.dumps(value, ensure_ascii=False)
        return json.loads(re.sub("[\ud800-\udfff]", "\ufffd", written))
    except UnicodeDecodeError as exc:
        raise JournalDamaged(f"parse {what}: invalid UTF-8 ({exc.reason})") from exc
    except json.JSONDecodeError as exc:
        if exc.msg == "Extra data":
            raise JournalDamaged(f"parse {what}: trailing data") from exc
        raise JournalDamaged(f"parse {what}: {exc.msg} at line {exc.lineno}") from exc
    except ValueError as exc:
        raise JournalDamaged(f"parse {what}: {exc}") from exc


_JSON_PIECES = st.sampled_from(
    [
        *("\ufeff", "{", "}", "[", "]", '"a"', ":", ",", "NaN", "-Infinity", "1e999", " ", "\n"),
        *("x", '"\\ud800"', '"\\udc00x"', '"\\ud83d\\ude00"', '"\\uDBFF\\u0041"'),
    ]
)


@settings(max_examples=500, deadline=None)
@given(
    text=st.lists(_JSON_PIECES | st.text(max_size=4), max_size=8).map("".join),
    as_bytes=st.booleans(),
    prefix=st.sampled_from([b"", b"\xef\xbb\xbf", b"\xff"]),
)
def test_strict_json_matches_the_reference(text: str, as_bytes: bool, prefix: bytes) -> None:
    data: bytes | str = prefix + text.encode() if as_bytes else text

    def outcome(loads: Any) -> tuple[Any, ...]:
        try:
            return ("ok", repr(loads(data, what="x")))
        except JournalDamaged as exc:
            return (type(exc), str(exc))

    assert outcome(loads_strict) == outcome(reference_loads)
