"""Derivation of preference rules: eligibility, contexts, signatures, promotion, confidence."""

from __future__ import annotations

import random
from typing import Any

import msgspec
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from core.bulk.profile_facts import Evidence, RecordFacts
from core.gocompat.gotime import GoTime
from core.profile.derive import (
    Derivation,
    _group,
    _group_rules,
    _ids_distinct,
    _newest_first,
    _rule_order,
    compact_bytes,
    confidence,
    derive,
    derive_from_records,
    facts_of,
    promotes,
    rule_id,
    signature_of,
    source_hash,
)
from core.profile.model import (
    MAX_EVIDENCE_ITEMS,
    PreferenceProfile,
    normalize_profile,
    validate_profile,
)
from core.record.codec import compact_record
from core.record.identity import short_stable_id
from core.record.models import DecisionRecord, Option, Provenance, RejectedReason
from tests.factories import ELIGIBLE_BASE_NS as BASE_NS
from tests.factories import decision

NOW = GoTime(BASE_NS + 10**12)


def rules_of(*records: DecisionRecord) -> list[tuple[str, str, list[str], list[str]]]:
    derived = derive_from_records(list(records), now=NOW)
    return [
        (r.scope, r.scope_key, r.support_decision_ids, r.contradiction_decision_ids)
        for r in derived.rules
    ]


# promotion (reference: PromotesConservatively, TracksContradictions, RejectsTies...) ------------


def test_one_decision_promotes_nothing() -> None:
    assert rules_of(decision(1)) == []


def test_promotes_conservatively_over_projects() -> None:
    records = [decision(1, "a"), decision(2, "a"), decision(3, "b"), decision(4, "b")]
    records.append(decision(5, "c"))
    ids = [f"decision-{n}" for n in range(1, 6)]
    assert rules_of(*records) == [
        ("project", "project-a", ["decision-1", "decision-2"], []),
        ("project", "project-b", ["decision-3", "decision-4"], []),
        ("domain", "storage", ids, []),
        ("global", "all", ids, []),
    ]


def test_tracks_contradictions() -> None:
    records = [decision(1), decision(2), decision(3, choice="single-json")]
    assert rules_of(*records) == [
        ("project", "project-a", ["decision-1", "decision-2"], ["decision-3"])
    ]


def test_rejects_ties() -> None:
    records = [decision(1), decision(2)]
    records += [decision(3, choice="single-json"), decision(4, choice="single-json")]
    assert rules_of(*records) == []


def test_ignores_non_user_evidence() -> None:
    model_choice = decision(2, provenance=Provenance(selection="model", rationale="user"))
    runtime_reason = decision(3, provenance=Provenance(selection="user", rationale="runtime"))
    assert rules_of(decision(1), model_choice) == []
    assert rules_of(decision(1), runtime_reason) == []
    upper_case = decision(4, provenance=Provenance(selection="USER", rationale="User"))
    assert len(rules_of(decision(1), upper_case)) == 1


def test_detector_confidence_threshold_is_inclusive_at_0_80() -> None:
    assert rules_of(decision(1), decision(2, detector_confidence=0.7999999)) == []
    assert len(rules_of(decision(1), decision(2, detector_confidence=0.80))) == 1


def test_deleted_records_are_neither_evidence_nor_counted() -> None:
    deleted = decision(2, status="deleted", deleted_at=GoTime(BASE_NS))
    derived = derive_from_records([decision(1), deleted], now=NOW)
    assert (derived.rules, derived.record_count) == ([], 1)


def test_record_count_counts_every_active_record_not_only_eligible_ones() -> None:
    ineligible = decision(2, detector_confidence=0.5)
    assert derive_from_records([decision(1), ineligible], now=NOW).record_count == 2


@pytest.mark.parametrize(
    ("scope", "support", "projects", "contradictions", "expected"),
    [
        ("project", 2, 1, 0, True),
        ("project", 1, 1, 0, False),
        ("project", 2, 1, 1, True),  # 2/3 exactly
        ("project", 3, 1, 2, False),  # 3/5 < 2/3
        ("project", 2, 1, 2, False),  # tie
        ("domain", 3, 1, 0, False),  # one project only
        ("domain", 3, 2, 0, True),
        ("global", 5, 2, 0, False),
        ("global", 5, 3, 0, True),
        ("global", 4, 4, 0, False),
    ],
)
def test_promotion_thresholds(
    scope: str, support: int, projects: int, contradictions: int, expected: bool
) -> None:
    assert promotes(scope, support, projects, contradictions) is expected


def test_domain_rule_needs_two_projects() -> None:
    records = [decision(n, "a", domains=("ui",)) for n in range(1, 5)]
    assert [r[0] for r in rules_of(*records)] == ["project"]


# confidence, ids, signatures --------------------------------------------------------------------


