"""The preference profile file (profiles/profile.json): models, limits, validation and parsing.

Why its own module: the profile is a derived cache that also carries the user's overrides, so
it is read strictly (unknown fields, bad schema, missing timestamps are rejected and never
repaired) and written byte-compatibly with the reference (`to_go_dict` applies Go's field order
and omit-empty rules, and writes a rule list with no rules as `null`, as Go writes a nil slice).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    StrictBool,
    StrictInt,
    StrictStr,
    ValidationError,
    model_validator,
)

from core.bulk.decision_ids import all_valid_decision_ids
from core.errors import JournalDamaged, ProfileDamaged, ProfileInvalid
from core.gocompat.gojson import loads_strict
from core.gocompat.gotime import GoTime
from core.gocompat.text import fold_keys, go_lower, go_trim, utf8_len
from core.messages.wording import too_large
from core.record.codec import pydantic_problem
from core.record.models import GoFloat, Timestamp
from core.record.redaction import looks_sensitive, none_sensitive, redact_text
from core.record.validation import is_valid_decision_id

PROFILE_SCHEMA_VERSION = 1
SCOPE_PROJECT = "project"
SCOPE_DOMAIN = "domain"
SCOPE_GLOBAL = "global"
SCOPES = (SCOPE_PROJECT, SCOPE_DOMAIN, SCOPE_GLOBAL)
GLOBAL_KEY = "all"

MAX_RULES = 4096
MAX_OVERRIDES = 4096
MAX_EVIDENCE_ITEMS = 2048
RULE_ID_MAX = 200
SCOPE_KEY_MAX = 1024
CRITERION_MAX = 256
PREFERENCE_MAX = 256
LABEL_MAX = 4096
NOTE_MAX = 4096
PROJECT_ID_MAX = 1024

_SOURCE_HASH = re.compile(r"journal-[0-9a-f]{32}")

StateName = Literal["current", "stale", "rebuilding", "error"]
STATE_CURRENT: StateName = "current"
STATE_STALE: StateName = "stale"
STATE_REBUILDING: StateName = "rebuilding"
STATE_ERROR: StateName = "error"


def _drop_nulls(data: Any) -> Any:
    """Go decodes a JSON null into the zero value; we read it the same way."""
    if isinstance(data, dict):
        return {k: v for k, v in data.items() if v is not None}
    return data


class _ProfileBase(BaseModel):
    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

    @model_validator(mode="before")
    @classmethod
    def _nulls_are_zero(cls, data: Any) -> Any:
        return _drop_nulls(data)


def _put(out: dict[str, Any], name: str, value: Any) -> None:
    """Go's omitempty: false, 0, "" and empty lists are left out."""
    if value:
        out[name] = list(value) if isinstance(value, list) else value


def _time_text(value: GoTime | None) -> str:
    return "0001-01-01T00:00:00Z" if value is None else value.format()


class ProfileOverride(_ProfileBase):
    """The operator's choices for one rule ID; kept while the rule is demoted, so they return."""

    enabled: StrictBool = False
    pinned: StrictBool = False
    user_note: StrictStr = ""
    user_note_redacted: StrictBool = False
    updated_at: Timestamp | None = None

    def has_effect(self) -> bool:
        return has_effect(self)

    def to_go_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"enabled": self.enabled}
        _put(out, "pinned", self.pinned)
        _put(out, "user_note", self.user_note)
        _put(out, "user_note_redacted", self.user_note_redacted)
        out["updated_at"] = _time_text(self.updated_at)
        return out


