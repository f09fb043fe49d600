"""Scoring shadow predictions against the person's own answers, graduation and demotion.

The rules (docs/decisions.md, "A decision kind graduates to automatic answers only on its own
record"):

- a person's answer to a predicted decision is `agree` (the predicted option, however spelled),
  `amend` (free text that builds on the predicted option, as the outcome verdict reads it) or
  `overrule` (anything else);
- agreement is agree / scored; amends count as scored, not as agreement;
- auto is recommended with at least `GRADUATION_MIN_SCORED` scored predictions and agreement of
  at least `GRADUATION_AGREEMENT`, counted since the kind's last demotion, and never for a kind
  the routing policy always asks;
- `DEMOTION_OVERRULES` overrules (scored overrules and corrected automatic answers) within
  `DEMOTION_WINDOW` while a kind is `auto` set it back to `ask`.

Automatic answers are never scored: only the person's own answers are evidence.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from core.decider.fold import fold_name
from core.decider.ledger import Event, Outcome
from core.decider.modes import KindMode, ModeChange
from core.decider.policy import RoutingPolicy
from core.decider.route import MODE_ASK, MODE_AUTO
from core.messages import wording
from core.outcomes.verdict import extends_label

GRADUATION_MIN_SCORED = 10
GRADUATION_AGREEMENT = 0.9
DEMOTION_OVERRULES = 2
DEMOTION_WINDOW = timedelta(days=7)


def classify(predicted_label: str, answer_label: str, custom: bool) -> Outcome:
    """The person's answer against the prediction, from the option texts themselves."""
    if fold_name(answer_label) == fold_name(predicted_label):
        return "agree"
    if custom and extends_label(answer_label, predicted_label):
        return "amend"
    return "overrule"


@dataclass(frozen=True, slots=True)
class KindScore:
    kind: str
    kind_label: str
    mode: str
    scored: int
    agree: int
    amend: int
    overrule: int
    automatic: int
    recommended: bool
    reason: str
    recent_overrules: int
    demote: bool
    history: tuple[ModeChange, ...] = field(default=())

    @property
    def agreement(self) -> float:
        return self.agree / self.scored if self.scored else 0.0


def _recommendation(scored: int, agree: int, locked: bool) -> tuple[bool, str]:
    if locked:
        return False, "this kind is always asked (routing policy)"
    if scored < GRADUATION_MIN_SCORED:
        return False, (
            f"{wording.count(scored, 'scored prediction')}; auto needs at least "
            f"{GRADUATION_MIN_SCORED}"
        )
    share = agree / scored
    if share < GRADUATION_AGREEMENT:
        return False, (
            f"agreement {share:.0%} of {scored}; auto needs at least {GRADUATION_AGREEMENT:.0%}"
        )
    return True, f"agreement {share:.0%} of {scored} scored predictions"


def score_kinds(
    events: Iterable[Event],
    modes: Mapping[str, KindMode],
    policy: RoutingPolicy,
    *,
    now: datetime,
    kinds: Iterable[tuple[str, str]] = (),
) -> list[KindScore]:
    """One score per kind seen in the log, the modes file or `kinds` ((folded, label) pairs)."""
    labels: dict[str, str] = {k: label for k, label in kinds}
    labels.update({k: m.kind_label for k, m in modes.items()})
    by_kind: dict[str, list[Event]] = {}
    for event in events:
        by_kind.setdefault(event.kind, []).append(event)
        labels.setdefault(event.kind, event.kind_label)
    out = []
    for kind in sorted(labels):
        entry = modes.get(kind) or KindMode(labels[kind])
        demoted = entry.last_demotion()
        counted_from = demoted.moment if demoted else None
        kind_events = by_kind.get(kind, [])
        scored = [
            e
            for e in kind_events
            if e.type == "scored" and (counted_from is None or e.moment > counted_from)
        ]
        agree = sum(e.outcome == "agree" for e in scored)
        amend = sum(e.outcome == "amend" for e in scored)
        recent = overrules_since(kind_events, entry, now=now)
        recommended, reason = _recommendation(len(scored), agree, kind in policy.always_ask_kinds)
        out.append(
            KindScore(
                kind=kind,
                kind_label=labels[kind],
                mode=entry.mode,
                scored=len(scored),
                agree=agree,
                amend=amend,
                overrule=len(scored) - agree - amend,
                automatic=sum(e.type == "automatic" for e in kind_events),
                recommended=recommended,
                reason=reason,
                recent_overrules=recent,
                demote=entry.mode == MODE_AUTO and recent >= DEMOTION_OVERRULES,
                history=tuple(entry.history),
            )
        )
    return out


def overrules_since(events: Iterable[Event], entry: KindMode, *, now: datetime) -> int:
    """Overrules within the demotion window, and since the kind was last set to auto."""
    start = now - DEMOTION_WINDOW
    since = entry.since if entry.mode == MODE_AUTO else None
    if since is not None and since > start:
        start = since
    return sum(
        1
        for e in events
        if (e.type == "overruled" or (e.type == "scored" and e.outcome == "overrule"))
        and start <= e.moment <= now
    )


def demotion_reason(count: int) -> str:
    overrules = wording.count(count, "overrule")
    return f"demoted: {overrules} within {DEMOTION_WINDOW.days} days set it back to {MODE_ASK}"
