"""Proposal parsing and validation: every rule reported with its field, all at once."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from core.capture.proposal import (
    DEFAULT_HEADER,
    ParsedProposal,
    Rationales,
    Selection,
    is_resume_request,
    parse_proposal,
    parse_resume,
    parse_stored_proposal,
)
from core.capture.proposal_rules import check_new_options
from core.errors import InvalidDecision, ProposalInvalid, Violation
from core.record.identity import (
    decision_id,
    evidence_fingerprint,
    project_identity,
    task_fingerprint,
)
from core.store.decisions import DecisionStore
from tests.factories import make_record, proposal_dict

SECRET = "sk-" + "A1b2C3d4E5f6G7h8I9j0K1l2"
GH_SECRET = "ghp_q7Lm2Xp9Rt4Vw8Zs1Kd5Fg3Jb6Nc0Hy2Ae8Tu"
WORKSPACE = "/srv/projects/kernforge"


def parse(raw: Any, session_id: str = "session-1", workspace: str = WORKSPACE) -> ParsedProposal:
    return parse_proposal(raw, workspace=workspace, session_id=session_id, agent="claude")


def violations(raw: Any, **kwargs: Any) -> list[Violation]:
    with pytest.raises(ProposalInvalid) as caught:
        parse(raw, **kwargs)
    return list(caught.value.violations)


def fields(raw: Any, **kwargs: Any) -> list[str]:
    return [v.field for v in violations(raw, **kwargs)]


def with_option(index: int, **changes: Any) -> dict[str, Any]:
    proposal = proposal_dict()
    proposal["options"][index].update(changes)
    return proposal


def three_options() -> dict[str, Any]:
    proposal = proposal_dict()
    proposal["options"].append(
        {"id": "sqlite", "label": "SQLite", "description": "One database", "recommended": False}
    )
    return proposal


# --- the valid fixture -------------------------------------------------------------------------


def test_fixture_parses_to_canonical_values() -> None:
    parsed = parse(proposal_dict())
    assert parsed.problem == "Choose the canonical cross-project decision storage layout"
    assert parsed.decision_kind == "storage_backend"
    assert parsed.recommended_option_id == "per-record-json"
    assert [o.id for o in parsed.options] == ["per-record-json", "single-json"]
    assert parsed.detector_confidence == 0.92
    assert parsed.header_text == DEFAULT_HEADER
    assert (parsed.session_id, parsed.agent) == ("session-1", "claude")


def test_identity_follows_the_reference_algorithms() -> None:
    parsed = parse(proposal_dict(evidence_refs=["b.py:2", "a.py:1"]))
    identity = project_identity(WORKSPACE)
    assert parsed.task_fingerprint == task_fingerprint("session-1", parsed.problem)
    assert parsed.evidence_fingerprint == evidence_fingerprint(
        list(parsed.options), ["b.py:2", "a.py:1"]
    )
    assert parsed.decision_id == decision_id(
        project_id=identity.project_id,
        task_fp=parsed.task_fingerprint,
        evidence_fp=parsed.evidence_fingerprint,
        problem=parsed.problem,
        options=list(parsed.options),
    )
    assert (parsed.project_id, parsed.workspace) == (identity.project_id, WORKSPACE)
    assert parsed.project_alias == "kernforge"


def test_given_fingerprints_are_kept_and_used() -> None:
    parsed = parse(proposal_dict(task_fingerprint=" task-x ", evidence_fingerprint="ev-y"))
    assert (parsed.task_fingerprint, parsed.evidence_fingerprint) == ("task-x", "ev-y")
    other_session = parse(
        proposal_dict(task_fingerprint="task-x", evidence_fingerprint="ev-y"), session_id="s-2"
    )
    assert other_session.decision_id == parsed.decision_id


def test_session_is_part_of_the_generated_identity() -> None:
    assert (
        parse(proposal_dict()).decision_id != parse(proposal_dict(), session_id="s-2").decision_id
    )


def test_trims_lowercases_and_dedupes() -> None:
    raw = proposal_dict(
        problem="  Pick a layout \n",
        decision_kind=" Storage_Backend ",
        risk_level=" HIGH ",
        header="  Storage  ",
        domains=[" storage ", "Storage", "", "ui"],
        languages=["Go", "go", "Python"],
    )
    raw["options"][0]["pros"] = [" fast ", "FAST", "", "safe"]
    parsed = parse(raw)
    assert parsed.problem == "Pick a layout"
    assert (parsed.decision_kind, parsed.risk_level, parsed.header) == (
        "storage_backend",
        "high",
        "Storage",
    )
    assert parsed.domains == ("storage", "ui")
    assert parsed.languages == ("Go", "Python")
    assert parsed.options[0].pros == ["fast", "safe"]


def test_lists_are_capped_before_dedupe() -> None:
    raw = proposal_dict(domains=[f"d{i}" for i in range(40)], evidence_refs=["r"] * 70)
    raw["options"][0]["cons"] = [f"c{i}" for i in range(20)]
    parsed = parse(raw)
    assert len(parsed.domains) == 32
    assert parsed.evidence_refs == ("r",)
    assert len(parsed.options[0].cons) == 16


def test_null_reads_as_absent() -> None:
    parsed = parse(proposal_dict(risk_level=None, domains=None, header=None))
    assert (parsed.risk_level, parsed.domains, parsed.header) == ("", (), "")


def test_integer_confidence_is_a_number() -> None:
    assert parse(proposal_dict(detector_confidence=1)).detector_confidence == 1.0


# --- one rule at a time -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "field", "limit"),
    [
        (proposal_dict(problem="x" * 4097), "problem", 4096),
        (proposal_dict(problem="가" * 1366), "problem", 4096),
        (with_option(1, label="L" * 257), "options[1].label", 256),
        (proposal_dict(decision_kind="k" * 129), "decision_kind", 128),
        (proposal_dict(header="h" * 257), "header", 256),
        (with_option(0, id="i" * 129), "options[0].id", 128),
        (with_option(0, description="d" * 2049), "options[0].description", 2048),
        (with_option(0, pros=["p" * 1025]), "options[0].pros[0]", 1024),
        (proposal_dict(domains=["d" * 513]), "domains[0]", 512),
        (proposal_dict(languages=["l" * 513]), "languages[0]", 512),
        (proposal_dict(evidence_refs=["e" * 2049]), "evidence_refs[0]", 2048),
        (proposal_dict(task_fingerprint="t" * 1025), "task_fingerprint", 1024),
        (proposal_dict(evidence_fingerprint="e" * 1025), "evidence_fingerprint", 1024),
    ],
)
def test_size_limits_name_field_size_and_limit(raw: dict[str, Any], field: str, limit: int) -> None:
    (violation,) = violations(raw)
    assert (violation.field, violation.limit) == (field, limit)
    assert f"; the limit is {limit:,} bytes" in violation.message


def test_limits_are_inclusive() -> None:
    raw = proposal_dict(problem="x" * 4096, decision_kind="k" * 128, header="h" * 256)
    raw["options"][1]["label"] = "L" * 256
    assert parse(raw).problem == "x" * 4096


def test_message_names_field_and_sizes() -> None:
    with pytest.raises(ProposalInvalid) as caught:
        parse(with_option(1, label="L" * 300))
    assert "options[1].label: is 300 bytes; the limit is 256 bytes" in str(caught.value)
    assert isinstance(caught.value, InvalidDecision)
    assert (caught.value.field, caught.value.limit) == ("options[1].label", 256)


@pytest.mark.parametrize(
    ("raw", "field"),
    [
        (proposal_dict(decision_kind=SECRET), "decision_kind"),
        (proposal_dict(task_fingerprint=SECRET), "task_fingerprint"),
        (proposal_dict(evidence_fingerprint=GH_SECRET), "evidence_fingerprint"),
        (with_option(0, id=SECRET), "options[0].id"),
    ],
)
def test_secret_identifiers_are_refused_not_rewritten(raw: dict[str, Any], field: str) -> None:
    (violation,) = violations(raw)
    assert violation.field == field
    assert "sensitive material" in violation.message
    assert SECRET not in violation.message and GH_SECRET not in violation.message


def test_secret_session_is_refused() -> None:
    assert fields(proposal_dict(), session_id=SECRET) == ["session_id"]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (math.nan, "finite number from 0 to 1"),
        (math.inf, "finite number from 0 to 1"),
        (-math.inf, "finite number from 0 to 1"),
        (1.5, "finite number from 0 to 1"),
        (-0.1, "finite number from 0 to 1"),
        (10**400, "finite number from 0 to 1"),
        (0.5, "below 0.65 (got 0.50)"),
        (0, "below 0.65"),
        ("0.9", "must be a JSON number (got string)"),
        (True, "must be a JSON number (got boolean)"),
    ],
)
def test_confidence_must_be_a_number_from_065_to_1(value: object, expected: str) -> None:
    (violation,) = violations(proposal_dict(detector_confidence=value))
    assert violation.field == "detector_confidence"
    assert expected in violation.message


def test_confidence_bounds_are_inclusive() -> None:
    assert parse(proposal_dict(detector_confidence=0.65)).detector_confidence == 0.65
    assert parse(proposal_dict(detector_confidence=1.0)).detector_confidence == 1.0


def test_one_option_and_five_options_are_refused() -> None:
    one = proposal_dict()
    one["options"] = one["options"][:1]
    assert [(v.field, v.message) for v in violations(one)] == [
        ("options", "must have 2 to 4 options (got 1)")
    ]
    five = three_options()
    five["options"] += [
        {"id": f"extra-{i}", "label": f"Extra {i}", "description": "d", "recommended": False}
        for i in range(2)
    ]
    assert fields(five) == ["options"]
    assert "(got 5)" in str(violations(five)[0])


def test_four_options_are_fine() -> None:
    four = three_options()
    four["options"].append({"id": "x", "label": "X", "description": "d", "recommended": False})
    assert len(parse(four).options) == 4


def test_duplicate_ids_are_refused() -> None:
    raw = with_option(1, id="per-record-json")
    (violation,) = violations(raw)
    assert violation.field == "options[1].id"
    assert "duplicates options[0].id" in violation.message


def test_duplicate_labels_compare_case_insensitively() -> None:
    raw = with_option(1, label="  PER-RECORD json ")
    (violation,) = violations(raw)
    assert violation.field == "options[1].label"
    assert "case-insensitively" in violation.message


def test_zero_or_two_recommended_are_refused() -> None:
    none = with_option(0, recommended=False)
    assert [(v.field, v.message) for v in violations(none)] == [
        ("options", "exactly one option must be recommended (got 0)")
    ]
    two = with_option(1, recommended=True)
    assert "(got 2)" in violations(two)[0].message


def test_recommended_option_id_must_match_the_flag() -> None:
    assert parse(proposal_dict(recommended_option_id="per-record-json")).recommended_option_id
    (violation,) = violations(proposal_dict(recommended_option_id="single-json"))
    assert violation.field == "recommended_option_id"
    assert "'per-record-json'" in violation.message


def test_recommended_must_be_a_json_bool() -> None:
    (violation,) = violations(with_option(0, recommended="true"))
    assert violation.field == "options[0].recommended"
    assert violation.message == "must be a boolean (got string)"


def test_missing_recommended_counts_as_false() -> None:
    raw = proposal_dict()
    del raw["options"][1]["recommended"]
    assert parse(raw).options[1].recommended is False


@pytest.mark.parametrize("bad_id", ["has space", "a/b", "__custom__", "ü", "  "])
def test_invalid_option_ids_are_refused(bad_id: str) -> None:
    assert fields(with_option(1, id=bad_id)) == ["options[1].id"]


@pytest.mark.parametrize("name", ["label", "description"])
def test_blank_label_or_description_is_refused(name: str) -> None:
    assert fields(with_option(0, **{name: "   "})) == [f"options[0].{name}"]


@pytest.mark.parametrize("name", ["problem", "decision_kind"])
def test_problem_and_kind_are_required(name: str) -> None:
    assert fields(proposal_dict(**{name: "  "})) == [name]
    raw = proposal_dict()
    del raw[name]
    assert violations(raw)[0].message == "is required"


def test_risk_level_must_be_known() -> None:
    (violation,) = violations(proposal_dict(risk_level="urgent"))
    assert violation.field == "risk_level" and "'urgent'" in violation.message
    assert parse(proposal_dict(risk_level="")).risk_level == ""


def test_unknown_fields_are_refused() -> None:
    raw = proposal_dict(rationale="sneaky", workspace="/x")
    raw["options"][0]["order"] = 1
    assert sorted(fields(raw)) == ["options[0].order", "rationale", "workspace"]


@pytest.mark.parametrize(
    ("raw", "field", "expected"),
    [
        (proposal_dict(problem=5), "problem", "a string (got number)"),
        (proposal_dict(decision_kind=["k"]), "decision_kind", "a string (got array)"),
        (proposal_dict(options={"a": 1}), "options", "an array of objects (got object)"),
        (proposal_dict(domains="storage"), "domains", "an array of strings (got string)"),
        (proposal_dict(languages=["go", 3]), "languages[1]", "a string (got number)"),
        (proposal_dict(evidence_refs=[{}]), "evidence_refs[0]", "a string (got object)"),
        (with_option(0, label=False), "options[0].label", "a string (got boolean)"),
        (with_option(0, pros="fast"), "options[0].pros", "an array of strings (got string)"),
        (proposal_dict(risk_level=1), "risk_level", "a string (got number)"),
        (proposal_dict(recommended_option_id=1), "recommended_option_id", "a string (got number)"),
    ],
)
def test_wrong_json_types_are_reported_once(raw: dict[str, Any], field: str, expected: str) -> None:
    found = violations(raw)
    assert [v.field for v in found].count(field) == 1
    assert any(v.field == field and v.message == f"must be {expected}" for v in found)


def test_option_that_is_not_an_object() -> None:
    raw = proposal_dict()
    raw["options"][1] = "single-json"
    found = violations(raw)
    assert found[0] == Violation("options[1]", "must be an object (got string)")


def test_not_an_object() -> None:
    assert fields(["problem"]) == ["proposal"]
    assert fields(None) == ["proposal"]


def test_empty_proposal_lists_every_required_field() -> None:
    assert fields({}) == ["problem", "decision_kind", "detector_confidence", "options"]


def test_several_violations_are_all_reported_in_rule_order() -> None:
    raw = three_options()
    raw.update(problem="x" * 4097, decision_kind=SECRET, detector_confidence=math.nan, extra=1)
    raw["options"][1]["label"] = "L" * 257
    raw["options"][2]["id"] = "per-record-json"
    with pytest.raises(ProposalInvalid) as caught:
        parse(raw)
    assert [v.field for v in caught.value.violations] == [
        "extra",
        "problem",
        "detector_confidence",
        "decision_kind",
        "options[1].label",
        "options[2].id",
    ]
    message = str(caught.value)
    assert message.startswith("invalid implementation decision proposal (6 problems): ")
    assert "options[1].label: is 257 bytes; the limit is 256 bytes" in message


def test_session_and_workspace_are_checked() -> None:
    assert fields(proposal_dict(), session_id="  ") == ["session_id"]
    assert fields(proposal_dict(), workspace="/" + "w" * (32 * 1024)) == ["workspace"]


@pytest.mark.parametrize("workspace", ["../../", "relative/dir", "~/project", "."])
def test_a_workspace_that_is_not_absolute_is_refused_naming_the_field(workspace: str) -> None:
    found = violations(proposal_dict(), workspace=workspace)
    assert [(v.field, v.message) for v in found] == [
        ("workspace", f"must be an absolute path (the agent's project root), got {workspace!r}")
    ]


@pytest.mark.parametrize("workspace", ["/", "//", "/tmp/..", "/./"])
def test_the_filesystem_root_is_no_project(workspace: str) -> None:
    found = violations(proposal_dict(), workspace=workspace)
    assert [(v.field, v.message) for v in found] == [
        ("workspace", "must name a project's directory, not the filesystem root '/'")
    ]


def test_an_absolute_workspace_with_dots_or_an_empty_one_is_accepted(tmp_path: Path) -> None:
    dotted = parse(proposal_dict(), workspace=f"{tmp_path}/../{tmp_path.name}")
    assert dotted.identity.canonical_path == str(tmp_path.resolve())
    assert parse(proposal_dict(), workspace="").identity.workspace == ""


def test_decision_id_beside_a_proposal_must_match_the_derived_one() -> None:
    derived = parse(proposal_dict()).decision_id
    assert parse(proposal_dict(decision_id=derived)).decision_id == derived
    (violation,) = violations(proposal_dict(decision_id="decision-other"))
    assert violation.field == "decision_id" and derived in violation.message


def test_redaction_that_would_break_the_pending_copy_is_refused_up_front() -> None:
    raw = with_option(0, label=f"Use {SECRET}")
    raw["options"][1]["label"] = f"Use {SECRET[:-1]}Z"
    (violation,) = violations(raw)
    assert violation.field == "options[1].label"
    assert violation.message.startswith("after secret redaction, duplicates")


def test_secret_in_free_text_is_accepted_for_later_redaction() -> None:
    assert SECRET in parse(proposal_dict(problem=f"Rotate {SECRET}")).problem


# --- resume requests ---------------------------------------------------------------------------


def test_resume_requests_are_recognised() -> None:
    assert is_resume_request({"decision_id": "decision-1"})
    assert is_resume_request({"decision_id": "d", "session_id": "s", "workspace": "/w"})
    assert not is_resume_request({"decision_id": "d", "problem": "p"})
    assert not is_resume_request(proposal_dict())
    assert not is_resume_request(["decision_id"])


def test_parse_resume_trims_and_validates() -> None:
    assert parse_resume({"decision_id": " decision-abc ", "agent": "x"}) == "decision-abc"
    for bad in ("../escape", "a..b", "", "has space", "decision-1\ninjected prompt text"):
        with pytest.raises(ProposalInvalid) as caught:
            parse_resume({"decision_id": bad})
        assert caught.value.field == "decision_id"
        assert "invalid pending implementation decision id" in str(caught.value)
    with pytest.raises(ProposalInvalid, match="sensitive"):
        parse_resume({"decision_id": GH_SECRET})
    with pytest.raises(ProposalInvalid, match="must be a string"):
        parse_resume({"decision_id": 7})
    with pytest.raises(ProposalInvalid, match="unknown field"):
        parse_resume({"decision_id": "d", "x": 1})


# --- the stored round trip and the record ------------------------------------------------------


def test_stored_proposal_round_trips() -> None:
    parsed = parse(proposal_dict(header="Storage", evidence_refs=["a.py"]))
    again = parse_stored_proposal(
        parsed.proposal_fields(),
        decision_id=parsed.decision_id,
        identity=parsed.identity,
        session_id=parsed.session_id,
        agent=parsed.agent,
    )
    assert again == parsed


def test_stored_proposal_with_one_option_is_refused() -> None:
    parsed = parse(proposal_dict())
    fields_ = parsed.proposal_fields()
    fields_["options"] = fields_["options"][:1]
    with pytest.raises(ProposalInvalid, match="2 to 4 options"):
        parse_stored_proposal(
            fields_,
            decision_id=parsed.decision_id,
            identity=parsed.identity,
            session_id=parsed.session_id,
        )


def test_to_record_sets_provenance_order_and_sources(tmp_path: Path) -> None:
    parsed = parse(proposal_dict(evidence_refs=["core/store.py:10"]))
    record = parsed.to_record(
        Selection(option_id="single-json"),
        Rationales("one file is simpler", {"per-record-json": "too many files"}),
    )
    assert record.id == parsed.decision_id
    assert [(o.order, o.source) for o in record.options] == [(1, "model"), (2, "model")]
    assert [(r.option_id, r.source) for r in record.rejected_reasons] == [
        ("per-record-json", "user")
    ]
    provenance = record.provenance
    assert (provenance.options, provenance.selection, provenance.rationale, provenance.summary) == (
        "model",
        "user",
        "user",
        "runtime",
    )
    assert (record.status, record.workspace, record.project_alias) == (
        "completed",
        WORKSPACE,
        "kernforge",
    )
    stored = DecisionStore(tmp_path / "journal").put(record)
    assert stored.revision == 1 and "이 사용자는" in stored.summary_sentence


def test_header_is_not_part_of_the_record() -> None:
    parsed = parse(proposal_dict(header="Very special header"))
    record = parsed.to_record(
        Selection(custom="Something else"),
        Rationales("r", {"per-record-json": "a", "single-json": "b"}),
    )
    assert "Very special header" not in record.model_dump_json()
    assert record.custom_selection == "Something else"
    assert len(record.rejected_reasons) == 2


def test_a_stored_record_with_repeated_option_orders_is_read_and_listed(tmp_path: Path) -> None:
    """New decisions may not repeat an order (`check_new_options`); stored ones still load."""
    store = DecisionStore(tmp_path / "journal")
    record = make_record()
    for option in record.options:
        option.order = 1
    with pytest.raises(ProposalInvalid, match=r"options\[1\]\.order: position 1 is already"):
        check_new_options(record.options)
    store.put(record)
    assert [o.order for o in store.get(record.id).options] == [1, 1]
    assert [r.id for r in store.list()] == [record.id]