class ProfileRule(_ProfileBase):
    """One promoted preference: source-derived evidence plus the operator's override fields."""

    id: StrictStr = ""
    scope: StrictStr = ""
    scope_key: StrictStr = ""
    criterion: StrictStr = ""
    preference: StrictStr = ""
    preference_label: StrictStr = ""
    support_decision_ids: list[StrictStr] = []
    contradiction_decision_ids: list[StrictStr] = []
    support_project_ids: list[StrictStr] = []
    confidence: GoFloat = 0.0
    enabled: StrictBool = False
    pinned: StrictBool = False
    user_note: StrictStr = ""
    user_note_redacted: StrictBool = False
    updated_at: Timestamp | None = None

    def has_effect(self) -> bool:
        return has_effect(self)

    def derived_fields(self) -> tuple[Any, ...]:
        """Everything the journal determines; Save and UpdateRule must leave these unchanged."""
        return (
            self.id,
            self.scope,
            self.scope_key,
            self.criterion,
            self.preference,
            self.preference_label,
            tuple(self.support_decision_ids),
            tuple(self.contradiction_decision_ids),
            tuple(self.support_project_ids),
            self.confidence,
        )

    def to_override(self) -> ProfileOverride:
        return ProfileOverride(
            enabled=self.enabled,
            pinned=self.pinned,
            user_note=self.user_note,
            user_note_redacted=self.user_note_redacted,
            updated_at=self.updated_at,
        )

    def apply_override(self, override: ProfileOverride) -> None:
        """Copies the override's fields, its timestamp included, so syncing back is idempotent."""
        self.enabled = override.enabled
        self.pinned = override.pinned
        self.user_note = override.user_note
        self.user_note_redacted = override.user_note_redacted
        self.updated_at = override.updated_at

    def to_go_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "scope": self.scope}
        _put(out, "scope_key", self.scope_key)
        out["criterion"] = self.criterion
        out["preference"] = self.preference
        _put(out, "preference_label", self.preference_label)
        out["support_decision_ids"] = list(self.support_decision_ids) or None
        _put(out, "contradiction_decision_ids", self.contradiction_decision_ids)
        _put(out, "support_project_ids", self.support_project_ids)
        out["confidence"] = float(self.confidence)
        out["enabled"] = self.enabled
        _put(out, "pinned", self.pinned)
        _put(out, "user_note", self.user_note)
        _put(out, "user_note_redacted", self.user_note_redacted)
        out["updated_at"] = _time_text(self.updated_at)
        return out


class PreferenceProfile(_ProfileBase):
    """The whole profile file; revision 0 means "no profile on disk yet"."""

    schema_version: StrictInt = 0
    revision: StrictInt = 0
    generated_at: Timestamp | None = None
    record_count: StrictInt = 0
    source_hash: StrictStr = ""
    rules: list[ProfileRule] = []
    overrides: dict[StrictStr, ProfileOverride] = {}

    @classmethod
    def empty(cls) -> PreferenceProfile:
        return cls(schema_version=PROFILE_SCHEMA_VERSION)

    def rule(self, rule_id: str) -> ProfileRule | None:
        wanted = go_trim(rule_id)
        return next((r for r in self.rules if r.id == wanted), None)

    def to_go_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "schema_version": self.schema_version,
            "revision": self.revision,
            "generated_at": _time_text(self.generated_at),
            "record_count": self.record_count,
        }
        _put(out, "source_hash", self.source_hash)
        out["rules"] = [rule.to_go_dict() for rule in self.rules] or None
        if self.overrides:
            out["overrides"] = {k: self.overrides[k].to_go_dict() for k in sorted(self.overrides)}
        return out


def has_effect(item: ProfileRule | ProfileOverride) -> bool:
    """An override matters when it differs from a fresh rule: disabled, pinned or annotated."""
    return (
        not item.enabled or item.pinned or bool(go_trim(item.user_note)) or item.user_note_redacted
    )


@dataclass(frozen=True, slots=True)
class ProfileStatus:
    """What a UI shows for the profile: one state word plus the error text when there is one.

    `error` also carries a short reason for "stale" when there is no profile at all.
    """

    state: StateName
    error: str = ""
    revision: int = 0
    source_hash: str = ""
    journal_hash: str = ""


def dedupe_sorted(items: list[str]) -> list[str]:
    """Drops blanks and case-insensitive duplicates (first spelling wins), then sorts.

    Exact repeats go first, in C: a candidate's project ids repeat once per supporting record,
    and folding each repeat was most of the cost.
    """
    items = list(dict.fromkeys(items))
    keys = fold_keys(items)
    kept: dict[str, str] = dict(zip(reversed(keys), reversed(items), strict=True))
    kept.pop("", None)
    return sorted(kept.values())


# normalization ---------------------------------------------------------------------------------


def redact_note(note: str, flagged: bool) -> tuple[str, bool]:
    """Notes are private text: secrets are replaced, and the flag only ever turns on."""
    redacted, report = redact_text(note)
    return redacted, flagged or report.redacted


def _normalize_override(override: ProfileOverride) -> ProfileOverride:
    note, flagged = redact_note(override.user_note, override.user_note_redacted)
    return override.model_copy(update={"user_note": note, "user_note_redacted": flagged})


def _normalize_rule(rule: ProfileRule, generated_at: GoTime | None, derived: bool) -> ProfileRule:
    note, flagged = redact_note(rule.user_note, rule.user_note_redacted)
    update: dict[str, object] = {
        "id": go_trim(rule.id),
        "scope": go_lower(go_trim(rule.scope)),
        "scope_key": go_trim(rule.scope_key),
        "criterion": go_lower(go_trim(rule.criterion)),
        "preference": go_lower(go_trim(rule.preference)),
        "preference_label": redact_text(rule.preference_label)[0],
        "user_note": note,
        "user_note_redacted": flagged,
        "updated_at": rule.updated_at or generated_at,
    }
    if not derived:
        update["support_decision_ids"] = dedupe_sorted(rule.support_decision_ids)
        update["contradiction_decision_ids"] = dedupe_sorted(rule.contradiction_decision_ids)
        update["support_project_ids"] = dedupe_sorted(rule.support_project_ids)
    return rule.model_copy(update=update)


