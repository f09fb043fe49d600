"""The profile file contract: strict load, lifecycle checks, limits and Go-compatible bytes."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.errors import ProfileDamaged, ProfileInvalid
from core.gocompat.gojson import dumps_indented
from core.gocompat.gotime import GoTime
from core.gocompat.text import go_lower, go_trim
from core.profile.model import (
    PreferenceProfile,
    ProfileOverride,
    ProfileRule,
    dedupe_sorted,
    has_effect,
    normalize_profile,
    parse_profile,
    validate_profile,
)

STAMP = "2026-03-04T05:06:07.123456789Z"


def rule_dict(**overrides: Any) -> dict[str, Any]:
    rule: dict[str, Any] = {
        "id": "preference-0badcafe",
        "scope": "project",
        "scope_key": "project-a",
        "criterion": "storage_backend",
        "preference": "per-record-json@f3af9cc8",
        "preference_label": "Per-record JSON",
        "support_decision_ids": ["decision-1", "decision-2"],
        "support_project_ids": ["project-a"],
        "confidence": 0.6300000000000001,
        "enabled": True,
        "updated_at": STAMP,
    }
    rule.update(overrides)
    rule["updated_at"] = rule.pop("updated_at")  # Go's field order: override fields come first
    return rule


def profile_dict(**overrides: Any) -> dict[str, Any]:
    profile: dict[str, Any] = {
        "schema_version": 1,
        "revision": 3,
        "generated_at": STAMP,
        "record_count": 2,
        "source_hash": "journal-" + "0123456789abcdef" * 2,
        "rules": [rule_dict()],
    }
    profile.update(overrides)
    return profile


def parse(data: dict[str, Any]) -> PreferenceProfile:
    profile = normalize_profile(parse_profile(json.dumps(data).encode(), what="profile.json"))
    validate_profile(profile)
    return profile


def test_go_bytes_round_trip_with_overrides_in_sorted_key_order() -> None:
    pinned = {"enabled": True, "pinned": True, "updated_at": STAMP}
    dormant = {"enabled": False, "updated_at": STAMP}
    rules = [rule_dict(pinned=True)]
    data = profile_dict(
        rules=rules, overrides={"preference-zzz": dormant, "preference-0badcafe": pinned}
    )
    expected = profile_dict(
        rules=rules, overrides={"preference-0badcafe": pinned, "preference-zzz": dormant}
    )
    assert dumps_indented(parse(data).to_go_dict()) == dumps_indented(expected)


def test_written_layout_matches_go_field_order_and_omit_empty() -> None:
    profile = parse(profile_dict())
    text = dumps_indented(profile.to_go_dict())
    assert text == dumps_indented(profile_dict())
    assert '"contradiction_decision_ids"' not in text and '"overrides"' not in text


def test_no_rules_is_written_as_null_like_a_go_nil_slice() -> None:
    profile = parse(profile_dict(rules=None))
    assert profile.rules == []
    assert '"rules": null' in dumps_indented(profile.to_go_dict())
    assert parse(profile_dict(rules=[])).rules == []


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (profile_dict(schema_version=0), "schema_version"),
        (profile_dict(schema_version=2), "schema_version"),
        ({k: v for k, v in profile_dict().items() if k != "schema_version"}, "schema_version"),
        (profile_dict(revision=0), "lifecycle"),
        (profile_dict(generated_at=None), "lifecycle"),
        (profile_dict(unknown=1), "unknown"),
        (profile_dict(rules=[rule_dict(extra=True)]), "extra"),
        (profile_dict(rules=[rule_dict(updated_at=None)]), "updated_at"),
        (profile_dict(overrides={"preference-x": {"enabled": False}}), "updated_at"),
        (profile_dict(overrides={" preference-x": {"updated_at": STAMP}}), "trimmed"),
        (profile_dict(overrides={"": {"updated_at": STAMP}}), "trimmed"),
        (profile_dict(revision="3"), "revision"),
        (profile_dict(revision=3.0), "revision"),
    ],
)
def test_load_rejects_bad_schema_and_lifecycle(data: dict[str, Any], message: str) -> None:
    with pytest.raises(ProfileDamaged, match=message):
        parse_profile(json.dumps(data).encode(), what="profile.json")


def test_load_rejects_trailing_data_and_non_objects() -> None:
    good = json.dumps(profile_dict()).encode()
    with pytest.raises(ProfileDamaged, match="trailing data"):
        parse_profile(good + b"{}", what="profile.json")
    with pytest.raises(ProfileDamaged, match="JSON object"):
        parse_profile(b"[]", what="profile.json")
    with pytest.raises(ProfileDamaged):
        parse_profile(b"{broken", what="profile.json")


@pytest.mark.parametrize(
    ("rule", "field"),
    [
        (rule_dict(scope="team"), "scope"),
        (rule_dict(scope_key=""), "scope_key"),
        (rule_dict(confidence=1.5), "confidence"),
        (rule_dict(confidence=-0.1), "confidence"),
        (rule_dict(support_decision_ids=[]), "supporting"),
        (rule_dict(support_decision_ids=["../escape"]), "invalid decision id"),
        (rule_dict(contradiction_decision_ids=["bad id"]), "invalid decision id"),
        (rule_dict(id="preference-" + "x" * 200), "storage limit"),
        (rule_dict(scope_key="k" * 1025), "storage limit"),
        (rule_dict(criterion="c" * 257), "storage limit"),
        (rule_dict(preference_label="l" * 4097), "storage limit"),
        (rule_dict(user_note="n" * 4097), "storage limit"),
        (rule_dict(support_decision_ids=[f"decision-{n}" for n in range(2049)]), "2048"),
        (rule_dict(id="ghp_q7Lm2Xp9Rt4Vw8Zs1Kd5Fg3Jb6Nc0Hy2Ae8Tu"), "sensitive"),
        (rule_dict(support_project_ids=["ghp_b7Lm2Xp9Rt4Vw8Zs1Kd5Fg3Jb6Nc0Hy2Ae8Tu"]), "sensitive"),
        (
            rule_dict(
                support_decision_ids=["decision-1", "ghp_c7Lm2Xp9Rt4Vw8Zs1Kd5Fg3Jb6Nc0Hy2Ae8Tu"]
            ),
            "sensitive",
        ),
        (
            rule_dict(contradiction_decision_ids=["decision-2", "sk-d7Lm2Xp9Rt4Vw8Zs1Kd5Fg3J"]),
            "sensitive",
        ),
    ],
)
def test_validation_names_the_broken_rule(rule: dict[str, Any], field: str) -> None:
    with pytest.raises(ProfileInvalid, match=field):
        parse(profile_dict(rules=[rule]))


def test_validation_rejects_bad_source_hash_and_duplicate_ids() -> None:
    with pytest.raises(ProfileInvalid, match="source_hash"):
        parse(profile_dict(source_hash="journal-XYZ"))
    with pytest.raises(ProfileInvalid, match="duplicate"):
        parse(profile_dict(rules=[rule_dict(), rule_dict()]))


def test_global_rules_need_no_scope_key() -> None:
    assert parse(profile_dict(rules=[rule_dict(scope="global", scope_key="")])).rules


def test_normalization_trims_lowercases_sorts_and_reapplies_overrides() -> None:
    profile = PreferenceProfile(
        schema_version=1,
        revision=1,
        generated_at=GoTime.parse(STAMP),
        rules=[
            ProfileRule(
                id=" preference-1 ",
                scope="Project",
                scope_key=" project-a ",
                criterion=" Storage_Backend",
                preference="Per-Record-JSON@abc",
                support_decision_ids=["decision-2", "decision-1", "DECISION-1"],
                enabled=True,
            )
        ],
        overrides={" preference-1": ProfileOverride(enabled=False, updated_at=GoTime(5))},
    )
    normalized = normalize_profile(profile)
    rule = normalized.rules[0]
    assert (rule.id, rule.scope, rule.scope_key, rule.criterion, rule.preference) == (
        "preference-1",
        "project",
        "project-a",
        "storage_backend",
        "per-record-json@abc",
    )
    assert rule.support_decision_ids == ["decision-1", "decision-2"]
    assert (rule.enabled, rule.updated_at) == (False, GoTime(5))
    assert list(normalized.overrides) == ["preference-1"]
    assert profile.rules[0].id == " preference-1 ", "the caller's object is not changed"


def test_notes_and_labels_are_redacted_with_the_note_flag() -> None:
    secret = "sk-" + "A1b2C3d4E5f6G7h8I9j0K1l2"
    profile = parse(
        profile_dict(rules=[rule_dict(user_note=f"key {secret}", preference_label=secret)])
    )
    rule = profile.rules[0]
    assert secret not in rule.user_note and secret not in rule.preference_label
    assert rule.user_note_redacted


def test_has_effect() -> None:
    assert not has_effect(ProfileOverride(enabled=True))
    assert has_effect(ProfileOverride(enabled=False))
    assert has_effect(ProfileOverride(enabled=True, pinned=True))
    assert has_effect(ProfileOverride(enabled=True, user_note="why"))
    assert not has_effect(ProfileOverride(enabled=True, user_note="  "))
    assert has_effect(ProfileOverride(enabled=True, user_note_redacted=True))


@given(
    st.lists(st.sampled_from(["p-1", "P-1", " p-1", "p-2", "", "  ", "p-3", "P-3"]), max_size=40)
)
def test_dedupe_sorted_keeps_the_first_spelling_of_each_folded_key(items: list[str]) -> None:
    first: dict[str, str] = {}
    for item in items:
        key = go_lower(go_trim(item))
        if key:
            first.setdefault(key, item)
    assert dedupe_sorted(items) == sorted(first.values())
