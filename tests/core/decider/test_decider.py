"""Shadow predictions, scoring, graduation, automatic answers and demotion through the real
capture service, profile and files, on a clock the test controls."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.capture.machine import NeedsHuman, Recorded, outcome_to_result
from core.decider.ledger import DeciderLedger
from core.decider.policy import policy_path
from core.decider.principles import (
    PrinciplesKeeper,
    PrincipleSources,
    keep_folder,
    kept_folder,
)
from core.decider.score import classify
from core.decider.service import record_lookup
from core.errors import InvalidDecision, JournalDamaged, ModeRefused
from core.exporters.csv_export import render_csv
from core.exporters.decision_log import render_log
from core.profile.model import ProfileStatus
from core.record.codec import encode_record, parse_record
from core.record.corrections import Correction, apply_correction
from core.record.origin import AUTOMATIC_TAG, is_automatic
from core.record.summary import english_summary
from tests.core.decider.support import KIND, Journal, database_proposal


@pytest.fixture
def journal(tmp_path: Path) -> Journal:
    return Journal(tmp_path / "journal")


def events(journal: Journal, kind: str) -> list[str]:
    read = DeciderLedger(journal.root).read()
    return [e.outcome or e.type for e in read.events if e.type == kind]


@pytest.mark.parametrize(
    ("answer", "custom", "outcome"),
    [
        ("Postgres", False, "agree"),
        ("postgres", True, "agree"),
        ("Postgres, with pgbouncer in front", True, "amend"),
        ("SQLite", False, "overrule"),
        ("Not Postgres: a flat file", True, "overrule"),
        ("A document store", True, "overrule"),
    ],
)
def test_scoring_from_the_option_texts(answer: str, custom: bool, outcome: str) -> None:
    assert classify("Postgres", answer, custom) == outcome


def test_no_prediction_before_a_rule_then_one_per_predicted_decision(journal: Journal) -> None:
    journal.answer_many(2)
    assert events(journal, "prediction") == []  # no rule yet: two decisions make the first
    journal.answer_many(3, start=2)
    assert events(journal, "prediction") == ["prediction"] * 3
    assert events(journal, "scored") == ["agree"] * 3


def test_the_prediction_is_logged_before_the_person_answers(journal: Journal) -> None:
    journal.answer_many(3)
    outcome = journal.present(database_proposal(50))
    assert isinstance(outcome, NeedsHuman)
    [prediction] = [
        e
        for e in DeciderLedger(journal.root).read().events
        if e.decision_id == outcome.ticket.decision_id
    ]
    assert (prediction.type, prediction.option_label) == ("prediction", "Postgres")
    assert prediction.rule_id.startswith("preference-") and prediction.support == 3


def test_amends_and_overrules_are_scored_and_lower_agreement(journal: Journal) -> None:
    journal.answer_many(4)
    journal.answer(database_proposal(10), custom="Postgres, with pgbouncer in front")
    journal.answer(database_proposal(11), "sqlite")
    assert events(journal, "scored") == ["agree", "agree", "amend", "overrule"]
    score = journal.decider.score_of(KIND)
    assert score is not None
    assert (score.scored, score.agree, score.amend, score.overrule) == (4, 2, 1, 1)
    assert score.agreement == 0.5 and not score.recommended


def test_auto_is_refused_until_recommended(journal: Journal) -> None:
    journal.answer_many(11)
    score = journal.decider.score_of(KIND)
    assert score is not None and score.scored == 9 and not score.recommended
    with pytest.raises(ModeRefused, match="9 scored predictions; auto needs at least 10"):
        journal.decider.set_mode("database engine", "auto")
    assert journal.decider.modes.mode_of(KIND) == "ask"
    with pytest.raises(InvalidDecision):
        journal.decider.set_mode(KIND, "sometimes")


def test_graduation_automatic_answers_and_demotion(journal: Journal) -> None:
    journal.answer_many(12)
    score = journal.decider.score_of(KIND)
    assert score is not None and (score.scored, score.agreement) == (10, 1.0)
    assert score.recommended
    journal.decider.set_mode("database_engine", "auto")  # folded: the same kind
    assert journal.decider.modes.mode_of(KIND) == "auto"
    rule_before = journal.profile.load().rules[0]

    outcome = journal.present(database_proposal(100))
    assert isinstance(outcome, Recorded), outcome
    record = outcome.record
    assert is_automatic(record) and AUTOMATIC_TAG in record.tags
    assert record.selected_option_id == "postgres"
    assert (record.provenance.selection, record.provenance.rationale) == ("runtime", "runtime")
    assert parse_record(encode_record(record), what="test") == record  # KernForge-valid
    result = outcome_to_result(outcome)
    assert result["decided_by"] == "profile" and result["rule_id"] == outcome.rule_id
    assert "without asking" in result["message"]
    assert english_summary(record).startswith(
        "To solve “Pick the database engine for service 100”, the user's preference profile "
        "chose Postgres because it is the usual choice, 12 of 12 similar decisions (rule "
    )
    assert journal.pending.for_session(f"session-{journal.sessions}") is None

    # never evidence: the profile's support and the score are unchanged
    rule_after = journal.profile.load().rules[0]
    assert record.id not in rule_after.support_decision_ids
    assert rule_after.support_decision_ids == rule_before.support_decision_ids
    after = journal.decider.score_of(KIND)
    assert after is not None and (after.scored, after.automatic) == (10, 1)

    # a high-risk one of the same kind still asks, and is scored as a shadow prediction
    risky = journal.present(database_proposal(101, risk_level="high"))
    assert isinstance(risky, NeedsHuman)
    unlock = journal.present(database_proposal(102, problem="Database for the production cutover"))
    assert isinstance(unlock, NeedsHuman)

    # two overrules within seven days demote it, on the test's clock
    journal.decider.overrule(journal.store, record.id, "SQLite")
    assert journal.decider.modes.mode_of(KIND) == "auto"
    # the overrule is not folded into the profile yet: nothing is answered from it until then
    assert isinstance(journal.present(database_proposal(103)), NeedsHuman)
    journal.profile.rebuild()
    second = journal.present(database_proposal(104))
    assert isinstance(second, Recorded) and is_automatic(second.record)
    journal.clock.advance(days=6)
    done = journal.decider.overrule(journal.store, second.record.id, "sqlite")
    assert done.demoted
    assert journal.decider.modes.mode_of(KIND) == "ask"
    corrected = journal.store.get(second.record.id)
    assert corrected.selected_option_id == "sqlite" and not is_automatic(corrected)
    assert corrected.provenance.selection == "user"
    history = journal.decider.score_of(KIND)
    assert history is not None and history.history[-1].reason.startswith("demoted: 2 overrules")
    # after a demotion only newer predictions count: auto is not recommended again at once
    assert not history.recommended
    with pytest.raises(ModeRefused):
        journal.decider.set_mode(KIND, "auto")
    journal.profile.rebuild()
    assert isinstance(journal.present(database_proposal(105)), NeedsHuman)


def test_overrules_further_apart_than_seven_days_do_not_demote(journal: Journal) -> None:
    journal.answer_many(12)
    journal.decider.set_mode(KIND, "auto")
    first = journal.present(database_proposal(200))
    assert isinstance(first, Recorded)
    journal.decider.overrule(journal.store, first.record.id, "sqlite")
    journal.profile.rebuild()
    journal.clock.advance(days=8)
    second = journal.present(database_proposal(201))
    assert isinstance(second, Recorded)
    assert not journal.decider.overrule(journal.store, second.record.id, "sqlite").demoted
    assert journal.decider.modes.mode_of(KIND) == "auto"


def test_only_automatic_answers_can_be_overruled(journal: Journal) -> None:
    recorded = journal.answer(database_proposal(1), "postgres")
    with pytest.raises(ModeRefused, match="answered by the person"):
        journal.decider.overrule(journal.store, recorded.record.id, "sqlite")


def test_a_policy_file_the_user_edited_is_obeyed(journal: Journal) -> None:
    journal.answer_many(12)
    journal.decider.set_mode(KIND, "auto")
    path = policy_path(journal.root)
    seeded = json.loads(path.read_text(encoding="utf-8"))
    assert "마이그레이션" in seeded["unlock_phrases"] and "credential" in seeded["unlock_phrases"]
    seeded["hard_stops"] = ["service 300"]
    path.write_text(json.dumps(seeded), encoding="utf-8")
    assert isinstance(journal.present(database_proposal(300)), NeedsHuman)
    assert isinstance(journal.present(database_proposal(301)), Recorded)


def test_a_damaged_policy_or_modes_file_asks_the_person(journal: Journal) -> None:
    journal.answer_many(12)
    journal.decider.set_mode(KIND, "auto")
    path = policy_path(journal.root)
    path.write_text('{"unlock_phrases": "all"}', encoding="utf-8")
    with pytest.raises(JournalDamaged, match="must be a list of strings"):
        journal.decider.policy()
    assert isinstance(journal.present(database_proposal(400)), NeedsHuman)
    path.unlink()
    journal.decider.modes.path.write_text("{not json", encoding="utf-8")
    with pytest.raises(JournalDamaged, match="every kind is asked"):
        journal.decider.scores()
    assert isinstance(journal.present(database_proposal(401)), NeedsHuman)


def test_an_automatic_answer_is_marked_in_the_exports(journal: Journal) -> None:
    journal.answer_many(12)
    journal.decider.set_mode(KIND, "auto")
    outcome = journal.present(database_proposal(500))
    assert isinstance(outcome, Recorded)
    log = render_log([outcome.record]).decode("utf-8")
    assert "(Answered by the preference profile, not asked.)" in log
    person = next(r for r in journal.store.list() if not is_automatic(r))
    assert "Answered by the preference profile" not in render_log([person]).decode("utf-8")
    csv_text = render_csv([outcome.record]).decode("utf-8")
    assert AUTOMATIC_TAG in csv_text


def test_a_correction_of_an_automatic_answer_counts_as_an_overrule(journal: Journal) -> None:
    """The journal window's correction (and `edit`) go through the store: the decider hears
    the revision and counts it once, as `overrule` does."""
    journal.store.add_listener(journal.decider)
    journal.answer_many(12)
    journal.decider.set_mode(KIND, "auto")
    records = []
    for number in (600, 601):
        outcome = journal.present(database_proposal(number))
        assert isinstance(outcome, Recorded)
        records.append(outcome.record)
    correction = Correction(
        selected_option_id="sqlite",
        selection_reason="a tiny tool",
        rejected_reasons={"postgres": "too much for it"},
    )
    journal.store.revise(records[0].id, 1, lambda r: apply_correction(r, correction))
    journal.store.revise(records[0].id, 2, lambda r: apply_correction(r, Correction(tags=["x"])))
    assert events(journal, "overruled") == ["overruled"]
    assert journal.decider.modes.mode_of(KIND) == "auto"
    done = journal.decider.overrule(journal.store, records[1].id, "SQLite")
    assert done.demoted and events(journal, "overruled") == ["overruled", "overruled"]
    assert journal.decider.modes.mode_of(KIND) == "ask"


def test_a_kept_folder_is_rewritten_when_the_profile_is_current_again(
    journal: Journal, tmp_path: Path
) -> None:
    journal.answer_many(3)
    folder = tmp_path / "principles"
    keeper = PrinciplesKeeper(
        journal.root,
        lambda: PrincipleSources.of(
            journal.profile.load(), record_lookup(journal.store), journal.decider.scores()
        ),
    )
    keeper.on_state_changed(ProfileStatus("current"))
    assert not folder.exists()  # nothing kept yet
    keep_folder(journal.root, folder)
    assert kept_folder(journal.root) == folder.resolve()
    keeper.on_state_changed(ProfileStatus("rebuilding"))
    assert not folder.exists()
    keeper.on_state_changed(ProfileStatus("current"))
    assert "3 of 3 similar decisions" in (folder / "storage.md").read_text(encoding="utf-8")
    journal.answer_many(1, start=3)
    keeper.on_state_changed(ProfileStatus("current"))
    doc = (folder / "storage.md").read_text(encoding="utf-8")
    assert "4 of 4 similar decisions" in doc and "Version 1 ·" in doc
    keep_folder(journal.root, None)
    assert kept_folder(journal.root) is None