def normalize_profile(profile: PreferenceProfile, *, derived: bool = False) -> PreferenceProfile:
    """Returns a normalized copy with the overrides re-applied onto their rules.

    Runs before every write, so whatever path produced the profile (rebuild, Save, UpdateRule)
    the file holds trimmed keys, redacted text and rules that agree with their overrides.

    `derived`: the rules come straight from derivation, which gives every evidence list sorted and
    deduplicated as this would (`tests/core/profile/test_derive.py` holds the two equal); folding
    and sorting them again was a noticeable part of a large rebuild's serial tail
    (bench/CHANGES.md).
    """
    overrides: dict[str, ProfileOverride] = {}
    for key, override in profile.overrides.items():
        if go_trim(key):
            overrides[go_trim(key)] = _normalize_override(override)
    rules = [_normalize_rule(rule, profile.generated_at, derived) for rule in profile.rules]
    for rule in rules:
        matching = overrides.get(rule.id)
        if matching is not None:
            rule.apply_override(matching)
    return profile.model_copy(update={"rules": rules, "overrides": overrides})


def sync_overrides_from_rules(profile: PreferenceProfile) -> None:
    """Makes each rule's override fields the truth: upserts overrides with effect, drops others."""
    for rule in profile.rules:
        if rule.has_effect():
            profile.overrides[rule.id] = rule.to_override()
        else:
            profile.overrides.pop(rule.id, None)


# parsing ---------------------------------------------------------------------------------------


def parse_profile(data: bytes, *, what: str) -> PreferenceProfile:
    """Strict structural parse plus the lifecycle checks; raises ProfileDamaged, never repairs."""
    try:
        raw = loads_strict(data, what=what)
    except JournalDamaged as exc:
        raise ProfileDamaged(f"preference profile {what} cannot be read: {exc}") from exc
    if not isinstance(raw, dict):
        raise ProfileDamaged(f"preference profile {what} cannot be read: not a JSON object")
    try:
        profile = PreferenceProfile.model_validate(raw)
    except ValidationError as exc:
        raise ProfileDamaged(
            f"preference profile {what} cannot be read: {pydantic_problem(exc)}"
        ) from exc
    try:
        check_lifecycle(profile)
    except ProfileInvalid as exc:
        raise ProfileDamaged(f"preference profile {what} cannot be read: {exc}") from exc
    return profile


def check_lifecycle(profile: PreferenceProfile) -> None:
    """The stored-file contract: schema 1, a positive revision, and every timestamp present."""
    if profile.schema_version != PROFILE_SCHEMA_VERSION:
        raise ProfileInvalid(
            f"unsupported preference profile schema_version {profile.schema_version}",
            field="schema_version",
        )
    if profile.revision <= 0 or profile.generated_at is None:
        raise ProfileInvalid(
            "preference profile is missing required lifecycle metadata (revision, generated_at)",
            field="revision",
        )
    for index, rule in enumerate(profile.rules):
        if rule.updated_at is None:
            raise ProfileInvalid(
                f"preference rule rules[{index}] is missing updated_at", field="updated_at"
            )
    for key, override in profile.overrides.items():
        if not key or go_trim(key) != key:
            raise ProfileInvalid(
                f"preference override key {key[:80]!r} must be trimmed and non-empty",
                field="overrides",
            )
        if override.updated_at is None:
            raise ProfileInvalid(
                f"preference override {key[:80]!r} is missing updated_at", field="overrides"
            )


# validation ------------------------------------------------------------------------------------


class _Checker:
    """Validates one profile; remembers identifiers already checked, since rules share IDs."""

    def __init__(self) -> None:
        self._safe: set[str] = set()

    def not_sensitive(self, field: str, value: str) -> None:
        if value in self._safe:
            return
        if looks_sensitive(value):
            raise ProfileInvalid(
                f"preference profile {field} contains sensitive-looking text", field=field
            )
        self._safe.add(value)

    def decision_ids(self, field: str, ids: list[str]) -> None:
        # Rules share most IDs: only ids not checked for an earlier rule are looked at.
        fresh = set(ids).difference(self._safe)
        if all_valid_decision_ids(fresh) and none_sensitive(fresh):
            self._safe.update(fresh)  # the common case, asked of all of them at once
            return
        for value in filter(fresh.__contains__, dict.fromkeys(ids)):  # the first bad one, in order
            if not is_valid_decision_id(value):
                raise ProfileInvalid(
                    f"preference profile {field} holds an invalid decision id {value[:80]!r}",
                    field=field,
                )
            self.not_sensitive(field, value)


