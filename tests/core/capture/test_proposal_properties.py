"""Properties of proposal parsing that must hold for any input an agent can send."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.capture.proposal import (
    ParsedProposal,
    Rationales,
    Selection,
    parse_proposal,
    parse_stored_proposal,
)
from core.capture.proposal_draft import OPTION_FIELDS, PROPOSAL_FIELDS
from core.capture.proposal_rules import check_new_options, order_violations
from core.errors import ProposalInvalid
from core.record.models import Option, RejectedReason
from core.record.normalize import normalize_record
from core.record.validation import validate_record
from tests.factories import make_record, proposal_dict

WORKSPACE = "/srv/projects/kernforge"

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=40),
)
json_values = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=5),
        st.dictionaries(st.text(max_size=10), children, max_size=5),
    ),
    max_leaves=20,
)
keys = st.one_of(st.sampled_from(PROPOSAL_FIELDS), st.text(max_size=12))
option_like = st.dictionaries(
    st.one_of(st.sampled_from(OPTION_FIELDS), st.text(max_size=8)), json_values, max_size=8
)


@st.composite
def mutated_proposals(draw: st.DrawFn) -> dict[str, Any]:
    """The valid fixture with a few fields replaced by arbitrary JSON: near-misses are the
    interesting inputs, since random dicts rarely get past the first rules."""
    raw = proposal_dict()
    for key in draw(st.lists(keys, max_size=4)):
        raw[key] = draw(json_values)
    if draw(st.booleans()):
        raw["options"] = draw(st.lists(st.one_of(option_like, json_values), max_size=6))
    return raw


def parse_or_invalid(raw: object) -> ParsedProposal | None:
    try:
        return parse_proposal(raw, workspace=WORKSPACE, session_id="session-1")
    except ProposalInvalid as exc:
        assert exc.violations, "a refusal must name at least one violation"
        assert all(v.field and v.message for v in exc.violations)
        return None


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(keys, json_values, max_size=10))
def test_arbitrary_dicts_raise_only_proposal_invalid(raw: dict[str, Any]) -> None:
    parse_or_invalid(raw)


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_proposals())
def test_near_valid_proposals_raise_only_proposal_invalid(raw: dict[str, Any]) -> None:
    parsed = parse_or_invalid(raw)
    if parsed is not None:
        assert 2 <= len(parsed.options) <= 4
        assert sum(o.recommended for o in parsed.options) == 1
        assert 0.65 <= parsed.detector_confidence <= 1


@given(json_values)
def test_any_json_value_raises_only_proposal_invalid(raw: object) -> None:
    parse_or_invalid(raw)


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_proposals())
def test_a_parsed_proposal_survives_its_own_round_trip(raw: dict[str, Any]) -> None:
    parsed = parse_or_invalid(raw)
    if parsed is None:
        return
    again = parse_stored_proposal(
        parsed.proposal_fields(),
        decision_id=parsed.decision_id,
        identity=parsed.identity,
        session_id=parsed.session_id,
    )
    assert again == parsed


@given(
    st.lists(
        st.text(alphabet="abcdefghij./:0123456789 ", min_size=1, max_size=20),
        min_size=2,
        max_size=10,
        unique=True,
    ),
    st.randoms(use_true_random=False),
)
def test_evidence_ref_order_never_changes_the_id(refs: list[str], rng: Any) -> None:
    shuffled = copy.copy(refs)
    rng.shuffle(shuffled)
    first = parse_or_invalid(proposal_dict(evidence_refs=refs))
    second = parse_or_invalid(proposal_dict(evidence_refs=shuffled))
    assert first is not None and second is not None
    assert first.evidence_fingerprint == second.evidence_fingerprint
    assert first.decision_id == second.decision_id


@given(st.permutations([0, 1, 2]))
def test_option_order_never_changes_the_id(order: list[int]) -> None:
    raw = proposal_dict()
    raw["options"].append(
        {"id": "sqlite", "label": "SQLite", "description": "One database", "recommended": False}
    )
    reordered = proposal_dict(options=[raw["options"][i] for i in order])
    first, second = parse_or_invalid(raw), parse_or_invalid(reordered)
    assert first is not None and second is not None
    assert first.decision_id == second.decision_id


@settings(max_examples=100)
@given(st.text(max_size=30), st.text(max_size=30), st.text(max_size=10))
def test_arbitrary_caller_fields_raise_only_proposal_invalid(
    workspace: str, session_id: str, agent: str
) -> None:
    try:
        parse_proposal(proposal_dict(), workspace=workspace, session_id=session_id, agent=agent)
    except ProposalInvalid as exc:
        assert exc.violations


def test_nul_and_surrogates_in_caller_fields() -> None:
    try:
        parse_proposal(proposal_dict(), workspace="/srv/a\x00b", session_id="s")
    except ProposalInvalid as exc:
        assert [v.field for v in exc.violations] == ["workspace"]
    else:
        raise AssertionError("a NUL in the workspace must be refused")
    parsed = parse_proposal(proposal_dict(), workspace="/srv/\ud800", session_id="s\udc00")
    assert (parsed.workspace, parsed.session_id) == ("/srv/\ufffd", "s\ufffd")


option_orders = st.lists(st.integers(min_value=-3, max_value=6), min_size=2, max_size=4)


def _positions(orders: list[int]) -> list[int]:
    """Each option's position as a write normalizes it: order 0 or less is its place."""
    return [order if order > 0 else index + 1 for index, order in enumerate(orders)]


@given(option_orders)
def test_new_options_are_refused_exactly_when_two_share_a_position(orders: list[int]) -> None:
    positions = _positions(orders)
    violations = order_violations(orders)
    assert (not violations) == (len(set(positions)) == len(positions))
    repeats = [i for i, p in enumerate(positions) if p in positions[:i]]
    assert [v.field for v in violations] == [f"options[{i}].order" for i in repeats]


@given(option_orders)
def test_a_stored_record_with_repeated_orders_stays_readable(orders: list[int]) -> None:
    record = make_record()
    extra = [
        Option(id=f"extra-{n}", label=f"Extra {n}", description="another approach")
        for n in range(len(orders) - len(record.options))
    ]
    record.options = [*record.options, *extra]
    record.rejected_reasons.extend(
        RejectedReason(option_id=option.id, reason="not this one", source="user")
        for option in extra
    )
    for option, order in zip(record.options, orders, strict=True):
        option.order = order
    stored = normalize_record(record)
    validate_record(stored)  # the record rules do not look at order
    if order_violations(orders):
        with pytest.raises(ProposalInvalid, match=r"options\[\d\]\.order: position \d+ is"):
            check_new_options(record.options)
    else:
        check_new_options(record.options)


@settings(max_examples=100, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_proposals(), st.data())
def test_a_captured_decision_numbers_its_options_once_each(raw: dict[str, Any], data: Any) -> None:
    parsed = parse_or_invalid(raw)
    if parsed is None:
        return
    chosen = data.draw(st.sampled_from([o.id for o in parsed.options]))
    reasons = Rationales("because", {o.id: "not this one" for o in parsed.options})
    record = parsed.to_record(Selection(option_id=chosen), reasons)
    assert [o.order for o in record.options] == list(range(1, len(parsed.options) + 1))
