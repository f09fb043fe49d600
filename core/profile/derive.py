"""Pure derivation of the preference profile from journal records, identical to the reference.

Why exact: a profile rebuilt here must equal the one KernForge derives from the same journal
(same rules, rule IDs, confidences and source hash), so every rule below follows the reference
to the operation: grouping keys, FNV-1a signatures, thresholds, float arithmetic order, sorting.
Nothing here touches the filesystem; `core.profile.store` feeds it records and writes the result.
"""

from __future__ import annotations

import functools
import hashlib
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from operator import attrgetter

from core.bulk.compact_json import compact_bytes
from core.bulk.profile_facts import Evidence, RecordFacts
from core.gocompat.gotime import GoTime
from core.gocompat.text import collapse_spaces, fold_keys, go_lower, go_trim
from core.limits import PROFILE_CONFIDENCE_MIN
from core.profile.model import (
    GLOBAL_KEY,
    MAX_EVIDENCE_ITEMS,
    MAX_OVERRIDES,
    MAX_RULES,
    SCOPE_DOMAIN,
    SCOPE_GLOBAL,
    SCOPE_PROJECT,
    PreferenceProfile,
    ProfileOverride,
    ProfileRule,
    dedupe_sorted,
)
from core.record.identity import short_stable_id
from core.record.models import DecisionRecord
from core.record.normalize import dedupe_fold
from core.record.shape import RecordShape

SCOPE_RANK = {SCOPE_PROJECT: 0, SCOPE_DOMAIN: 1, SCOPE_GLOBAL: 2}
_SCOPE_BASE = {SCOPE_PROJECT: 0.45, SCOPE_DOMAIN: 0.55, SCOPE_GLOBAL: 0.60}
_OTHER_BASE = 0.35
# Minimum (supporting decisions, distinct supporting projects) per scope.
_THRESHOLDS = {SCOPE_PROJECT: (2, 0), SCOPE_DOMAIN: (3, 2), SCOPE_GLOBAL: (5, 3)}
CONFIDENCE_MIN = 0.10
CONFIDENCE_MAX = 0.95
_USER = "user"


@dataclass(frozen=True, slots=True)
class Derivation:
    """The source-derived part of a profile: rules, record_count and source hash."""

    rules: list[ProfileRule]
    record_count: int
    source_hash: str


# per-record facts ------------------------------------------------------------------------------


def signature_of(record: RecordShape) -> tuple[str, str] | None:
    """(signature, label) of the chosen approach; the label hash keeps reused IDs apart."""
    custom = go_trim(record.custom_selection)
    if custom:
        return "custom:" + _text_hash(custom), custom
    selected = go_trim(record.selected_option_id)
    if not selected:
        return None
    for option in record.options:
        if go_trim(option.id) == selected:
            label = go_trim(option.label)
            if not label:
                return None
            return go_lower(selected) + "@" + _text_hash(label), label
    return None


@functools.lru_cache(maxsize=8192)
def _text_hash(text: str) -> str:
    """The hash of a non-blank label or custom text (labels repeat across a journal, and the
    hash is a byte loop in Python)."""
    return short_stable_id(go_lower(collapse_spaces(text)))


def label_key(label: str) -> str:
    """The part of a rule's `preference` that names its option's label: an option of a new
    proposal matches a rule when its label gives the same key, whatever its id."""
    return _text_hash(go_trim(label))


def preference_label_key(preference: str) -> str:
    """The label key inside a rule's `preference` (`id@key` or `custom:key`)."""
    return preference.rpartition("@")[2] if "@" in preference else preference.partition(":")[2]


@functools.lru_cache(maxsize=4096)
def _domain_keys(domains: tuple[str, ...]) -> tuple[str, ...]:
    """A record's distinct folded domains, interned; the same few lists recur per project."""
    return tuple(sys.intern(go_lower(go_trim(d))) for d in dedupe_fold(list(domains)))


def _is_user(source: str) -> bool:
    return go_lower(go_trim(source)) == _USER


def evidence_of(record: RecordShape) -> Evidence | None:
    """The record's contribution, or None when it is not eligible evidence."""
    if (
        record.is_deleted
        or not go_trim(record.decision_kind)
        or not _is_user(record.provenance.selection)
        or not _is_user(record.provenance.rationale)
        or not go_trim(record.selection_reason_raw)
        or not record.detector_confidence >= PROFILE_CONFIDENCE_MIN
    ):
        return None
    signature = signature_of(record)
    if signature is None:
        return None
    # Interned: these repeat across records, and the store's facts cache keeps one per record.
    return Evidence(
        criterion=sys.intern(go_lower(go_trim(record.decision_kind))),
        signature=sys.intern(signature[0]),
        label=sys.intern(signature[1]),
        project_id=sys.intern(go_trim(record.project_id)),
        domains=_domain_keys(tuple(record.domains)),
    )