def test_confidence_formula_in_go_operation_order_and_clamped() -> None:
    assert confidence("project", 2, 1, 0) == 0.45 + 0.07 * 2 + 0.04 * 1 - 0.08 * 0
    assert confidence("project", 2, 1, 0) == 0.6300000000000001
    assert confidence("domain", 5, 3, 1) == 0.9400000000000001
    assert confidence("global", 50, 9, 0) == 0.95
    assert confidence("project", 2, 0, 20) == 0.10
    assert confidence("other", 0, 0, 0) == 0.35


def test_rule_id_is_fnv_of_group_key_and_signature() -> None:
    derived = derive_from_records([decision(1), decision(2)], now=NOW)
    rule = derived.rules[0]
    expected = "preference-" + short_stable_id(
        "project|project-a|storage_backend|" + rule.preference
    )
    assert rule.id == expected == rule_id("project|project-a|storage_backend", rule.preference)


def test_listed_signature_hashes_the_normalized_label() -> None:
    record = decision(1)
    signature, label = signature_of(record) or ("", "")
    assert signature == "per-record-json@" + short_stable_id("per-record json")
    assert label == "Per-record JSON"


def test_same_option_id_with_different_labels_does_not_merge() -> None:
    relabelled = decision(
        2,
        options=[
            Option(id="per-record-json", label="Something else", recommended=True),
            Option(id="single-json", label="Single JSON document"),
        ],
    )
    assert rules_of(decision(1), relabelled) == []


def test_custom_signature_ignores_case_and_whitespace() -> None:
    def custom(number: int, text: str) -> DecisionRecord:
        rejected = [
            RejectedReason(option_id=o, reason="no", source="user")
            for o in ("per-record-json", "single-json")
        ]
        return decision(
            number, selected_option_id="", custom_selection=text, rejected_reasons=rejected
        )

    derived = derive_from_records(
        [custom(1, "Use  SQLite after all"), custom(2, "use sqlite   AFTER all")], now=NOW
    )
    rule = derived.rules[0]
    assert rule.preference == "custom:" + short_stable_id("use sqlite after all")
    assert rule.preference_label == "use sqlite   AFTER all"  # from the newest record


def test_label_comes_from_the_newest_record() -> None:
    older = decision(1, options=[Option(id="per-record-json", label="per-record   json")])
    older = older.model_copy(update={"rejected_reasons": [], "recommended_option_id": ""})
    newer = decision(2)
    rule = derive_from_records([older, newer], now=NOW).rules[0]
    assert rule.preference_label == "Per-record JSON"
    newer_made_old = newer.model_copy(update={"updated_at": GoTime(1)})
    rule = derive_from_records([newer_made_old, older], now=NOW).rules[0]
    assert rule.preference_label == "per-record   json"


def test_domains_are_deduplicated_case_insensitively_and_lowercased() -> None:
    records = [decision(n, p, domains=("Storage", "storage ", "")) for n, p in ((1, "a"), (2, "b"))]
    records.append(decision(3, "b", domains=("STORAGE",)))
    domain_rules = [r for r in rules_of(*records) if r[0] == "domain"]
    assert domain_rules == [("domain", "storage", ["decision-1", "decision-2", "decision-3"], [])]


def test_kind_is_grouped_lowercased() -> None:
    records = [decision(1, kind="Storage_Backend"), decision(2, kind="storage_backend")]
    rules = derive_from_records(records, now=NOW).rules
    assert [r.criterion for r in rules] == ["storage_backend"]


def test_rules_are_sorted_by_scope_key_criterion_preference() -> None:
    layout = [("b", "zeta"), ("b", "zeta"), ("a", "zeta"), ("a", "zeta"), ("a", "alpha")]
    layout.append(("a", "alpha"))
    records = [decision(n, p, kind=k) for n, (p, k) in enumerate(layout, start=1)]
    rules = derive_from_records(records, now=NOW).rules
    assert [(r.scope, r.scope_key, r.criterion) for r in rules][:3] == [
        ("project", "project-a", "alpha"),
        ("project", "project-a", "zeta"),
        ("project", "project-b", "zeta"),
    ]


# caps and source hash -------------------------------------------------------------------------


def _profile_of(derived: Derivation) -> PreferenceProfile:
    """The first profile a rebuild writes from `derived`."""
    return PreferenceProfile(
        schema_version=1,
        revision=1,
        generated_at=NOW,
        record_count=derived.record_count,
        source_hash=derived.source_hash,
        rules=derived.rules,
    )


