"""Reading a proposal into a draft: canonical values, and every wrong type or unknown field
collected as a violation rather than guessed."""

from __future__ import annotations

import pytest

from core.capture.proposal_draft import Violations, key_name, read_proposal, redacted_draft
from core.errors import ProposalInvalid
from core.record.fields import rule
from tests.factories import proposal_dict

SECRET = "sk-" + "A1b2C3d4E5f6G7h8I9j0K1l2"


def test_values_are_read_as_the_reference_canonicalizes_them() -> None:
    raw = proposal_dict(
        problem="  How to store?  ",
        decision_kind=" Storage-Layout ",
        risk_level="HIGH",
        domains=["ui", " UI ", "", "storage"],
        header=None,
    )
    found = Violations()
    draft = read_proposal(raw, found)
    assert found.items == []
    assert (draft.problem, draft.decision_kind, draft.risk_level) == (
        "How to store?",
        "storage-layout",
        "high",
    )
    assert draft.domains == ["ui", "storage"]  # blanks dropped, first spelling kept
    assert "header" not in draft.present  # null reads as absent, as Go decodes it


def test_a_list_is_cut_at_its_rule_before_it_is_judged() -> None:
    most = rule("domains").most
    draft = read_proposal(proposal_dict(domains=[f"d{n}" for n in range(most + 5)]), Violations())
    assert len(draft.domains) == most


def test_a_wrong_type_is_the_fields_only_violation() -> None:
    found = Violations()
    read_proposal(proposal_dict(problem=7, surprise=True), found)
    found.add("problem", "must not be blank")  # a rule after the type error: not repeated
    assert [(v.field, v.message) for v in found.items] == [
        ("problem", "must be a string (got number)"),
        ("surprise", found.items[1].message),
    ]
    assert found.items[1].message.startswith("unknown field; a proposal accepts only ")


def test_anything_but_an_object_is_refused_at_once() -> None:
    with pytest.raises(ProposalInvalid, match="must be a JSON object"):
        read_proposal(["not", "an", "object"], Violations())


def test_odd_keys_are_quoted_and_redaction_touches_free_text_only() -> None:
    assert key_name("") == "''" and key_name("ok") == "ok"
    raw = proposal_dict(problem=f"uses {SECRET}", task_fingerprint="fp-1")
    draft = read_proposal(raw, Violations())
    redacted = redacted_draft(draft)
    assert SECRET not in redacted.problem and redacted.task_fingerprint == "fp-1"