def facts_of(record: DecisionRecord) -> RecordFacts:
    return facts_from(record, compact_bytes(record))


def facts_from(record: RecordShape, compact: bytes) -> RecordFacts:
    """The facts of a record whose compact bytes a bulk read already has."""
    return RecordFacts(
        record_id=record.id,
        updated_ns=record.updated_at.unix_ns if record.updated_at else 0,
        deleted=record.is_deleted,
        digest=hashlib.sha256(compact).hexdigest(),
        evidence=evidence_of(record),
    )


def source_hash(facts: Iterable[RecordFacts]) -> str:
    """Hash over the full content of every active record: any edit makes the profile stale."""
    entries = sorted(f"{f.record_id}\x00{f.digest}" for f in facts if not f.deleted)
    digest = hashlib.sha256("\x01".join(entries).encode("utf-8", "surrogatepass"))
    return "journal-" + digest.hexdigest()[:32]


# promotion -------------------------------------------------------------------------------------


def confidence(scope: str, support: int, projects: int, contradictions: int) -> float:
    """base + 0.07·S + 0.04·P - 0.08·C, clamped; evaluated left to right as float64, like Go."""
    value = _SCOPE_BASE.get(scope, _OTHER_BASE) + 0.07 * support + 0.04 * projects
    value = value - 0.08 * contradictions
    if value < CONFIDENCE_MIN:
        return CONFIDENCE_MIN
    if value > CONFIDENCE_MAX:
        return CONFIDENCE_MAX
    return value


def _meets_scope(scope: str, support: int, projects: int) -> bool:
    min_support, min_projects = _THRESHOLDS[scope]
    return support >= min_support and projects >= min_projects


def promotes(scope: str, support: int, projects: int, contradictions: int) -> bool:
    """Conservative: a clear 2/3 majority over any contradiction, then the scope threshold."""
    if contradictions > 0 and (
        support <= contradictions or support / (support + contradictions) < 2.0 / 3.0
    ):
        return False
    return _meets_scope(scope, support, projects)


def rule_id(group_key: str, signature: str) -> str:
    return "preference-" + short_stable_id(group_key + "|" + signature)


# grouping --------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Candidate:
    label: str
    rank: tuple[int, str] = (0, "")
    """(updated_ns, record_id) of the record that gave the label, for `Grouping`."""
    decision_ids: list[str] = field(default_factory=list)
    project_ids: list[str] = field(default_factory=list)


@dataclass(slots=True)
class _Group:
    scope: str
    key: str
    criterion: str
    candidates: dict[str, _Candidate] = field(default_factory=dict)


def _contexts(evidence: Evidence) -> list[tuple[str, str]]:
    contexts = [(SCOPE_PROJECT, evidence.project_id)] if evidence.project_id else []
    contexts.extend((SCOPE_DOMAIN, domain) for domain in evidence.domains)
    contexts.append((SCOPE_GLOBAL, GLOBAL_KEY))
    return contexts


def _newest_first(facts: Iterable[RecordFacts]) -> list[RecordFacts]:
    """The store's list order (updated_at, then id, descending): the first label seen wins.

    Two stable sorts on one key each give the order of one sort on both: single-key sorts
    compare plain ints and strings without building a tuple per record, and facts usually
    come in id order already, which the first sort merely reverses.
    """
    ordered = sorted(facts, key=_RECORD_ID, reverse=True)
    ordered.sort(key=_UPDATED_NS, reverse=True)
    return ordered


_RECORD_ID = attrgetter("record_id")
_UPDATED_NS = attrgetter("updated_ns")
_DIGEST = attrgetter("digest")


def _group(active: list[RecordFacts]) -> dict[str, _Group]:
    groups: dict[str, _Group] = {}
    # Records of one project, domains and kind go to the same groups: found once per shape.
    targets: dict[tuple[str, tuple[str, ...], str], list[_Group]] = {}
    for fact in active:
        evidence = fact.evidence
        if evidence is None:
            continue
        shape = (evidence.project_id, evidence.domains, evidence.criterion)
        fact_groups = targets.get(shape)
        if fact_groups is None:
            fact_groups = targets[shape] = [
                _group_for(groups, scope, key, evidence.criterion)
                for scope, key in _contexts(evidence)
            ]
        signature, project_id = evidence.signature, evidence.project_id
        for group in fact_groups:
            candidate = group.candidates.get(signature)
            if candidate is None:
                candidate = group.candidates[signature] = _Candidate(evidence.label)
            candidate.decision_ids.append(fact.record_id)
            if project_id:
                candidate.project_ids.append(project_id)
    return groups