def test_build_caps_stored_evidence_and_still_validates() -> None:
    template = decision(0)
    against = decision(0, choice="single-json")
    records = [
        template.model_copy(update={"id": f"decision-s{n:05d}", "project_id": f"project-{n}"})
        for n in range(4200)
    ]
    records += [against.model_copy(update={"id": f"decision-c{n:05d}"}) for n in range(2050)]
    derived = derive_from_records(records, now=NOW)
    assert derived.rules, "4200 vs 2050 is above 2/3 and must promote"
    for rule in derived.rules:
        assert len(rule.support_decision_ids) <= MAX_EVIDENCE_ITEMS
        assert len(rule.contradiction_decision_ids) <= MAX_EVIDENCE_ITEMS
        assert len(rule.support_project_ids) <= MAX_EVIDENCE_ITEMS
    global_rule = derived.rules[-1]
    assert len(global_rule.support_decision_ids) == MAX_EVIDENCE_ITEMS
    assert len(global_rule.contradiction_decision_ids) == MAX_EVIDENCE_ITEMS
    validate_profile(normalize_profile(_profile_of(derived)))


def test_source_hash_includes_decision_content() -> None:
    first = derive_from_records([decision(1)], now=NOW).source_hash
    other_choice = derive_from_records([decision(1, choice="single-json")], now=NOW).source_hash
    assert first != other_choice
    assert first.startswith("journal-") and len(first) == len("journal-") + 32


@pytest.mark.parametrize(
    "edit",
    [
        {"tags": ["new-tag"]},
        {"project_alias": "renamed"},
        {"revision": 2},
        {"updated_at": GoTime(BASE_NS + 5)},
        {"detector_confidence": 0.5},
        {"summary_sentence": "a curated summary"},
    ],
)
def test_source_hash_changes_on_any_edit(edit: dict[str, Any]) -> None:
    original = decision(1)
    before = derive_from_records([original, decision(2)], now=NOW).source_hash
    after = derive_from_records([original.model_copy(update=edit), decision(2)], now=NOW)
    assert after.source_hash != before


def test_source_hash_ignores_order_and_deleted_records() -> None:
    records = [decision(1), decision(2)]
    deleted = decision(3, status="deleted", deleted_at=GoTime(BASE_NS))
    expected = derive_from_records(records, now=NOW).source_hash
    assert derive_from_records([records[1], deleted, records[0]], now=NOW).source_hash == expected
    assert source_hash([]) == "journal-e3b0c44298fc1c149afbf4c8996fb924"


_SPECIAL = st.sampled_from("<>&\u2028\u2029\x00\x1f")
_text = st.text(alphabet=st.characters(exclude_categories=("Cs",)) | _SPECIAL, max_size=40)


@settings(max_examples=200, deadline=None)
@given(
    problem=_text,
    reason=_text,
    tags=st.lists(_text, max_size=3),
    confidence=st.one_of(
        st.sampled_from([0.0, 1.0, 0.5, 1e-5, 0.8, 0.91, 0.00012]),
        st.floats(min_value=0, max_value=1, allow_nan=False),
    ),
)
def test_fast_compact_equals_the_go_encoder(
    problem: str, reason: str, tags: list[str], confidence: float
) -> None:
    record = decision(1).model_copy(
        update={
            "problem": problem,
            "selection_reason_raw": reason,
            "tags": tags,
            "detector_confidence": confidence,
        }
    )
    assert compact_bytes(record) == compact_record(record)


def test_lone_surrogates_fall_back_to_the_exact_encoder() -> None:
    record = decision(1).model_copy(update={"problem": "bad \ud800 text"})
    assert compact_bytes(record) == compact_record(record)
    assert facts_of(record).digest


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 3), st.sampled_from(["a", "A", "b", "B", "c"]), st.integers()),
        max_size=30,
    )
)
def test_newest_first_is_one_stable_sort_on_age(rows: list[tuple[int, str, int]]) -> None:
    """Two single-key sorts give the order of the one two-key sort they replaced, ties kept in
    the order the facts came (the third field tells apart facts of equal age)."""
    facts = [RecordFacts(rid, ns, False, str(tag), None) for ns, rid, tag in rows]
    expected = sorted(facts, key=lambda f: (f.updated_ns, f.record_id), reverse=True)
    assert [f.digest for f in _newest_first(facts)] == [f.digest for f in expected]


_FACT = st.builds(
    RecordFacts,
    record_id=st.sampled_from(["d-1", "d-2", "D-2"]),
    updated_ns=st.integers(0, 1),
    deleted=st.just(False),
    digest=st.just(""),
    evidence=st.one_of(
        st.none(),
        st.builds(
            Evidence,
            criterion=st.just("storage"),
            signature=st.just("a@1"),
            label=st.sampled_from(["Approach A", "approach  a"]),
            project_id=st.sampled_from(["project-x", "Project-X"]),
            domains=st.just(()),
        ),
    ),
).map(lambda fact: msgspec.structs.replace(fact, digest=repr(fact)))
"""Facts as records give them: the digest is the content's, so equal digests mean equal facts."""
_TIED = [
    RecordFacts("d-1", 1, False, "b", Evidence("storage", "a@1", "Approach A", "project-x", ())),
    RecordFacts("d-1", 1, False, "a", Evidence("storage", "a@1", "approach a", "Project-X", ())),
    RecordFacts("d-2", 0, False, "c", Evidence("storage", "a@1", "Approach A", "project-x", ())),
]


