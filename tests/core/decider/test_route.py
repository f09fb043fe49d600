"""Routing never widens: every case that keeps a question with the person, and folding."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.decider.fold import fold_name
from core.decider.policy import RoutingPolicy
from core.decider.route import AskedOption, Prediction, Question, route

STRONG = Prediction("preference-abc", "postgres", "Postgres", 9, 1, 0.95, 0.6)
WEAK = Prediction("preference-abc", "postgres", "Postgres", 3, 0, 0.8, 0.44)
POLICY = RoutingPolicy.of(
    hard_stops=["Vendor Contract"],
    human_only_projects=["garden-diary"],
    always_ask_kinds=["Merge Gate"],
)


def question(**changes: object) -> Question:
    values: dict[str, object] = {
        "kind": "database_engine",
        "options": (AskedOption("postgres", "Postgres"), AskedOption("sqlite", "SQLite")),
        "risk_level": "medium",
        "project_names": ("shopfront",),
        "texts": ("Pick the database engine", "Postgres", "SQLite"),
    }
    values.update(changes)
    return Question(**values)  # type: ignore[arg-type]


def test_a_clear_question_of_an_auto_kind_goes_to_the_profile() -> None:
    routed = route(question(), mode="auto", prediction=STRONG, policy=POLICY)
    assert routed.to == "profile"
    assert routed.prediction == STRONG
    assert not routed.shadow


@pytest.mark.parametrize(
    ("changes", "mode", "prediction", "reason"),
    [
        ({"kind": "merge-gate"}, "auto", STRONG, "always asked"),
        ({"kind": "MERGE_GATE."}, "auto", STRONG, "always asked"),
        ({"risk_level": "high"}, "auto", STRONG, "risk is high"),
        ({"risk_level": " Critical "}, "auto", STRONG, "risk is critical"),
        ({"texts": ("Sign the vendor-contract now",)}, "auto", STRONG, "hard stop"),
        ({"texts": ("Keep it, or DROP_TABLE and start over",)}, "auto", STRONG, "unlock"),
        ({"texts": ("Rotate the API-Key first",)}, "auto", STRONG, "unlock"),
        ({"texts": ("Run the schema change tonight",)}, "auto", STRONG, "unlock"),
        ({"texts": ("마이그레이션을 먼저 실행",)}, "auto", STRONG, "unlock"),
        ({"texts": ("데이터 손실 위험이 있음",)}, "auto", STRONG, "unlock"),
        ({"texts": ("비밀번호를 저장하는 방법",)}, "auto", STRONG, "unlock"),
        ({"texts": ("Pay by invoice: the billing page",)}, "auto", STRONG, "unlock"),
        ({"texts": ("Ship it to Production",)}, "auto", STRONG, "unlock"),
        ({"texts": ("Under which licence?",)}, "auto", STRONG, "unlock"),
        ({"project_names": ("Garden Diary",)}, "auto", STRONG, "human-only"),
        ({"project_names": ("x", "garden_diary")}, "auto", STRONG, "human-only"),
        ({}, "ask", STRONG, "mode ask"),
        ({}, "", STRONG, "mode ask"),
        ({}, "auto", None, "no preference rule"),
        ({}, "auto", WEAK, "not strong enough"),
    ],
)
def test_never_widen(
    changes: dict[str, object], mode: str, prediction: Prediction | None, reason: str
) -> None:
    routed = route(question(**changes), mode=mode, prediction=prediction, policy=POLICY)
    assert routed.to == "person"
    assert reason in routed.reason
    assert routed.shadow is (prediction is not None)


def test_a_blocked_question_keeps_its_prediction_for_scoring() -> None:
    routed = route(question(risk_level="high"), mode="auto", prediction=STRONG, policy=POLICY)
    assert routed.prediction == STRONG and routed.shadow


def test_an_empty_policy_still_keeps_high_risk_with_the_person() -> None:
    empty = RoutingPolicy.of(unlock_phrases=[])
    assert route(question(), mode="auto", prediction=STRONG, policy=empty).to == "profile"
    high = route(question(risk_level="high"), mode="auto", prediction=STRONG, policy=empty)
    assert high.to == "person"


def test_folding_drops_case_spaces_dashes_underscores_and_punctuation() -> None:
    assert fold_name("Merge-Gate") == fold_name("merge_gate") == fold_name(" merge gate. ")
    assert fold_name("Merge-Gate") == "mergegate"
    assert fold_name("데이터 손실") == "데이터손실"
    assert fold_name("API key") == fold_name("api-KEY!")


_SEPARATORS = st.text(alphabet=" -_.,;:!?/\t", max_size=3)


@given(st.lists(st.text(alphabet=st.characters(categories=["L", "N"]), min_size=1), min_size=1))
def test_folding_ignores_separators_between_words(words: list[str]) -> None:
    spaced = " ".join(words)
    assert fold_name(spaced) == fold_name("_".join(words)) == fold_name("-".join(words))
    assert fold_name(spaced) == fold_name("".join(words))


@given(st.text(), _SEPARATORS, _SEPARATORS)
def test_folding_is_idempotent_and_ignores_case_and_edges(text: str, left: str, right: str) -> None:
    folded = fold_name(text)
    assert fold_name(folded) == folded
    assert fold_name(left + text.upper() + right) == fold_name(text.upper())
    assert fold_name(text.casefold()) == folded


@given(st.text(), st.text(min_size=1))
def test_a_phrase_matches_however_it_is_spaced(before: str, phrase: str) -> None:
    folded = fold_name(phrase)
    policy = RoutingPolicy.of(unlock_phrases=[phrase])
    text = before + " " + phrase.replace(" ", "-") + "."
    routed = route(question(texts=(text,)), mode="auto", prediction=STRONG, policy=policy)
    assert routed.to == ("person" if folded else "profile")


def test_a_stale_profile_never_answers_and_says_why() -> None:
    routed = route(question(), mode="auto", prediction=STRONG, policy=POLICY, stale="out of date")
    assert (routed.to, routed.reason, routed.shadow) == ("person", "out of date", True)
