"""Outcomes: accept/amend/redirect, reward math, Beta decay and Elo, the signals log, per-rule
figures. The math is checked as pure functions with injected times."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.bulk.compact_json import compact_bytes
from core.bulk.record_view import plain_view
from core.errors import InvalidDecision, NotFound
from core.gocompat.gotime import GoTime
from core.journal import Journal
from core.outcomes.reward import (
    INITIAL_PATTERN_SCORE,
    PatternScore,
    compute_reward,
    decay_to,
    elo_expected,
    elo_update,
    update_pattern_score,
)
from core.outcomes.rule_scores import rule_outcomes
from core.outcomes.signals import (
    OutcomeLog,
    latest_by_decision,
    make_signal,
    report_outcome,
)
from core.outcomes.verdict import (
    acceptance_by_kind,
    classify_answer,
    is_recommended_label,
    record_outcome,
    strip_recommended,
)
from core.profile.model import PreferenceProfile, ProfileRule
from core.record.models import Option
from tests.factories import make_record

OPTIONS = ["Use a queue (Recommended)", "Use a cron job"]
DAY = 86_400 * 1_000_000_000


# classification ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Use a queue (Recommended)", "accept"),
        ("use a queue", "accept"),
        ("Use a queue, capped at three retries", "amend"),
        ("Use a cron job", "redirect"),
        ("Something else entirely", "redirect"),
        ("Don't use a queue at all", "redirect"),
        (["Use a queue (Recommended)"], "accept"),
        (["Use a queue (Recommended)", "Use a cron job"], "amend"),
        (["Use a cron job"], "redirect"),
        ("", None),
        (None, None),
        ([], None),
    ],
)
def test_classify_answer(answer: str | list[str] | None, expected: str | None) -> None:
    assert classify_answer(answer, OPTIONS, "Use a queue (Recommended)") == expected


def test_no_recommendation_is_out_of_scoring() -> None:
    assert classify_answer("Use a cron job", OPTIONS, None) is None
    assert classify_answer("Use a cron job", OPTIONS, "  ") is None


@pytest.mark.parametrize(
    ("label", "flagged", "stripped"),
    [
        ("Use a queue (Recommended)", True, "Use a queue"),
        ("Use a queue [recommended, fastest]", True, "Use a queue"),
        ("Recommended: Use a queue", True, "Use a queue"),
        ("Use a queue - recommended", True, "Use a queue"),
        ("Use a queue (not recommended)", False, "Use a queue (not recommended)"),
        ("Recommendations engine", False, "Recommendations engine"),
        ("Use a queue", False, "Use a queue"),
    ],
)
def test_recommended_marker(label: str, flagged: bool, stripped: str) -> None:
    assert is_recommended_label(label) is flagged
    assert strip_recommended(label) == stripped


def test_record_outcome_and_acceptance_by_kind() -> None:
    accepted = make_record()
    redirected = make_record(id="decision-r", selected_option_id="single-json", rejected_reasons=[])
    amended = make_record(
        id="decision-a",
        selected_option_id="",
        custom_selection="Per-record JSON with a daily compaction",
    )
    other_kind = make_record(id="decision-o", decision_kind="cache_policy")
    no_rec = make_record(
        id="decision-n",
        recommended_option_id="",
        options=[
            Option(id="a", label="A"),
            Option(id="b", label="B"),
        ],
    )
    deleted = make_record(id="decision-d", status="deleted")
    assert [record_outcome(r) for r in (accepted, redirected, amended, no_rec)] == [
        "accept",
        "redirect",
        "amend",
        None,
    ]
    rows = acceptance_by_kind([accepted, redirected, amended, other_kind, no_rec, deleted])
    assert [(r.decision_kind, r.accept, r.amend, r.redirect) for r in rows] == [
        ("storage_backend", 1, 1, 1),
        ("cache_policy", 1, 0, 0),
    ]
    assert rows[0].accept_rate == pytest.approx(1 / 3)
    imported = make_record(id="decision-i")
    imported.provenance.selection = "imported"
    assert acceptance_by_kind([imported], include_imported=False) == []
    records = [accepted, redirected, amended, other_kind, no_rec, deleted]
    views = [plain_view(compact_bytes(record)) for record in records]
    assert [record_outcome(v) for v in views] == [record_outcome(r) for r in records]
    assert acceptance_by_kind(views) == rows  # what `outcome-stats` reads from the index


# reward ---------------------------------------------------------------------------------------


def test_reward_weights_and_renormalization() -> None:
    assert compute_reward(eval_score=0.8, accepted=True, ci="fail") == pytest.approx(0.7)
    assert compute_reward(eval_score=1.0, accepted=True, ci="pass") == 1.0
    assert compute_reward(ci="pass") == 1.0  # one signal alone carries the whole weight
    assert compute_reward(accepted=False, ci="pass") == pytest.approx(0.2 / 0.5)
    assert compute_reward(eval_score=0.5, ci="fail") == pytest.approx(0.25 / 0.7)
    assert compute_reward() is None
    assert compute_reward(eval_score=math.nan) is None
    assert compute_reward(eval_score=3.0) == 1.0 and compute_reward(eval_score=-1.0) == 0.0


@given(
    st.one_of(st.none(), st.floats(allow_nan=True, allow_infinity=True)),
    st.one_of(st.none(), st.booleans()),
    st.one_of(st.none(), st.sampled_from(["pass", "fail"])),
)
def test_reward_is_always_in_the_unit_interval(
    eval_score: float | None, accepted: bool | None, ci: str | None
) -> None:
    reward = compute_reward(eval_score=eval_score, accepted=accepted, ci=ci)
    assert reward is None or 0.0 <= reward <= 1.0


# Elo and Beta --------------------------------------------------------------------------------


def test_elo_updates() -> None:
    assert elo_expected(1200.0) == 0.5
    assert elo_update(1200.0, 1.0) == 1216.0
    assert elo_update(1200.0, 0.0) == 1184.0
    assert elo_update(1400.0, 1.0) == pytest.approx(1400 + 32 * (1 - 1 / (1 + 10**-0.5)))


def test_beta_update_decays_per_update_and_over_time() -> None:
    fresh = update_pattern_score(INITIAL_PATTERN_SCORE, 1.0)
    assert (fresh.alpha, fresh.beta, fresh.updates) == (2.0, 1.0, 1)
    assert fresh.mean == pytest.approx(2 / 3) and fresh.elo == 1216.0
    second = update_pattern_score(fresh, 0.0)
    assert second.alpha == pytest.approx(1 + 1 * 0.98)
    assert second.beta == pytest.approx(2.0)
    t0 = GoTime.parse("2026-01-01T00:00:00Z")
    dated = update_pattern_score(INITIAL_PATTERN_SCORE, 1.0, at=t0)
    later = update_pattern_score(dated, 1.0, at=GoTime(t0.unix_ns + 90 * DAY))
    assert later.alpha == pytest.approx(1 + 0.98 * 0.5 + 1)
    assert later.last_ns == t0.unix_ns + 90 * DAY


def test_decay_to_moves_toward_the_prior_and_is_pure() -> None:
    score = PatternScore(alpha=5.0, beta=1.0, last_ns=0)
    now = GoTime(180 * DAY)
    decayed = decay_to(score, now)
    assert decayed.alpha == pytest.approx(1 + 4 * 0.25) and decayed.beta == 1.0
    assert score.alpha == 5.0  # the input is unchanged
    assert decay_to(score, GoTime(-5)) is score
    assert decay_to(INITIAL_PATTERN_SCORE, now) is INITIAL_PATTERN_SCORE


@given(st.lists(st.floats(min_value=0.0, max_value=1.0), max_size=40))
def test_beta_mean_stays_a_probability(rewards: list[float]) -> None:
    score = INITIAL_PATTERN_SCORE
    for reward in rewards:
        score = update_pattern_score(score, reward)
    assert 0.0 < score.mean < 1.0 and score.alpha >= 1.0 - 1e-9 and score.beta >= 1.0 - 1e-9


# signals log ---------------------------------------------------------------------------------


@pytest.fixture
def journal(tmp_path: Path) -> Journal:
    journal = Journal(tmp_path / "journal")
    journal.store.put(make_record())
    return journal


def test_report_outcome_appends_and_never_edits_the_record(journal: Journal) -> None:
    before = (journal.store.records_dir / "decision-test-1.json").read_bytes()
    signal = report_outcome(journal, "decision-test-1", ci="pass", eval_score=0.5, note="ok")
    report_outcome(journal, "decision-test-1", accepted=False)
    assert signal.reward == pytest.approx((0.5 * 0.5 + 0.2) / 0.7)
    assert (journal.store.records_dir / "decision-test-1.json").read_bytes() == before
    read = OutcomeLog(journal.root).read()
    assert [s.source for s in read.signals] == ["cli", "cli"]
    merged = latest_by_decision(read.signals)["decision-test-1"]
    assert (merged.ci, merged.accepted, merged.eval_score, merged.reports) == (
        "pass",
        False,
        0.5,
        2,
    )


def test_report_outcome_refuses_bad_input(journal: Journal) -> None:
    with pytest.raises(NotFound):
        report_outcome(journal, "decision-missing", ci="pass")
    with pytest.raises(InvalidDecision, match="at least one"):
        report_outcome(journal, "decision-test-1")
    with pytest.raises(InvalidDecision, match="eval"):
        report_outcome(journal, "decision-test-1", eval_score=1.5)
    with pytest.raises(InvalidDecision, match="ci"):
        report_outcome(journal, "decision-test-1", ci="green")


def test_torn_and_invalid_lines_are_skipped(journal: Journal) -> None:
    log = OutcomeLog(journal.root)
    report_outcome(journal, "decision-test-1", ci="fail")
    with log.log.path.open("ab") as handle:
        handle.write(b'{"v":1,"decision_id":"decision-test-1","at":"2026-01-0')
    report_outcome(journal, "decision-test-1", ci="pass")
    with log.log.path.open("ab") as handle:
        handle.write(b'{"v":1,"decision_id":"decision-test-1","at":"x","ci":"pass"}\n')
    read = log.read()
    assert [s.ci for s in read.signals] == ["fail", "pass"] and read.unreadable == 2


def test_notes_are_redacted(journal: Journal) -> None:
    signal = make_signal("decision-test-1", note="token ghp_q7Lm2Xp9Rt4Vw8Zs1Kd5Fg3Jb6Nc0Hy2Ae8Tu")
    assert "ghp_" not in signal.note and "[REDACTED" in signal.note


# per-rule figures ----------------------------------------------------------------------------


def test_rule_outcomes_fold_each_supporting_decision_once() -> None:
    t0 = GoTime.parse("2026-01-01T00:00:00Z")
    signals = [
        make_signal("decision-a", at=t0, ci="fail"),
        make_signal("decision-a", at=GoTime(t0.unix_ns + DAY), ci="pass"),
        make_signal("decision-b", at=GoTime(t0.unix_ns + 2 * DAY), accepted=False),
        make_signal("decision-x", at=t0, ci="pass"),
    ]
    profile = PreferenceProfile(
        rules=[
            ProfileRule(id="preference-1", support_decision_ids=["decision-a", "decision-b"]),
            ProfileRule(id="preference-2", support_decision_ids=["decision-c"]),
        ]
    )
    figures = rule_outcomes(profile, signals)
    first = figures["preference-1"]
    assert (first.support, first.rewarded) == (2, 2)
    expected = update_pattern_score(
        update_pattern_score(INITIAL_PATTERN_SCORE, 1.0, at=GoTime(t0.unix_ns + DAY)),
        0.0,
        at=GoTime(t0.unix_ns + 2 * DAY),
    )
    assert first.score == expected
    assert figures["preference-2"].score == INITIAL_PATTERN_SCORE
    assert figures["preference-2"].to_dict()["beta_mean"] == 0.5
    later = rule_outcomes(profile, signals, now=GoTime(t0.unix_ns + 400 * DAY))
    assert later["preference-1"].beta_mean == pytest.approx(0.5, abs=0.05)
