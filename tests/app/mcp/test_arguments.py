"""The advertised schemas are the enforced ones, and every problem reads in plain words."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from app.mcp import schemas
from app.mcp.arguments import argument_violations, violations_text
from core.errors import Violation
from core.record import fields
from tests.factories import proposal_dict


def problems(schema: dict[str, Any], arguments: object) -> list[str]:
    return [f"{v.field}: {v.message}" for v in argument_violations(schema, arguments)]


RECENT = schemas.RECENT_INPUT_SCHEMA
OUTCOME = schemas.OUTCOME_INPUT_SCHEMA
PRESENT = schemas.PRESENT_INPUT_SCHEMA


@pytest.mark.parametrize(
    ("limit", "message"),
    [
        (0, "limit: must be an integer from 1 to 50 (got 0)"),
        (51, "limit: must be an integer from 1 to 50 (got 51)"),
        (2.5, "limit: must be an integer from 1 to 50 (got 2.5)"),
        ("5", "limit: must be an integer from 1 to 50 (got '5')"),
        (True, "limit: must be an integer from 1 to 50 (got true)"),
        (None, "limit: must not be null; omit the field instead"),
    ],
)
def test_limit_bounds_and_type(limit: object, message: str) -> None:
    assert problems(RECENT, {"limit": limit}) == [message]


@pytest.mark.parametrize("limit", [1, 50, 10.0])
def test_limit_within_bounds_passes(limit: object) -> None:
    assert problems(RECENT, {"limit": limit}) == []


def test_unknown_fields_are_named_with_the_accepted_ones() -> None:
    assert problems(RECENT, {"limt": 5}) == [
        "limt: unknown field; accepted: workspace, goal, limit, query"
    ]


def test_arguments_must_be_an_object() -> None:
    assert problems(RECENT, ["limit"]) == ["arguments: must be an object (got a list)"]


def test_enum_and_number_range() -> None:
    found = problems(OUTCOME, {"decision_id": "d-1", "ci": "green", "eval_score": 1.5})
    assert found == [
        "ci: must be one of 'pass', 'fail' (got 'green')",
        "eval_score: must be a number from 0 to 1 (got 1.5)",
    ]


def test_pattern_is_anchored_like_ecmascript() -> None:
    assert problems(OUTCOME, {"decision_id": "d-1\n"}) == [
        "decision_id: must match ^[A-Za-z0-9._-]{1,160}$ (got 'd-1\\n')"
    ]


def test_required_fields() -> None:
    assert problems(OUTCOME, {}) == ["decision_id: is required"]


def test_max_length_counts_utf8_bytes() -> None:
    note = schemas.NOTE_INPUT_SCHEMA
    fits = {"decision": "d", "why": "가" * 1365}
    assert problems(note, fits) == []
    assert problems(note, {"decision": "d", "why": "가" * 1366}) == [
        "why: is 4,098 bytes; the limit is 4,096 bytes"
    ]


def test_nested_options_are_checked_with_their_paths() -> None:
    proposal = proposal_dict()
    proposal["options"][1]["colour"] = "red"
    proposal["options"][0]["pros"] = ["fast", 3]
    proposal["options"].extend([dict(proposal["options"][0], id=f"x{i}") for i in range(3)])
    found = problems(PRESENT, proposal)
    assert found == [
        "options: must have 2 to 4 items (got 5)",
        "options[0].pros[1]: must be a string (got 3)",
        "options[1].colour: unknown field; accepted: id, label, description, pros, cons, "
        "recommended",
        "options[2].pros[1]: must be a string (got 3)",
        "options[3].pros[1]: must be a string (got 3)",
        "options[4].pros[1]: must be a string (got 3)",
    ]


def test_a_valid_proposal_and_a_resume_pass_the_schema() -> None:
    assert problems(PRESENT, proposal_dict()) == []
    assert problems(PRESENT, {"decision_id": "decision-abc"}) == []


def test_the_message_lists_every_problem_and_no_library_words() -> None:
    text = violations_text(
        "the recent_decisions call",
        [Violation("limit", "must be an integer from 1 to 50 (got 0)", 50)],
    )
    assert text == (
        "the recent_decisions call is invalid (1 problem); fix all and retry:\n"
        "- limit: must be an integer from 1 to 50 (got 0)"
    )
    assert violations_text("x", [Violation("a", "is too long", 7)]).endswith(
        "- a: is too long (limit 7)"
    )


def test_a_changed_field_limit_changes_the_schema_and_its_message(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The schemas read the record's field table: a limit changed there is the one shown and
    the one enforced, worded as every other surface words it."""
    kind = fields.FIELDS["decision_kind"]
    monkeypatch.setitem(fields.FIELDS, "decision_kind", dataclasses.replace(kind, most=10))
    schema = schemas.present_input_schema()
    shown = schema["properties"]["decision_kind"]
    assert shown["maxLength"] == 10 and "At most 10 UTF-8 bytes." in shown["description"]
    (violation,) = argument_violations(schema, proposal_dict(decision_kind="k" * 11))
    assert (violation.field, violation.limit) == ("decision_kind", 10)
    assert violation.message == "is 11 bytes; the limit is 10 bytes"
