"""Bounds that keep the socket cheap under abuse: the value budget and error replies that fit.

A hostile frame must cost a few milliseconds to refuse, never seconds, and no error reply may
outgrow the frame cap, however many violations a proposal holds.
"""

from __future__ import annotations

import json
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.capture.proposal import parse_proposal
from core.errors import (
    MESSAGE_MAX,
    ErrorCode,
    InvalidDecision,
    ProposalInvalid,
    ProtocolError,
    Violation,
)
from core.ipc.framing import MAX_FRAME, MAX_VALUES, decode_json
from core.ipc.protocol import (
    MAX_LISTED_VIOLATIONS,
    encode_error_frame,
    error_from_exception,
    parse_request,
)


def _array(count: int, item: bytes = b"1") -> bytes:
    return b"[" + b",".join([item] * count) + b"]"


def test_value_budget_is_exact_for_an_array() -> None:
    assert len(decode_json(_array(MAX_VALUES - 1))) == MAX_VALUES - 1
    with pytest.raises(ProtocolError) as info:
        decode_json(_array(MAX_VALUES + 1))
    assert info.value.code == ErrorCode.PARSE_ERROR
    assert info.value.data == {"limit": MAX_VALUES}
    assert f"more than {MAX_VALUES} values" in info.value.message


def test_commas_inside_strings_are_not_values() -> None:
    prose = "a, " * (MAX_VALUES * 2)
    body = json.dumps({"problem": prose, "refs": ["x, y"] * 100}).encode()
    assert decode_json(body)["problem"] == prose


def test_strings_without_separators_still_hit_the_budget() -> None:
    body = b"[" + b'"a"' * (3 * MAX_VALUES + 10) + b"]" + b"," * MAX_VALUES
    with pytest.raises(ProtocolError, match="values"):
        decode_json(body)


@pytest.mark.parametrize(
    "item", [b"1", b'"a"', b"{}", b"[]", b"true", b'{"k":1}'], ids=lambda b: b.decode()
)
def test_a_4_mib_frame_of_tiny_values_is_refused_quickly(item: bytes) -> None:
    count = (MAX_FRAME - 200) // (len(item) + 1)
    body = b'{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":' + _array(count, item) + b"}}"
    assert len(body) <= MAX_FRAME
    started = time.perf_counter()
    with pytest.raises(ProtocolError) as info:
        parse_request(body)
    elapsed = time.perf_counter() - started
    assert info.value.code == ErrorCode.PARSE_ERROR
    assert elapsed < 0.5, f"{elapsed:.3f} s to refuse {item!r} x {count}"


def test_a_4_mib_string_parses_and_surrogates_are_still_refused() -> None:
    text = "x" * (MAX_FRAME - 100)
    assert decode_json(json.dumps({"a": text}).encode())["a"] == text
    with pytest.raises(ProtocolError, match="lone surrogate"):
        decode_json(b'{"a": "' + b"x" * 1000 + b'\\uDB00"}')
    assert decode_json(b'{"a": "\\ud83d\\ude00"}') == {"a": "\U0001f600"}


def _many_options(count: int) -> dict[str, object]:
    return {
        "problem": "Choose a storage layout",
        "decision_kind": "storage",
        "detector_confidence": 0.9,
        "options": [{"id": f"o{i}", "label": ""} for i in range(count)],
    }


def test_an_8200_option_proposal_gives_an_error_that_fits_a_frame() -> None:
    with pytest.raises(InvalidDecision) as info:
        parse_proposal(_many_options(8200), workspace="/w", session_id="s-1")
    assert len(getattr(info.value, "violations", ())) > MAX_LISTED_VIOLATIONS
    error = error_from_exception(info.value)
    frame = encode_error_frame(7, error)
    assert len(frame) < 64 * 1024
    reply = json.loads(frame[4:])
    assert reply["id"] == 7
    data = reply["error"]["data"]
    assert len(data["violations"]) == MAX_LISTED_VIOLATIONS
    total = len(info.value.violations)  # type: ignore[attr-defined]
    assert data["violations_omitted"] == total - MAX_LISTED_VIOLATIONS
    assert reply["error"]["message"].endswith(f"; and {total - MAX_LISTED_VIOLATIONS:,} more")


