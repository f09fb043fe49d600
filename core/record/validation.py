"""Store-level record validation: every write, and every read with the legacy leniency.

Each failure names the field, the size found and the limit, so a user can fix the input.
This is the one implementation of a stored record's rules: `validate_record` runs every
checker on every record. An agent's proposal, before a person answered it, has its own rules
in `core.capture.proposal`; both read every limit and its wording from `core.record.fields`.
A faster test of the same rules exists only for bulk reads (`core.bulk.fast_read`), and a
property test holds it equal to this one.
"""

from __future__ import annotations

import functools
import math
import re

from core.errors import InvalidDecision, SensitiveIdentifier
from core.gocompat.text import go_lower, go_trim, utf8_len
from core.messages.wording import too_large
from core.record.fields import ID_CHARACTERS, FieldRule, id_rule, item_rule, risk_problem, rule
from core.record.shape import (
    RISK_LEVELS,
    SCHEMA_VERSION,
    SOURCES,
    STATUSES,
    OptionShape,
    RecordShape,
)

CUSTOM_OPTION_ID = "__custom__"


@functools.lru_cache(maxsize=8)
def _id_pattern(most: int) -> re.Pattern[str]:
    """The id syntax for ids of at most `most` characters (the limit is read at each check)."""
    return re.compile(f"[{ID_CHARACTERS}]{{1,{most}}}")


@functools.lru_cache(maxsize=1 << 16)
def looks_sensitive(text: str) -> bool:
    """`core.record.redaction.looks_sensitive`, cached: identifiers repeat across a journal
    (projects, sessions, kinds, option ids), which keeps strict validation of a large journal
    cheap. The patterns load with the first check, not with every reader of this module."""
    from core.record.redaction import looks_sensitive as check  # noqa: PLC0415

    return check(text)


LEGACY_KIND = "legacy-unclassified"

_IDENTIFIER_FIELDS = (
    "session_id",
    "feature_id",
    "goal_id",
    "edit_loop_id",
    "project_id",
    "workspace_hash",
    "task_fingerprint",
    "evidence_fingerprint",
)
_TEXT_FIELDS = (
    "problem",
    "selection_reason_raw",
    "custom_selection",
    "summary_sentence",
    "workspace",
    "project_alias",
)
"""Free-text fields checked by their own rule in `core.record.fields`."""
_LIST_FIELDS = ("domains", "languages", "tags", "evidence_refs")
PROVENANCE_FIELDS = ("options", "selection", "rationale", "summary")


def is_valid_option_id(value: str) -> bool:
    most = rule("option.id").most
    return bool(_id_pattern(most).fullmatch(value)) and value != CUSTOM_OPTION_ID


def is_valid_decision_id(value: str) -> bool:
    valid = bool(_id_pattern(rule("id").most).fullmatch(value))
    return valid and value not in (".", "..") and ".." not in value


def check_decision_id(value: str) -> None:
    if not is_valid_decision_id(value):
        raise InvalidDecision(
            f"invalid implementation decision id {value[:80]!r}: {id_rule('id')} without '..'",
            field="id",
            limit=rule("id").most,
        )
    if looks_sensitive(value):
        raise SensitiveIdentifier(
            "implementation decision id contains sensitive-looking text", field="id"
        )


def fits_bytes(text: str, limit: int) -> bool:
    """At most `limit` bytes in UTF-8, counted only when the length alone cannot tell (no
    character takes more than 4 bytes)."""
    return len(text) * 4 <= limit or utf8_len(text) <= limit


def check_bytes(field: str, value: str, limit: FieldRule, what: str = "text") -> None:
    """Refuses `value` over the rule's byte limit, in the reference's words, then ours."""
    if fits_bytes(value, limit.most):
        return
    raise InvalidDecision(
        f"implementation decision {what} exceeds the storage limit: "
        f"{field} {too_large(utf8_len(value), limit.most)}",
        field=field,
        limit=limit.most,
    )


def check_list(field: str, items: list[str], name: str) -> None:
    """Refuses a list over its rule's count, or an entry over its item rule's bytes."""
    limit = rule(name)
    if len(items) > limit.most:
        raise InvalidDecision(
            f"implementation decision list exceeds the storage limit: "
            f"{field} {limit.over(len(items))}",
            field=field,
            limit=limit.most,
        )
    each = item_rule(name)
    for index, item in enumerate(items):
        check_bytes(f"{field}[{index}]", item, each, "list item")


