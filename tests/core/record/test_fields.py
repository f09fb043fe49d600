"""The field table: one limit per field, read when each check runs, so every surface follows.

A limit changed in the table must change what record validation, proposal validation,
corrections, the capture answers and correction notes refuse, and the numbers their messages
state; no surface keeps a number of its own.
"""

from __future__ import annotations

import dataclasses
import io
import re
import tokenize
from pathlib import Path
from typing import Any

import pytest

from core import limits
from core.capture.proposal import parse_proposal
from core.errors import InvalidDecision, ProposalInvalid, describe
from core.record import fields
from core.record.corrections import Correction, precheck
from core.record.normalize import normalize_record
from core.record.redact_record import free_text_updates, option_text_updates, redact_record
from core.record.validation import check_decision_id, validate_record
from core.store.correction_notes import check_note
from tests.factories import make_record, proposal_dict

ROOT = Path(__file__).resolve().parents[3]
SURFACES = (
    "core/record/validation.py",
    "core/record/corrections.py",
    "core/capture/proposal.py",
    "core/capture/machine.py",
    "core/store/correction_notes.py",
    "app/mcp/schemas.py",
    "app/mcp/arguments.py",
    "app/gui/journal/edit_dialog.py",
    "app/cli/capture_cmds.py",
    "core/importers/shaping.py",
)
"""Every module that checks a record field or words its limit for a person or an agent."""
_WRITTEN_LIMIT = re.compile(r"\b1 to 1[26]0\b|\b2 to 4\b|\b0\.65\b|\b4,?096\b|\b1,?024\b|\b128\b")


def _set(monkeypatch: pytest.MonkeyPatch, name: str, **changes: Any) -> None:
    monkeypatch.setitem(fields.FIELDS, name, dataclasses.replace(fields.FIELDS[name], **changes))


def test_the_table_holds_the_format_limits() -> None:
    assert fields.rule("problem").most == limits.PROBLEM_MAX
    assert fields.rule("id").span() == f"1 to {limits.DECISION_ID_MAX} characters"
    assert fields.rule("options").span() == f"{limits.OPTIONS_MIN} to {limits.OPTIONS_MAX} options"
    assert fields.item_rule("evidence_refs").most == limits.EVIDENCE_REF_MAX
    assert fields.number_rule("detector_confidence").least == limits.CAPTURE_CONFIDENCE_MIN
    for rule in fields.FIELDS.values():
        assert rule.most > 0 and 0 <= rule.least <= rule.most, rule
        assert not rule.item or rule.item in fields.FIELDS, rule


def test_sizes_and_counts_read_one_way() -> None:
    assert fields.rule("decision_kind").over(130) == "is 130 bytes; the limit is 128 bytes"
    assert fields.rule("tags").over(70) == "has 70 tags; the limit is 64 tags"
    assert fields.risk_problem("urgent") == (
        "must be low, medium, high or critical, or empty (got 'urgent')"
    )


def test_a_changed_kind_limit_changes_every_core_surface(monkeypatch: pytest.MonkeyPatch) -> None:
    _set(monkeypatch, "decision_kind", most=10)
    kind = "k" * 11
    with pytest.raises(InvalidDecision) as stored:
        validate_record(normalize_record(make_record(decision_kind=kind)))
    assert stored.value.limit == 10 and "the limit is 10 bytes" in str(stored.value)
    with pytest.raises(ProposalInvalid) as proposed:
        parse_proposal(proposal_dict(decision_kind=kind), workspace="/srv/p", session_id="s")
    (violation,) = proposed.value.violations
    assert (violation.field, violation.limit) == ("decision_kind", 10)
    assert "the limit is 10 bytes" in violation.message
    with pytest.raises(InvalidDecision) as corrected:
        precheck(Correction(decision_kind=kind))
    assert "1 to 10 bytes" in str(corrected.value) and corrected.value.limit == 10
    assert "limit: 10" in str(describe(corrected.value))


def test_a_changed_count_and_id_limit_change_their_messages(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _set(monkeypatch, "options", most=3)
    _set(monkeypatch, "id", most=20)
    _set(monkeypatch, "correction_note", most=5)
    raw = proposal_dict()
    raw["options"] = raw["options"] * 2
    with pytest.raises(ProposalInvalid) as caught:
        parse_proposal(raw, workspace="/srv/p", session_id="s")
    assert "options: must have 2 to 3 options (got 4)" in str(caught.value)
    with pytest.raises(InvalidDecision, match="use 1 to 20 characters from"):
        check_decision_id("d" * 21)
    with pytest.raises(InvalidDecision, match="the limit is 5 bytes"):
        check_note("a longer note")


def test_a_changed_confidence_floor_changes_the_proposal_rule(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(
        fields.NUMBERS,
        "detector_confidence",
        dataclasses.replace(fields.NUMBERS["detector_confidence"], least=0.9),
    )
    with pytest.raises(ProposalInvalid, match=r"is below 0\.9 "):
        parse_proposal(proposal_dict(detector_confidence=0.8), workspace="/srv/p", session_id="s")
    raw = proposal_dict()
    del raw["detector_confidence"]
    with pytest.raises(ProposalInvalid, match=r"a number from 0\.9 to 1"):
        parse_proposal(raw, workspace="/srv/p", session_id="s")


def test_no_surface_writes_a_limit_of_its_own() -> None:
    """Strings in the checking modules carry no format number: each comes from the table."""
    found = []
    for name in SURFACES:
        source = (ROOT / name).read_text(encoding="utf-8")
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type == tokenize.STRING and _WRITTEN_LIMIT.search(token.string):
                found.append(f"{name}:{token.start[0]}: {token.string[:60]}")
    assert found == []


def test_one_list_of_free_text_fields_reaches_record_and_proposal() -> None:
    record = make_record()
    every = free_text_updates(record, str.upper)
    assert set(every) == set(fields.FREE_TEXT) - {"header"}  # a record has no heading
    assert set(option_text_updates(record.options[0], str.upper)) == set(fields.OPTION_FREE_TEXT)
    secret = "sk-" + "A1b2C3d4E5f6G7h8I9j0K1l2"
    redacted = redact_record(make_record(tags=[f"tag {secret}"], problem=f"key {secret}"))
    assert secret not in redacted.tags[0] and secret not in redacted.problem
    parsed = parse_proposal(
        proposal_dict(domains=[f"area {secret}"]), workspace="/srv/p", session_id="s"
    )
    assert secret not in parsed.redacted().domains[0]
