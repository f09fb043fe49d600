"""Reward from outcome signals, and the two per-rule estimators over rewards (Beta and Elo).

Why these numbers: they are the learning journal's (seed 002) — weights eval 0.5, acceptance
0.3, CI 0.2 with missing signals renormalised; Elo with K 32 around 1200; a Beta mean whose
evidence decays toward the uniform prior per update (0.98) and over time (half-life 90 days).
All functions are pure: no clock, no mutation, so the window and the CLI show the same figures.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from core.gocompat.gotime import GoTime

REWARD_WEIGHTS = {"eval": 0.5, "accepted": 0.3, "ci": 0.2}
ELO_BASE = 1200.0
ELO_K = 32.0
BETA_DECAY = 0.98
BETA_HALF_LIFE_DAYS = 90.0
_NS_PER_DAY = 86_400 * 1_000_000_000


def compute_reward(
    *, eval_score: float | None = None, accepted: bool | None = None, ci: str | None = None
) -> float | None:
    """The weighted mean of the signals present, in [0, 1]; None when no signal is present.

    A missing signal drops out and the remaining weights are renormalised, so one CI pass alone
    is a reward of 1, not 0.2. An eval score outside [0, 1] is clamped; a non-finite one is
    treated as missing.
    """
    parts: list[tuple[float, float]] = []
    if eval_score is not None and math.isfinite(eval_score):
        parts.append((REWARD_WEIGHTS["eval"], min(1.0, max(0.0, eval_score))))
    if accepted is not None:
        parts.append((REWARD_WEIGHTS["accepted"], 1.0 if accepted else 0.0))
    if ci is not None:
        parts.append((REWARD_WEIGHTS["ci"], 1.0 if ci == "pass" else 0.0))
    if not parts:
        return None
    total = sum(weight for weight, _ in parts)
    value = sum(weight * score for weight, score in parts) / total
    return min(1.0, max(0.0, value))


@dataclass(frozen=True, slots=True)
class PatternScore:
    """Both estimators for one rule; `alpha`/`beta` start at the uniform prior (1, 1)."""

    elo: float = ELO_BASE
    alpha: float = 1.0
    beta: float = 1.0
    updates: int = 0
    last_ns: int | None = None

    @property
    def mean(self) -> float:
        return self.alpha / (self.alpha + self.beta)


INITIAL_PATTERN_SCORE = PatternScore()


def elo_expected(elo: float) -> float:
    """The expected score against a baseline opponent rated ELO_BASE."""
    return 1.0 / (1.0 + math.pow(10.0, (ELO_BASE - elo) / 400.0))


def elo_update(elo: float, reward: float, k: float = ELO_K) -> float:
    """elo + K·(reward - expected): a fresh rule (1200) with reward 1 moves to 1216."""
    return elo + k * (reward - elo_expected(elo))


def decay_factor(elapsed_ns: int | None, *, per_update: float, half_life_days: float) -> float:
    """How much earlier evidence still counts: the per-update factor times the time decay."""
    factor = per_update
    if elapsed_ns is not None and elapsed_ns > 0 and half_life_days > 0:
        factor *= 0.5 ** (elapsed_ns / _NS_PER_DAY / half_life_days)
    return factor


def _decayed(value: float, factor: float) -> float:
    """Moves a Beta parameter toward the prior 1 by `factor`."""
    return 1.0 + (value - 1.0) * factor


def update_pattern_score(
    score: PatternScore,
    reward: float,
    *,
    at: GoTime | None = None,
    decay: float = BETA_DECAY,
    half_life_days: float = BETA_HALF_LIFE_DAYS,
    k: float = ELO_K,
) -> PatternScore:
    """One reward folded into both estimators.

    The Beta evidence decays before the new reward is added: per update always, and by the
    time since the previous update when both times are known (`at` is injected, never read
    from a clock).
    """
    reward = min(1.0, max(0.0, reward))
    elapsed = None
    if at is not None and score.last_ns is not None:
        elapsed = at.unix_ns - score.last_ns
    factor = decay_factor(elapsed, per_update=decay, half_life_days=half_life_days)
    return PatternScore(
        elo=elo_update(score.elo, reward, k),
        alpha=_decayed(score.alpha, factor) + reward,
        beta=_decayed(score.beta, factor) + (1.0 - reward),
        updates=score.updates + 1,
        last_ns=at.unix_ns if at is not None else score.last_ns,
    )


def decay_to(
    score: PatternScore, now: GoTime, *, half_life_days: float = BETA_HALF_LIFE_DAYS
) -> PatternScore:
    """The Beta evidence as it stands at `now`: only time decay, no update is counted."""
    if score.last_ns is None or now.unix_ns <= score.last_ns:
        return score
    factor = decay_factor(
        now.unix_ns - score.last_ns, per_update=1.0, half_life_days=half_life_days
    )
    return replace(score, alpha=_decayed(score.alpha, factor), beta=_decayed(score.beta, factor))
