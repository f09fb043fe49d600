"""The proposal's rules judge a draft: every broken rule named, with the record's limits."""

from __future__ import annotations

from core.capture.proposal_draft import Violations, read_proposal
from core.capture.proposal_rules import (
    find_decision_id_problems,
    find_proposal_problems,
    order_violations,
)
from core.record.fields import rule
from tests.factories import proposal_dict


def problems(**changes: object) -> list[tuple[str, str]]:
    found = Violations()
    draft = read_proposal(proposal_dict(**changes), found)
    find_proposal_problems(draft, found)
    return [(v.field, v.message) for v in found.items]


def test_a_valid_draft_breaks_no_rule() -> None:
    assert problems() == []


def test_each_broken_rule_names_its_field_in_the_references_order() -> None:
    found = problems(problem=" ", risk_level="urgent", detector_confidence=0.2)
    assert [field for field, _ in found] == ["problem", "risk_level", "detector_confidence"]
    assert found[1][1] == "must be low, medium, high or critical, or empty (got 'urgent')"


def test_sizes_are_judged_by_the_records_rule() -> None:
    most = rule("header").most
    (found,) = problems(header="h" * (most + 1))
    assert found == ("header", f"is {most + 1} bytes; the limit is {most} bytes")


def test_two_options_at_one_position_are_refused() -> None:
    (violation,) = order_violations([0, 1])
    assert violation.field == "options[1].order"
    assert "position 1 is already options[0]'s" in violation.message


def test_a_decision_id_is_held_to_the_id_rule() -> None:
    found = Violations()
    find_decision_id_problems("bad id!", found, what="pending implementation decision id")
    (violation,) = found.items
    assert violation.field == "decision_id"
    assert f"use 1 to {rule('id').most} characters from A-Z a-z 0-9 . _ -" in violation.message


OSC_52 = "\x1b]52;c;cm0gLXJmIH4K\x07"
"""A terminal escape that writes the user's clipboard."""
RLO = "\u202e"
"""Right-to-left override: before "etadpu ton od", the label reads "do not update"."""


def test_an_agents_text_with_control_characters_is_refused_field_by_field() -> None:
    raw = proposal_dict(problem=f"Pick {OSC_52}", header=f"Pick{RLO}", domains=["a\x1b[2Kb"])
    raw["options"][0]["label"] = f"{RLO}etadpu ton od"
    raw["options"][0]["pros"] = ["fast\x9b31m"]  # C1 CSI
    raw["options"][1]["description"] = "one\rtwo"
    found = Violations()
    find_proposal_problems(read_proposal(raw, found), found)
    assert [(v.field, v.message.split(":")[0]) for v in found.items] == [
        ("problem", "must not contain control characters (line breaks and tabs are allowed)"),
        ("header", "must not contain control characters"),
        ("domains[0]", "must not contain control characters"),
        ("options[0].label", "must not contain control characters"),
        (
            "options[0].pros[0]",
            "must not contain control characters (line breaks and tabs are allowed)",
        ),
        (
            "options[1].description",
            "must not contain control characters (line breaks and tabs are allowed)",
        ),
    ]
    assert found.items[0].message.endswith("U+001B at character 6")
    assert found.items[3].message.endswith("U+202E at character 1")


def test_line_breaks_and_tabs_are_kept_where_a_field_holds_lines_only() -> None:
    raw = proposal_dict(problem="Pick a layout:\n\tfiles or a database")
    raw["options"][0]["description"] = "one file\nper decision"
    assert problems(**raw) == []
    raw["options"][0]["label"] = "Per-record\nJSON"
    assert problems(**raw) == [
        ("options[0].label", "must not contain control characters: U+000A at character 11")
    ]