def _check_bytes(field: str, value: str, limit: int) -> None:
    size = utf8_len(value)
    if size > limit:
        raise ProfileInvalid(
            f"preference profile {field} exceeds the storage limit: it {too_large(size, limit)}",
            field=field,
            limit=limit,
        )


def _check_count(field: str, count: int, limit: int) -> None:
    if count > limit:
        raise ProfileInvalid(
            f"preference profile {field} exceeds the storage limit: {count} items, limit {limit}",
            field=field,
            limit=limit,
        )


def validate_profile(profile: PreferenceProfile, *, derived: bool = False) -> None:
    """Every content rule of a stored profile; raises ProfileInvalid naming field and limit.

    `derived`: the rules come straight from derivation, so every evidence id is the id of a record
    the strict read has just accepted, whose validation asks the same pattern and sensitivity
    questions; only the lists' sizes are checked again. Asking each id again was a noticeable part
    of a large rebuild's serial tail (bench/CHANGES.md). A profile read from disk is always checked
    in full.
    """
    check_lifecycle(profile)
    if profile.record_count < 0:
        raise ProfileInvalid("preference profile record_count is negative", field="record_count")
    if profile.source_hash and not _SOURCE_HASH.fullmatch(profile.source_hash):
        raise ProfileInvalid(
            "preference profile source_hash must be 'journal-' and 32 hex digits",
            field="source_hash",
        )
    _check_count("rules", len(profile.rules), MAX_RULES)
    _check_count("overrides", len(profile.overrides), MAX_OVERRIDES)
    checker = _Checker()
    seen: set[str] = set()
    for index, rule in enumerate(profile.rules):
        _validate_rule(checker, f"rules[{index}]", rule, derived)
        if rule.id in seen:
            raise ProfileInvalid(f"duplicate preference rule id {rule.id!r}", field="rules")
        seen.add(rule.id)
    for key, override in profile.overrides.items():
        _check_bytes("overrides key", key, RULE_ID_MAX)
        checker.not_sensitive("overrides key", key)
        _check_bytes(f"overrides[{key}].user_note", override.user_note, NOTE_MAX)


def _validate_rule(checker: _Checker, where: str, rule: ProfileRule, derived: bool) -> None:
    if not rule.id or not rule.criterion or not rule.preference:
        raise ProfileInvalid(
            f"preference rule {where} requires an id, criterion and preference", field=where
        )
    if rule.scope not in SCOPES:
        raise ProfileInvalid(
            f"preference rule {where} has unknown scope {rule.scope!r}", field=where
        )
    if rule.scope != SCOPE_GLOBAL and not rule.scope_key:
        raise ProfileInvalid(f"preference rule {where} requires a scope_key", field=where)
    for field, value, limit in (
        ("id", rule.id, RULE_ID_MAX),
        ("scope_key", rule.scope_key, SCOPE_KEY_MAX),
        ("criterion", rule.criterion, CRITERION_MAX),
        ("preference", rule.preference, PREFERENCE_MAX),
    ):
        _check_bytes(f"{where}.{field}", value, limit)
        checker.not_sensitive(f"{where}.{field}", value)
    _check_bytes(f"{where}.preference_label", rule.preference_label, LABEL_MAX)
    _check_bytes(f"{where}.user_note", rule.user_note, NOTE_MAX)
    if math.isnan(rule.confidence) or not 0.0 <= rule.confidence <= 1.0:
        raise ProfileInvalid(
            f"preference rule {where} confidence must be between 0 and 1", field=where
        )
    if not rule.support_decision_ids:
        raise ProfileInvalid(
            f"preference rule {where} requires at least one supporting decision", field=where
        )
    for field, ids in (
        ("support_decision_ids", rule.support_decision_ids),
        ("contradiction_decision_ids", rule.contradiction_decision_ids),
    ):
        _check_count(f"{where}.{field}", len(ids), MAX_EVIDENCE_ITEMS)
        if not derived:
            checker.decision_ids(f"{where}.{field}", ids)
    _check_count(f"{where}.support_project_ids", len(rule.support_project_ids), MAX_EVIDENCE_ITEMS)
    for project_id in rule.support_project_ids:
        _check_bytes(f"{where}.support_project_ids", project_id, PROJECT_ID_MAX)
        checker.not_sensitive(f"{where}.support_project_ids", project_id)