def check_identifier(field: str, value: str) -> None:
    check_bytes(field, value, rule("identifier"), "metadata")
    if value and looks_sensitive(value):
        raise SensitiveIdentifier(
            f"implementation decision identifier metadata contains sensitive-looking text: {field}",
            field=field,
        )


def validate_record(record: RecordShape, *, legacy_lenient: bool = False) -> None:
    """Raises InvalidDecision for the first broken rule; `legacy_lenient` is for stored reads.

    The rules run in a fixed order, so a record breaking several is always refused with the
    same message.
    """
    if record.schema_version != SCHEMA_VERSION:
        raise InvalidDecision(
            f"unsupported implementation decision schema_version {record.schema_version}",
            field="schema_version",
        )
    check_decision_id(record.id)
    if record.revision <= 0:
        raise InvalidDecision("implementation decision revision must be positive", field="revision")
    _validate_classification(record, legacy_lenient)
    for field in _TEXT_FIELDS:
        check_bytes(field, getattr(record, field), rule(field))
    for field in _LIST_FIELDS:
        check_list(field, getattr(record, field), field)
    _validate_redaction(record)
    for field in _IDENTIFIER_FIELDS:
        check_identifier(field, getattr(record, field))
    if not (0.0 <= record.detector_confidence <= 1.0) or math.isnan(record.detector_confidence):
        raise InvalidDecision(
            "implementation decision detector confidence must be between 0 and 1",
            field="detector_confidence",
        )
    option_ids = _validate_options(record)
    _validate_selection(record, option_ids)
    _validate_rejections(record, option_ids)
    _validate_lifecycle(record)


def _validate_classification(record: RecordShape, legacy_lenient: bool) -> None:
    if not go_trim(record.problem):
        raise InvalidDecision("implementation decision requires a problem", field="problem")
    kind, risk = record.decision_kind, record.risk_level
    if legacy_lenient:
        kind_max, identifier_max = rule("decision_kind").most, rule("identifier").most
        if not go_trim(kind) or kind_max < utf8_len(kind) <= identifier_max:
            kind = LEGACY_KIND
        if go_lower(risk) not in RISK_LEVELS and utf8_len(risk) <= identifier_max:
            risk = ""
    if not go_trim(kind):
        raise InvalidDecision(
            "implementation decision requires a decision_kind", field="decision_kind"
        )
    check_bytes("decision_kind", kind, rule("decision_kind"), "kind")
    check_identifier("decision_kind", kind)
    if risk not in RISK_LEVELS:
        raise InvalidDecision(
            f"implementation decision risk_level {risk_problem(risk)}", field="risk_level"
        )


def _validate_redaction(record: RecordShape) -> None:
    patterns = record.redaction.patterns
    check_list("redaction.patterns", patterns, "redaction.patterns")
    for pattern in patterns:
        if looks_sensitive(pattern):
            raise SensitiveIdentifier(
                "implementation decision redaction pattern contains sensitive-looking text",
                field="redaction.patterns",
            )


def _check_source(field: str, value: str) -> None:
    if go_lower(value) not in SOURCES:
        raise InvalidDecision(
            f"unsupported implementation decision provenance {value!r} in {field}", field=field
        )


def _validate_options(record: RecordShape) -> set[str]:
    """Checks every option and returns their ids, which the selection rules look up."""
    count, options = len(record.options), rule("options")
    if not options.least <= count <= options.most:
        raise InvalidDecision(
            f"implementation decision requires {options.span()}, got {count}",
            field="options",
            limit=options.most,
        )
    seen: set[str] = set()
    flagged: list[str] = []
    for index, option in enumerate(record.options):
        _check_option(f"options[{index}]", option, seen)
        seen.add(option.id)
        if option.recommended:
            flagged.append(option.id)
    _validate_recommendation(record, flagged, seen)
    return seen