def test_a_few_violations_are_all_listed() -> None:
    violations = [Violation("options[0].label", "must not be empty"), Violation("x", "bad")]
    error = error_from_exception(ProposalInvalid(violations))
    assert len(error.data["violations"]) == 2
    assert "violations_omitted" not in error.data
    assert error.message == str(ProposalInvalid(violations))


def test_long_messages_are_cut_to_the_message_limit() -> None:
    error = ProtocolError(ErrorCode.INVALID_PARAMS, "x" * 100_000, "field")
    message = error.to_error_object()["message"]
    assert len(message) <= MESSAGE_MAX
    head, _, note = message.partition(" ... (")
    assert note.endswith(" more characters)")
    assert len(head) + int(note.split()[0]) == 100_000


def test_error_details_too_large_for_a_frame_shrink_to_scalars() -> None:
    huge = ProtocolError(
        ErrorCode.INVALID_PROPOSAL,
        "invalid",
        "options",
        data={"limit": 4, "size": 9000, "blob": ["y" * 1024] * (MAX_FRAME // 1024)},
    )
    reply = json.loads(encode_error_frame("r-1", huge)[4:])
    assert reply == {
        "jsonrpc": "2.0",
        "id": "r-1",
        "error": {
            "code": ErrorCode.INVALID_PROPOSAL,
            "message": "invalid",
            "data": {"limit": 4, "size": 9000, "field": "options"},
        },
    }


def _value_count(value: object) -> int:
    """Values as the budget counts them: every item, member and container, and one more for
    an empty container (the separator-and-bracket count cannot tell it from a one-item one)."""
    if isinstance(value, dict):
        return 1 + (sum(_value_count(v) for v in value.values()) if value else 1)
    if isinstance(value, list):
        return 1 + (sum(_value_count(v) for v in value) if value else 1)
    return 1


def test_the_largest_honest_proposal_is_far_inside_the_budget() -> None:
    text = "word, " * 300
    option = {
        "id": "o",
        "label": "l" * 256,
        "description": text[:2048],
        "pros": [text[:1024]] * 16,
        "cons": [text[:1024]] * 16,
        "recommended": False,
    }
    proposal = {
        "problem": text[:4096],
        "decision_kind": "k",
        "detector_confidence": 0.9,
        "options": [dict(option, id=f"o{i}") for i in range(4)],
        "domains": ["d"] * 32,
        "languages": ["python"] * 32,
        "evidence_refs": ["src/x.py:1, 2"] * 64,
    }
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "m", "params": {"p": proposal}})
    assert _value_count(json.loads(body)) < MAX_VALUES // 16
    assert parse_request(body.encode()).params["p"] == proposal


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet=',[]{}"\\ab', max_size=6),
    lambda children: (
        st.lists(children, max_size=5)
        | st.dictionaries(st.text(alphabet=',[]{}"\\ab', max_size=4), children, max_size=5)
    ),
    max_leaves=40,
)


@given(json_values)
@settings(max_examples=120, deadline=None)
def test_the_budget_counts_what_the_tree_holds(value: object) -> None:
    """Exact at the limit: the most copies that fit are accepted, one more is refused."""
    counted = _value_count(value)
    fitting = (MAX_VALUES - 1) // counted
    assert decode_json(json.dumps([value] * fitting).encode()) == [value] * fitting
    with pytest.raises(ProtocolError, match="values"):
        decode_json(json.dumps([value] * (fitting + 1)).encode())


error_details = st.dictionaries(
    st.text(min_size=1, max_size=12),
    st.text(max_size=3000) | st.integers() | st.lists(st.text(max_size=2000), max_size=400),
    max_size=6,
)


@given(
    code=st.sampled_from(list(ErrorCode)),
    message=st.text(max_size=20_000),
    field=st.none() | st.text(max_size=200),
    data=error_details,
)
@settings(max_examples=200, deadline=None)
def test_every_error_frame_fits_and_keeps_its_code(
    code: ErrorCode, message: str, field: str | None, data: dict[str, object]
) -> None:
    frame = encode_error_frame(3, ProtocolError(code, message, field, data=data))
    assert len(frame) <= MAX_FRAME + 4
    reply = json.loads(frame[4:])
    assert reply["error"]["code"] == code
    assert len(reply["error"]["message"]) <= MESSAGE_MAX