@settings(max_examples=300, deadline=None)
@example(_TIED, random.Random(1))
@given(st.lists(_FACT, max_size=8), st.randoms(use_true_random=False))
def test_derivation_does_not_depend_on_the_order_files_are_listed(
    facts: list[RecordFacts], rng: random.Random
) -> None:
    """Files come in directory order; records that share an id and an age (two spellings of one
    file name) must still name labels and keys the same way whatever that order is."""
    now = GoTime(BASE_NS)
    expected = derive(facts, now=now)
    for _ in range(3):
        shuffled = list(facts)
        rng.shuffle(shuffled)
        assert derive(shuffled, now=now) == expected


def _derived_in_list_order(facts: list[RecordFacts]) -> Derivation:
    """The derivation as a pass over the store's list (newest first) gives it: the oracle for
    `Grouping`, which takes records in any order."""
    active = [fact for fact in facts if not fact.deleted]
    distinct = _ids_distinct(active)
    groups = _group(_newest_first(sorted(active, key=lambda fact: fact.digest)))
    now = GoTime(BASE_NS)
    rules = [r for key, group in groups.items() for r in _group_rules(key, group, distinct, now)]
    rules.sort(key=_rule_order)
    return Derivation(rules, len(active), source_hash(active))


@st.composite
def _journal_facts(draw: st.DrawFn) -> list[RecordFacts]:
    """Facts of a journal with distinct ids, repeating ages, label spellings of one choice and,
    sometimes, project ids that differ only in case."""
    projects = draw(st.sampled_from([["project-x", "project-y"], ["project-x", "Project-X"]]))
    evidence = st.builds(
        Evidence,
        criterion=st.sampled_from(["storage", "api"]),
        signature=st.sampled_from(["a@1", "b@2"]),
        label=st.sampled_from(["Approach A", "approach  a", "APPROACH A"]),
        project_id=st.sampled_from(["", *projects]),
        domains=st.sampled_from([(), ("db",), ("db", "auth")]),
    )
    rows = draw(st.lists(st.tuples(st.integers(0, 3), st.booleans(), evidence), max_size=30))
    facts = [
        RecordFacts(f"d-{n}", age, deleted, "", found)
        for n, (age, deleted, found) in enumerate(rows)
    ]
    return [msgspec.structs.replace(fact, digest=repr(fact)) for fact in facts]


@settings(max_examples=400, deadline=None)
@given(_journal_facts(), st.randoms(use_true_random=False))
def test_grouping_as_records_come_equals_a_pass_in_list_order(
    facts: list[RecordFacts], rng: random.Random
) -> None:
    """Labels named by the newest record, evidence and contradiction lists, projects counted:
    all as the list-order pass gives them, whatever order the records come in."""
    rng.shuffle(facts)
    assert derive(facts, now=GoTime(BASE_NS)) == _derived_in_list_order(facts)


@st.composite
def _facts_with_ids_folding_alike(draw: st.DrawFn) -> list[RecordFacts]:
    """Facts whose ids and project ids may repeat in other cases, so lists need deduplicating."""
    rows = draw(
        st.lists(
            st.tuples(
                st.sampled_from(["d-1", "D-1", "d-2", "d-3", "D-3", "d-4"]),
                st.integers(0, 3),
                st.sampled_from(["a@1", "b@2"]),
                st.sampled_from(["", "project-x", "Project-X", "project-y"]),
                st.sampled_from([(), ("db",), ("db", "auth")]),
            ),
            max_size=30,
        )
    )
    facts = [
        RecordFacts(rid, age, False, "", Evidence("storage", sig, "Approach", project, domains))
        for rid, age, sig, project, domains in rows
    ]
    return [msgspec.structs.replace(fact, digest=repr(fact)) for fact in facts]


@settings(max_examples=300, deadline=None)
@given(st.one_of(_journal_facts(), _facts_with_ids_folding_alike()))
def test_derived_evidence_lists_are_already_normal_and_valid(facts: list[RecordFacts]) -> None:
    """A rebuild neither folds and sorts derived evidence lists again nor asks their ids again
    (`derived=True`): derivation must give them as normalization would, and valid."""
    profile = _profile_of(derive(facts, now=NOW))
    normal = normalize_profile(profile, derived=True)
    assert normal == normalize_profile(profile)
    validate_profile(normal)