def _group_for(groups: dict[str, _Group], scope: str, key: str, criterion: str) -> _Group:
    """The group of a context; the first record to reach it (the newest) names its key."""
    group_key = f"{scope}|{go_lower(go_trim(key))}|{criterion}"
    group = groups.get(group_key)
    if group is None:
        group = groups[group_key] = _Group(scope, key, criterion)
    return group


def _ids_distinct(active: list[RecordFacts]) -> bool:
    """Whether no two evidence records' ids are blank or equal once folded.

    Why ask: then no list of their ids holds a duplicate, and deduplicating one (folding every
    id, in every group it joins) is merely sorting it; a journal's ids are almost always
    distinct, and deduplication was most of the cost of promotion.
    """
    keys = fold_keys([fact.record_id for fact in active if fact.evidence is not None])
    return "" not in keys and len(set(keys)) == len(keys)


def _deduped(ids: list[str], distinct: bool) -> list[str]:
    return sorted(ids) if distinct else dedupe_sorted(ids)


def _contradictions(group: _Group, signature: str, distinct: bool) -> list[str]:
    others = [
        decision_id
        for other_signature, other in group.candidates.items()
        if other_signature != signature
        for decision_id in other.decision_ids
    ]
    return _deduped(others, distinct)


def _distinct_ids(group: _Group, distinct: bool) -> int:
    if distinct:
        return sum(len(candidate.decision_ids) for candidate in group.candidates.values())
    if len(group.candidates) == 1:
        return len(dedupe_sorted(next(iter(group.candidates.values())).decision_ids))
    return len(set(fold_keys([i for c in group.candidates.values() for i in c.decision_ids])))


def _promoted(
    group_key: str, group: _Group, signature: str, ids: _GroupIds, now: GoTime
) -> ProfileRule | None:
    """The candidate's rule, or None when it does not pass the promotion rules."""
    candidate = group.candidates[signature]
    support = _deduped(candidate.decision_ids, ids.distinct)
    projects = dedupe_sorted(candidate.project_ids)
    if not _meets_scope(group.scope, len(support), len(projects)):
        return None
    if len(support) <= ids.count - len(support):
        return None  # at least as many contradictions as support: can never promote
    contradictions = _contradictions(group, signature, ids.distinct)
    if not promotes(group.scope, len(support), len(projects), len(contradictions)):
        return None
    return ProfileRule(
        id=rule_id(group_key, signature),
        scope=group.scope,
        scope_key=group.key,
        criterion=group.criterion,
        preference=signature,
        preference_label=candidate.label,
        support_decision_ids=support[:MAX_EVIDENCE_ITEMS],
        contradiction_decision_ids=contradictions[:MAX_EVIDENCE_ITEMS],
        support_project_ids=projects[:MAX_EVIDENCE_ITEMS],
        confidence=confidence(group.scope, len(support), len(projects), len(contradictions)),
        enabled=True,
        updated_at=now,
    )


@dataclass(frozen=True, slots=True)
class _GroupIds:
    distinct: bool
    """No two ids in the journal's evidence fold alike (`_ids_distinct`)."""
    count: int
    """The group's distinct decision ids."""


def _group_rules(group_key: str, group: _Group, distinct: bool, now: GoTime) -> list[ProfileRule]:
    ids = _GroupIds(distinct, _distinct_ids(group, distinct))
    rules = (_promoted(group_key, group, sig, ids, now) for sig in group.candidates)
    return [rule for rule in rules if rule is not None]


def _rule_order(rule: ProfileRule) -> tuple[int, str, str, str]:
    return (
        SCOPE_RANK.get(rule.scope, len(SCOPE_RANK)),
        rule.scope_key,
        rule.criterion,
        rule.preference,
    )


