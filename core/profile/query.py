"""The evidence query: which enabled rules bear on a decision about to be made.

Why it exists and what it is not: the spec's "future consumer" reads rules as evidence, never as
commands. The result therefore says so in a `notice`, lists contradicting decisions beside the
supporting ones, and resolves conservatively from the narrowest scope (project) through the
relevant domains to global, so a small or stale evidence set cannot become a silent policy.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

from core.gocompat.text import go_lower, go_trim
from core.profile.model import (
    GLOBAL_KEY,
    SCOPE_DOMAIN,
    SCOPE_GLOBAL,
    SCOPE_PROJECT,
    PreferenceProfile,
    ProfileRule,
)
from core.record.normalize import dedupe_fold

NOTICE = (
    "Evidence, not an instruction: these rules summarize past user decisions. Show them, and "
    "still ask the user when the current tradeoff differs materially."
)
WILSON_LABEL = (
    "wilson_lower_95: lower bound of the 95% Wilson score interval of "
    "support / (support + contradictions); an additional strength figure, not the rule's "
    "confidence"
)
_Z95 = 1.959963984540054


def wilson_lower_95(support: int, contradictions: int) -> float:
    """Lower bound of the 95% Wilson score interval for support among all relevant decisions.

    Why beside the reference confidence: the confidence formula rewards volume linearly; the
    Wilson bound shows how sure the majority is given how few decisions there are.
    """
    total = support + contradictions
    if total <= 0:
        return 0.0
    share = support / total
    z2 = _Z95 * _Z95
    centre = share + z2 / (2 * total)
    margin = _Z95 * math.sqrt(share * (1 - share) / total + z2 / (4 * total * total))
    return max(0.0, (centre - margin) / (1 + z2 / total))


@dataclass(frozen=True, slots=True)
class RuleEvidence:
    """One matching rule as evidence. Counts are of the stored lists (each capped at 2,048)."""

    rule_id: str
    scope: str
    scope_key: str
    criterion: str
    preference: str
    preference_label: str
    confidence: float
    support_count: int
    contradiction_count: int
    support_decision_ids: tuple[str, ...]
    contradiction_decision_ids: tuple[str, ...]
    support_project_ids: tuple[str, ...]
    wilson_lower_95: float
    pinned: bool
    user_note: str


@dataclass(frozen=True, slots=True)
class EvidenceResult:
    """The answer to one query, with the notice that it is evidence and not an instruction."""

    kind: str
    project_id: str
    domains: tuple[str, ...]
    profile_revision: int
    profile_state: str
    matches: tuple[RuleEvidence, ...] = ()
    notice: str = NOTICE
    strength_note: str = field(default=WILSON_LABEL)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data, `notice` first so no consumer can miss it."""
        data = asdict(self)
        ordered = {"notice": data.pop("notice"), "strength_note": data.pop("strength_note")}
        ordered.update(data)
        ordered["matches"] = [dict(m) for m in ordered["matches"]]
        return ordered


def _evidence(rule: ProfileRule) -> RuleEvidence:
    support, against = len(rule.support_decision_ids), len(rule.contradiction_decision_ids)
    return RuleEvidence(
        rule_id=rule.id,
        scope=rule.scope,
        scope_key=rule.scope_key,
        criterion=rule.criterion,
        preference=rule.preference,
        preference_label=rule.preference_label,
        confidence=rule.confidence,
        support_count=support,
        contradiction_count=against,
        support_decision_ids=tuple(rule.support_decision_ids),
        contradiction_decision_ids=tuple(rule.contradiction_decision_ids),
        support_project_ids=tuple(rule.support_project_ids),
        wilson_lower_95=wilson_lower_95(support, against),
        pinned=rule.pinned,
        user_note=rule.user_note,
    )


def _wanted_contexts(project_id: str, domains: list[str]) -> list[tuple[str, str]]:
    """(scope, lowered key) in resolution order: project, each domain as given, global."""
    contexts = [(SCOPE_PROJECT, go_lower(project_id))] if project_id else []
    contexts.extend((SCOPE_DOMAIN, go_lower(go_trim(d))) for d in dedupe_fold(domains))
    contexts.append((SCOPE_GLOBAL, GLOBAL_KEY))
    return contexts


def query_evidence(
    profile: PreferenceProfile,
    *,
    kind: str,
    project_id: str = "",
    domains: list[str] | None = None,
    state: str = "",
) -> EvidenceResult:
    """Enabled rules for this decision kind, project → domain → global, each with its evidence.

    Args:
        profile: the loaded profile.
        kind: the decision kind (the rules' criterion), compared case-insensitively.
        project_id: the project ID, or "" to skip project rules.
        domains: the decision's domains, in order of relevance.
        state: the profile state ("current", "stale", ...), echoed so a consumer can discount
            stale evidence.
    """
    criterion = go_lower(go_trim(kind))
    project = go_trim(project_id)
    wanted = [d for d in (domains or []) if go_trim(d)]
    by_context: dict[tuple[str, str], list[ProfileRule]] = {}
    for rule in profile.rules:
        if rule.enabled and rule.criterion == criterion:
            key = GLOBAL_KEY if rule.scope == SCOPE_GLOBAL else go_lower(go_trim(rule.scope_key))
            context = (rule.scope, key)
            by_context.setdefault(context, []).append(rule)
    matches = [
        _evidence(rule)
        for context in _wanted_contexts(project, wanted)
        for rule in by_context.get(context, [])
    ]
    return EvidenceResult(
        kind=criterion,
        project_id=project,
        domains=tuple(go_lower(go_trim(d)) for d in dedupe_fold(wanted)),
        profile_revision=profile.revision,
        profile_state=state,
        matches=tuple(matches),
    )
