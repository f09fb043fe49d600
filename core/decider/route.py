"""Where a question goes before anyone answers it: to the person, or to the profile.

Why pure and first-match-wins: the rule that keeps risky questions with the person must be
readable in one place and must never depend on a file, a clock or a window. `predict` finds the
profile rule that applies (same decision kind, an option with the rule's label); `route` then
asks, in order, whether anything forbids an automatic answer. It never widens: an always-ask
kind, a high risk, a hard stop, an unlock phrase or a human-only project keeps the question with
the person whatever the kind's mode, and so do an `ask` mode, no matching rule and a rule too
weak to stand for the person, and a profile out of date with the journal.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from core.decider.fold import contains_folded, fold_name
from core.decider.policy import RoutingPolicy
from core.profile.derive import label_key, preference_label_key
from core.profile.model import PreferenceProfile
from core.profile.query import RuleEvidence, query_evidence

MODE_ASK = "ask"
MODE_AUTO = "auto"
MODES = (MODE_ASK, MODE_AUTO)
HIGH_RISKS = frozenset({"high", "critical"})
STRENGTH_MIN = 0.5
"""The lowest `wilson_lower_95` of a rule that may answer for the person: five unanimous
decisions, or nine of ten, reach it; three of three do not."""

Destination = Literal["person", "profile"]


@dataclass(frozen=True, slots=True)
class AskedOption:
    id: str
    label: str


@dataclass(frozen=True, slots=True)
class Question:
    """What routing looks at in a proposal; every text is searched for phrases."""

    kind: str
    options: tuple[AskedOption, ...]
    risk_level: str = ""
    project_names: tuple[str, ...] = ()
    domains: tuple[str, ...] = ()
    project_id: str = ""
    texts: tuple[str, ...] = ()

    @property
    def folded_kind(self) -> str:
        return fold_name(self.kind)


@dataclass(frozen=True, slots=True)
class Prediction:
    """The option the profile expects the person to choose, the rule and how strong it is."""

    rule_id: str
    option_id: str
    option_label: str
    support: int
    contradictions: int
    confidence: float
    strength: float
    support_ids: tuple[str, ...] = ()

    @property
    def strong(self) -> bool:
        return self.strength >= STRENGTH_MIN


@dataclass(frozen=True, slots=True)
class Route:
    to: Destination
    reason: str
    prediction: Prediction | None = None
    shadow: bool = field(default=False)
    """A prediction is recorded to be scored against the person's answer."""


def matching_rules(profile: PreferenceProfile, question: Question) -> list[RuleEvidence]:
    """Enabled rules of the question's kind (folded), narrowest scope first."""
    wanted = question.folded_kind
    criteria = dict.fromkeys(
        r.criterion for r in profile.rules if r.enabled and fold_name(r.criterion) == wanted
    )
    found: list[RuleEvidence] = []
    for criterion in criteria:
        result = query_evidence(
            profile,
            kind=criterion,
            project_id=question.project_id,
            domains=list(question.domains),
        )
        found.extend(result.matches)
    return found


def predict(profile: PreferenceProfile, question: Question) -> Prediction | None:
    """The first applicable rule whose preferred label is one of the question's options."""
    by_key = {label_key(option.label): option for option in question.options}
    for rule in matching_rules(profile, question):
        option = by_key.get(preference_label_key(rule.preference))
        if option is not None:
            return Prediction(
                rule_id=rule.rule_id,
                option_id=option.id,
                option_label=option.label,
                support=rule.support_count,
                contradictions=rule.contradiction_count,
                confidence=rule.confidence,
                strength=rule.wilson_lower_95,
                support_ids=rule.support_decision_ids,
            )
    return None


def _phrase_in(texts: Sequence[str], phrases: Sequence[str]) -> bool:
    return any(contains_folded(text, phrase) for phrase in phrases for text in texts)


def route(
    question: Question,
    *,
    mode: str,
    prediction: Prediction | None,
    policy: RoutingPolicy,
    stale: str = "",
) -> Route:
    """First match wins; only the last line lets the profile answer.

    `stale` says why the profile the prediction came from is out of date with the journal
    ("" when it is current): an answer the profile has not folded in yet (an edit, an overrule,
    an import) may be the one that changes the rule, so a stale profile never answers."""
    shadow = prediction is not None

    def person(reason: str) -> Route:
        return Route("person", reason, prediction, shadow)

    if question.folded_kind in policy.always_ask_kinds:
        return person("this kind is always asked (routing policy)")
    if fold_name(question.risk_level) in HIGH_RISKS:
        return person(f"its risk is {question.risk_level.strip().lower()}")
    if _phrase_in(question.texts, policy.hard_stops):
        return person("it names a hard stop (routing policy)")
    if _phrase_in(question.texts, policy.unlock_phrases):
        return person("it names an unlock phrase (routing policy)")
    if any(fold_name(name) in policy.human_only_projects for name in question.project_names):
        return person("its project is human-only (routing policy)")
    if fold_name(mode) != MODE_AUTO:
        return person("this kind is asked (mode ask)")
    if prediction is None:
        return person("no preference rule matches its options")
    if not prediction.strong:
        return person(f"rule {prediction.rule_id} is not strong enough to answer for you")
    if stale:
        return person(stale)
    return Route("profile", f"rule {prediction.rule_id} answers this kind", prediction, False)