class Grouping:
    """Derivation fed one record's facts at a time, in any order.

    Why: a first rebuild receives facts as the reading processes deliver them. Grouping each
    as it comes keeps the main process busy while they read, instead of a serial pass (and a
    newest-first sort of every record) after the last file.

    The list order still decides what it decided: the newest record names a candidate's
    label, so each candidate keeps the (updated_at, id) of the record its label came from. Two
    things only a pass in list order gets right are checked at the end, and such a journal
    (ids or project ids that differ only in case) is grouped again in list order: records
    sharing an id may share an age, and deduplicating ids or project ids keeps the first
    spelling in that order.
    """

    def __init__(self) -> None:
        self._active: list[RecordFacts] = []
        self._groups: dict[str, _Group] = {}
        self._targets: dict[tuple[str, tuple[str, ...], str], list[_Group]] = {}
        self._projects: set[str] = set()

    def add(self, fact: RecordFacts) -> None:
        if fact.deleted:
            return
        self._active.append(fact)
        evidence = fact.evidence
        if evidence is None:
            return
        shape = (evidence.project_id, evidence.domains, evidence.criterion)
        groups = self._targets.get(shape)
        if groups is None:
            self._projects.add(evidence.project_id)
            groups = self._targets[shape] = [
                _group_for(self._groups, scope, key, evidence.criterion)
                for scope, key in _contexts(evidence)
            ]
        rank = (fact.updated_ns, fact.record_id)
        signature, project_id = evidence.signature, evidence.project_id
        for group in groups:
            candidate = group.candidates.get(signature)
            if candidate is None:
                candidate = group.candidates[signature] = _Candidate(evidence.label, rank)
            elif rank > candidate.rank:
                candidate.label, candidate.rank = evidence.label, rank
            candidate.decision_ids.append(fact.record_id)
            if project_id:
                candidate.project_ids.append(project_id)

    def derivation(self, now: GoTime) -> Derivation:
        """Rules, record_count and source hash of every record added."""
        active = self._active
        distinct = _ids_distinct(active)
        groups = self._groups
        if not (distinct and _spelled_one_way(self._projects)):
            # Records that share an id may share an age too: their order, and so which one
            # names a label, is then by content, never by the order they were added in.
            groups = _group(_newest_first(sorted(active, key=_DIGEST)))
        rules = [
            rule
            for group_key, group in groups.items()
            for rule in _group_rules(group_key, group, distinct, now)
        ]
        rules.sort(key=_rule_order)
        return Derivation(
            rules=rules[:MAX_RULES], record_count=len(active), source_hash=source_hash(active)
        )


def _spelled_one_way(project_ids: set[str]) -> bool:
    """No two project ids differ only in case or surrounding space: then every group of a
    project is named by the one spelling, whichever record comes first."""
    return len(set(fold_keys(list(project_ids)))) == len(project_ids)


def derive(facts: Iterable[RecordFacts], *, now: GoTime) -> Derivation:
    """Rules, record_count and source hash from the facts of every record in the journal."""
    grouping = Grouping()
    for fact in facts:
        grouping.add(fact)
    return grouping.derivation(now)


def derive_from_records(records: Sequence[DecisionRecord], *, now: GoTime) -> Derivation:
    return derive((facts_of(record) for record in records), now=now)


# overrides -------------------------------------------------------------------------------------


def carry_overrides(
    previous: PreferenceProfile, rules: Sequence[ProfileRule], *, limit: int = MAX_OVERRIDES
) -> dict[str, ProfileOverride]:
    """The previous overrides, plus one from every previous rule with effect, bounded.

    Overrides of rules that are no longer promoted are kept, so a rule that is demoted and later
    promoted again (same stable ID) gets its enabled/pinned/note back.
    """
    pool = dict(previous.overrides)
    for rule in previous.rules:
        if rule.has_effect() and rule.id not in pool:
            pool[rule.id] = rule.to_override()
    return bound_overrides(pool, rules, limit=limit)


def bound_overrides(
    pool: dict[str, ProfileOverride], rules: Sequence[ProfileRule], *, limit: int = MAX_OVERRIDES
) -> dict[str, ProfileOverride]:
    """Keeps at most `limit`: active rules' overrides in rule order, then newest orphans."""
    kept: dict[str, ProfileOverride] = {}
    active = set()
    for rule in rules:
        active.add(rule.id)
        override = pool.get(rule.id)
        if override is not None and override.has_effect() and len(kept) < limit:
            kept[rule.id] = override
    orphans = [(k, o) for k, o in pool.items() if k not in active and o.has_effect()]
    orphans.sort(key=lambda item: (-_updated_ns(item[1]), item[0]))
    for key, override in orphans[: max(0, limit - len(kept))]:
        kept[key] = override
    return kept


def _updated_ns(override: ProfileOverride) -> int:
    return override.updated_at.unix_ns if override.updated_at else 0
