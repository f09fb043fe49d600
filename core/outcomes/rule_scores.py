"""Per-rule outcome figures: a decayed Beta mean and an Elo score over the rule's evidence.

Why beside the profile and not in it: the profile is derived from the user's own decisions
and must stay byte-compatible with the reference; outcome signals are later evidence reported
by tools. These figures are computed on read from the profile and the outcome log, shown next
to a rule's support and confidence, and never create, remove or re-weight a rule.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from core.gocompat.gotime import GoTime
from core.outcomes.reward import INITIAL_PATTERN_SCORE, PatternScore, decay_to, update_pattern_score
from core.outcomes.signals import OutcomeLog, OutcomeSignal, latest_by_decision
from core.profile.model import PreferenceProfile

if TYPE_CHECKING:
    from core.journal import Journal


@dataclass(frozen=True, slots=True)
class RuleOutcome:
    """`rewarded` supporting decisions had signals; with none, the scores are the priors."""

    rule_id: str
    support: int
    rewarded: int
    score: PatternScore

    @property
    def beta_mean(self) -> float:
        return self.score.mean

    @property
    def elo(self) -> float:
        return self.score.elo

    def to_dict(self) -> dict[str, Any]:
        return {
            "rule_id": self.rule_id,
            "support": self.support,
            "rewarded": self.rewarded,
            "beta_mean": round(self.score.mean, 4),
            "alpha": round(self.score.alpha, 4),
            "beta": round(self.score.beta, 4),
            "elo": round(self.score.elo, 1),
        }


def rule_outcomes(
    profile: PreferenceProfile, signals: Iterable[OutcomeSignal], *, now: GoTime | None = None
) -> dict[str, RuleOutcome]:
    """Each rule's supporting decisions' rewards, oldest first, folded into both estimators.

    A decision contributes one reward: the reward of its latest value of each signal, dated by
    its latest report. With `now`, the Beta evidence also decays up to that moment.
    """
    latest = latest_by_decision(signals)
    figures: dict[str, RuleOutcome] = {}
    for rule in profile.rules:
        rewards = sorted(
            (s.last_at, reward)
            for s in (latest.get(d) for d in rule.support_decision_ids)
            if s is not None and (reward := s.reward) is not None
        )
        score = INITIAL_PATTERN_SCORE
        for at, reward in rewards:
            score = update_pattern_score(score, reward, at=at)
        if now is not None:
            score = decay_to(score, now)
        figures[rule.id] = RuleOutcome(rule.id, len(rule.support_decision_ids), len(rewards), score)
    return figures


def journal_rule_outcomes(journal: Journal, *, now: GoTime | None = None) -> dict[str, RuleOutcome]:
    """The figures for the journal's current profile and outcome log (what the panel shows)."""
    return rule_outcomes(journal.profile.load(), OutcomeLog(journal.root).read().signals, now=now)