def _check_option(where: str, option: OptionShape, seen: set[str]) -> None:
    """The option rules in order; raises on the first one the option breaks."""
    if not option.id or not go_trim(option.label):
        raise InvalidDecision(
            f"implementation decision option requires an id and label: {where}", field=where
        )
    check_bytes(f"{where}.id", option.id, rule("option.id"), "option")
    check_bytes(f"{where}.label", option.label, rule("option.label"), "option")
    check_bytes(f"{where}.description", option.description, rule("option.description"))
    for detail, items in (("pros", option.pros), ("cons", option.cons)):
        check_list(f"{where}.{detail}", items, "option.details")
    if not is_valid_option_id(option.id):
        raise InvalidDecision(
            f"invalid implementation decision option id {option.id!r} at {where}: "
            f"{id_rule('option.id')}",
            field=f"{where}.id",
            limit=rule("option.id").most,
        )
    if looks_sensitive(option.id):
        raise SensitiveIdentifier(
            f"implementation decision option id contains sensitive-looking text at {where}",
            field=f"{where}.id",
        )
    _check_source(f"{where}.source", option.source)
    if option.id in seen:
        raise InvalidDecision(
            f"duplicate implementation decision option id {option.id!r}", field=f"{where}.id"
        )


def _validate_recommendation(record: RecordShape, flagged: list[str], ids: set[str]) -> None:
    if len(flagged) > 1:
        raise InvalidDecision(
            "implementation decision must not have multiple recommended options",
            field="options",
        )
    rec = record.recommended_option_id
    if rec and rec not in ids:
        raise InvalidDecision(
            f"recommended option {rec!r} is not present", field="recommended_option_id"
        )
    if rec and looks_sensitive(rec):
        raise SensitiveIdentifier(
            "recommended option id contains sensitive-looking text", field="recommended_option_id"
        )
    if (rec or flagged) and [rec] != flagged:
        raise InvalidDecision(
            "recommended option fields disagree: recommended_option_id and the option's "
            "recommended flag must name the same option",
            field="recommended_option_id",
        )


def _validate_selection(record: RecordShape, option_ids: set[str]) -> None:
    selected, custom = record.selected_option_id, go_trim(record.custom_selection)
    if not selected and not custom:
        raise InvalidDecision(
            "implementation decision requires a selected or custom option",
            field="selected_option_id",
        )
    if selected and custom:
        raise InvalidDecision(
            "implementation decision cannot select a listed and custom option together",
            field="custom_selection",
        )
    if selected and looks_sensitive(selected):
        raise SensitiveIdentifier(
            "selected option id contains sensitive-looking text", field="selected_option_id"
        )
    if selected and selected not in option_ids:
        raise InvalidDecision(
            f"selected option {selected!r} is not present", field="selected_option_id"
        )
    if not go_trim(record.selection_reason_raw):
        raise InvalidDecision(
            "implementation decision requires a selection rationale",
            field="selection_reason_raw",
        )
    for name in PROVENANCE_FIELDS:
        _check_source(f"provenance.{name}", getattr(record.provenance, name))


def _validate_rejections(record: RecordShape, option_ids: set[str]) -> None:
    selected = record.selected_option_id
    rejected: set[str] = set()
    for index, rejection in enumerate(record.rejected_reasons):
        where = f"rejected_reasons[{index}]"
        oid = rejection.option_id
        if oid not in option_ids:
            raise InvalidDecision(f"rejected option {oid!r} is not present", field=where)
        if oid == selected:
            raise InvalidDecision(f"selected option {oid!r} cannot be rejected", field=where)
        if oid in rejected:
            raise InvalidDecision(f"duplicate rejection for option {oid!r}", field=where)
        rejected.add(oid)
        check_bytes(f"{where}.reason", rejection.reason, rule("rejection_reason"))
        if not go_trim(rejection.reason):
            raise InvalidDecision(
                f"implementation decision requires a rejection rationale for option {oid!r}",
                field=f"{where}.reason",
            )
        _check_source(f"{where}.source", rejection.source)
    for option in record.options:
        if option.id != selected and option.id not in rejected:
            raise InvalidDecision(
                f"implementation decision requires a rejection entry for option {option.id!r}",
                field="rejected_reasons",
            )


def _validate_lifecycle(record: RecordShape) -> None:
    if record.status not in STATUSES:
        raise InvalidDecision(
            f"unsupported implementation decision status {record.status!r}", field="status"
        )
    if record.is_deleted != (record.deleted_at is not None):
        raise InvalidDecision(
            "implementation decision status and deleted_at disagree: a deleted record needs "
            "deleted_at and an active one must not have it",
            field="deleted_at",
        )
