"""The evidence query: project → domain → global, enabled rules only, evidence not commands."""

from __future__ import annotations

import math

import pytest

from core.gocompat.gotime import GoTime
from core.profile.model import PreferenceProfile, ProfileRule
from core.profile.query import NOTICE, query_evidence, wilson_lower_95


def rule(scope: str, key: str, *, kind: str = "storage_backend", **fields: object) -> ProfileRule:
    values: dict[str, object] = {
        "id": f"preference-{scope}-{key}-{kind}",
        "scope": scope,
        "scope_key": key,
        "criterion": kind,
        "preference": "per-record-json@f3af9cc8",
        "preference_label": "Per-record JSON",
        "support_decision_ids": ["decision-1", "decision-2", "decision-3"],
        "contradiction_decision_ids": ["decision-9"],
        "support_project_ids": ["project-a"],
        "confidence": 0.7,
        "enabled": True,
        "updated_at": GoTime(1),
    }
    values.update(fields)
    return ProfileRule.model_validate(values)


@pytest.fixture
def profile() -> PreferenceProfile:
    return PreferenceProfile(
        schema_version=1,
        revision=4,
        generated_at=GoTime(1),
        rules=[
            rule("project", "project-a"),
            rule("project", "project-b"),
            rule("project", "project-a", kind="language"),
            rule("domain", "storage"),
            rule("domain", "ipc"),
            rule("domain", "ui", enabled=False),
            rule("global", "all"),
        ],
    )


def ids(result: object) -> list[str]:
    return [m.rule_id for m in result.matches]  # type: ignore[attr-defined]


def test_resolution_order_is_project_then_domains_as_given_then_global(
    profile: PreferenceProfile,
) -> None:
    result = query_evidence(
        profile,
        kind="Storage_Backend ",
        project_id="PROJECT-A",
        domains=["ipc", "Storage", "ui", "storage"],
        state="current",
    )
    assert ids(result) == [
        "preference-project-project-a-storage_backend",
        "preference-domain-ipc-storage_backend",
        "preference-domain-storage-storage_backend",
        "preference-global-all-storage_backend",
    ]
    assert result.domains == ("ipc", "storage", "ui")
    assert (result.profile_revision, result.profile_state, result.kind) == (
        4,
        "current",
        "storage_backend",
    )


def test_disabled_rules_and_other_kinds_never_match(profile: PreferenceProfile) -> None:
    result = query_evidence(profile, kind="storage_backend", domains=["ui"])
    assert ids(result) == ["preference-global-all-storage_backend"]
    assert query_evidence(profile, kind="unknown").matches == ()


def test_each_match_carries_its_evidence_both_ways(profile: PreferenceProfile) -> None:
    match = query_evidence(profile, kind="storage_backend").matches[0]
    assert (match.scope, match.criterion, match.preference_label, match.confidence) == (
        "global",
        "storage_backend",
        "Per-record JSON",
        0.7,
    )
    assert (match.support_count, match.contradiction_count) == (3, 1)
    assert match.support_decision_ids == ("decision-1", "decision-2", "decision-3")
    assert match.contradiction_decision_ids == ("decision-9",)
    assert match.wilson_lower_95 == wilson_lower_95(3, 1)


def test_result_says_it_is_evidence_not_an_instruction(profile: PreferenceProfile) -> None:
    data = query_evidence(profile, kind="storage_backend").to_dict()
    assert next(iter(data)) == "notice"
    assert data["notice"] == NOTICE and "not an instruction" in NOTICE
    assert "Wilson" in data["strength_note"]
    assert data["matches"][0]["wilson_lower_95"] == pytest.approx(0.3007, abs=1e-4)


@pytest.mark.parametrize(
    ("support", "contradictions", "expected"),
    [(2, 0, 0.3424), (5, 0, 0.5655), (3, 1, 0.3007), (13, 6, 0.4601), (0, 0, 0.0), (0, 3, 0.0)],
)
def test_wilson_lower_bound(support: int, contradictions: int, expected: float) -> None:
    assert wilson_lower_95(support, contradictions) == pytest.approx(expected, abs=1e-4)


def test_wilson_lower_bound_matches_the_closed_form() -> None:
    z = 1.959963984540054
    n, p = 10, 0.8
    closed = (p + z * z / (2 * n) - z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))) / (
        1 + z * z / n
    )
    assert wilson_lower_95(8, 2) == pytest.approx(closed)
