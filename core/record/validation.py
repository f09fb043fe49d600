"""Store-level record validation: every write, and every read with the legacy leniency.

Each failure names the field, the size found and the limit, so a user can fix the input.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Sequence
from operator import attrgetter

from core import limits
from core.errors import InvalidDecision, SensitiveIdentifier
from core.gocompat.text import go_lower, go_trim, utf8_len
from core.record.models import (
    RISK_LEVELS,
    SCHEMA_VERSION,
    SOURCES,
    STATUS_DELETED,
    STATUSES,
)
from core.record.redaction import looks_sensitive as _looks_sensitive
from core.record.shape import OptionShape, RecordShape

_OPTION_ID = re.compile(r"[A-Za-z0-9._-]{1,128}")
_DECISION_ID = re.compile(r"[A-Za-z0-9._-]{1,160}")
CUSTOM_OPTION_ID = "__custom__"

# Identifiers repeat across a journal (projects, sessions, kinds, option ids): caching the
# verdict keeps strict validation of 100,000 records cheap.
looks_sensitive = functools.lru_cache(maxsize=1 << 16)(_looks_sensitive)
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
_TEXT_LIMITS = (
    ("problem", limits.PROBLEM_MAX),
    ("selection_reason_raw", limits.REASON_MAX),
    ("custom_selection", limits.CUSTOM_SELECTION_MAX),
    ("summary_sentence", limits.SUMMARY_MAX),
    ("workspace", limits.WORKSPACE_MAX),
    ("project_alias", limits.IDENTIFIER_MAX),
)
_LIST_LIMITS = (
    ("domains", limits.DOMAINS_MAX, limits.LIST_ITEM_MAX),
    ("languages", limits.LANGUAGES_MAX, limits.LIST_ITEM_MAX),
    ("tags", limits.TAGS_MAX, limits.LIST_ITEM_MAX),
    ("evidence_refs", limits.EVIDENCE_REFS_MAX, limits.EVIDENCE_REF_MAX),
)
_TEXT_LIMIT_MIN = min(limit for _, limit in _TEXT_LIMITS)
_TEXT_LIMIT_VALUES = tuple(limit for _, limit in _TEXT_LIMITS)
# One C call reads a group of fields: cheaper than a getattr per field on every stored read.
_identifier_values = attrgetter(*_IDENTIFIER_FIELDS)
_text_values = attrgetter(*(field for field, _ in _TEXT_LIMITS))
_list_values = attrgetter(*(field for field, _, _ in _LIST_LIMITS))
_provenance_values = attrgetter("options", "selection", "rationale", "summary")
_SOURCE_SET = frozenset(SOURCES)


def is_valid_option_id(value: str) -> bool:
    return bool(_OPTION_ID.fullmatch(value)) and value != CUSTOM_OPTION_ID


def is_valid_decision_id(value: str) -> bool:
    return bool(_DECISION_ID.fullmatch(value)) and value not in (".", "..") and ".." not in value


_NOT_ID_CHARACTER = re.compile(r"[^A-Za-z0-9._-]")


def all_valid_decision_ids(ids: set[str]) -> bool:
    """Whether `is_valid_decision_id` holds for every id, asked of them all at once.

    Why: a profile names up to 2,048 supporting and contradicting decisions per rule, and
    testing each against the pattern was most of the cost of validating it. The characters of
    all ids are scanned in one C search and their lengths in two passes; only when two dots
    meet in the joined text (which may be across two ids) is each id asked on its own.
    """
    joined = "".join(ids)
    if (
        _NOT_ID_CHARACTER.search(joined)
        or "" in ids
        or "." in ids
        or max(map(len, ids), default=0) > limits.DECISION_ID_MAX
    ):
        return False
    return ".." not in joined or all(map(is_valid_decision_id, ids))


def check_decision_id(value: str) -> None:
    if not is_valid_decision_id(value):
        raise InvalidDecision(
            f"invalid implementation decision id {value[:80]!r}: use 1 to 160 characters from "
            "A-Z a-z 0-9 . _ - without '..'",
            field="id",
            limit=limits.DECISION_ID_MAX,
        )
    if looks_sensitive(value):
        raise SensitiveIdentifier(
            "implementation decision id contains sensitive-looking text", field="id"
        )


def check_bytes(field: str, value: str, limit: int, what: str = "text") -> None:
    if len(value) * 4 <= limit:  # no character takes more than 4 bytes in UTF-8
        return
    size = utf8_len(value)
    if size > limit:
        raise InvalidDecision(
            f"implementation decision {what} exceeds the storage limit: "
            f"{field} is {size} bytes, limit {limit}",
            field=field,
            limit=limit,
        )


def _list_fits(items: list[str], count: int, item_limit: int) -> bool:
    """The sufficient test: few enough items, each short enough in any UTF-8 (C-level)."""
    return len(items) <= count and (not items or max(map(len, items)) * 4 <= item_limit)


def check_list(field: str, items: list[str], count: int, item_limit: int) -> None:
    if _list_fits(items, count, item_limit):
        return  # the common case, confirmed in C without a call per item
    if len(items) > count:
        raise InvalidDecision(
            f"implementation decision list exceeds the storage limit: "
            f"{field} has {len(items)} items, limit {count}",
            field=field,
            limit=count,
        )
    for index, item in enumerate(items):
        check_bytes(f"{field}[{index}]", item, item_limit, "list item")


def check_identifier(field: str, value: str) -> None:
    check_bytes(field, value, limits.IDENTIFIER_MAX, "metadata")
    if value and looks_sensitive(value):
        raise SensitiveIdentifier(
            f"implementation decision identifier metadata contains sensitive-looking text: {field}",
            field=field,
        )


def validate_record(record: RecordShape, *, legacy_lenient: bool = False) -> None:
    """Raises InvalidDecision for the first broken rule; `legacy_lenient` is for stored reads.

    Every stored record passes through here on a journal read, so `_plainly_valid` first
    tests a sufficient condition for all rules at once; only a record it does not clear goes
    through the checkers below, which decide and word the first broken rule.
    """
    if _plainly_valid(record):
        return
    if record.schema_version != SCHEMA_VERSION:
        raise InvalidDecision(
            f"unsupported implementation decision schema_version {record.schema_version}",
            field="schema_version",
        )
    check_decision_id(record.id)
    if record.revision <= 0:
        raise InvalidDecision("implementation decision revision must be positive", field="revision")
    _validate_classification(record, legacy_lenient)
    texts = _text_values(record)
    if max(map(len, texts)) * 4 > _TEXT_LIMIT_MIN:
        for (field, limit), value in zip(_TEXT_LIMITS, texts, strict=True):
            check_bytes(field, value, limit)
    for (field, count, item_limit), items in zip(_LIST_LIMITS, _list_values(record), strict=True):
        check_list(field, items, count, item_limit)
    _validate_redaction(record)
    identifiers = _identifier_values(record)
    if max(map(len, identifiers)) * 4 > limits.IDENTIFIER_MAX or any(
        map(looks_sensitive, filter(None, identifiers))
    ):
        for field, value in zip(_IDENTIFIER_FIELDS, identifiers, strict=True):
            check_identifier(field, value)
    if not (0.0 <= record.detector_confidence <= 1.0) or math.isnan(record.detector_confidence):
        raise InvalidDecision(
            "implementation decision detector confidence must be between 0 and 1",
            field="detector_confidence",
        )
    option_ids = _validate_options(record)
    _validate_selection(record, option_ids)
    _validate_rejections(record, option_ids)
    _validate_lifecycle(record)


def fits_bytes(text: str, limit: int) -> bool:
    """At most `limit` bytes in UTF-8, counted only when the length alone cannot tell."""
    return len(text) * 4 <= limit or utf8_len(text) <= limit


@functools.lru_cache(maxsize=4096)
def _kind_fine(kind: str) -> bool:
    """The kind passes every classification rule, strict or lenient (kinds repeat: cached)."""
    return bool(go_trim(kind)) and utf8_len(kind) <= limits.KIND_MAX and not looks_sensitive(kind)


@functools.lru_cache(maxsize=4096)
def _option_id_fine(option_id: str) -> bool:
    return (
        utf8_len(option_id) <= limits.OPTION_ID_MAX
        and is_valid_option_id(option_id)
        and not looks_sensitive(option_id)
    )


def _plainly_valid(r: RecordShape) -> bool:
    """True only when every rule of `validate_record` holds, in either mode; a sufficient test.

    Why: this decides almost every stored read, in fewer steps than running each checker.
    False proves nothing: the checkers then run and decide. Values outside the plain case
    (an unlisted spelling of a source, redaction patterns, oversized text) answer False.
    """
    options = r.options
    if not (
        r.schema_version == SCHEMA_VERSION
        and r.revision > 0
        and limits.OPTIONS_MIN <= len(options) <= limits.OPTIONS_MAX
        and r.status in STATUSES
        and r.risk_level in RISK_LEVELS
        and not r.redaction.patterns
        and 0.0 <= r.detector_confidence <= 1.0
        and (r.status == STATUS_DELETED) == (r.deleted_at is not None)
        and go_trim(r.problem)
        and _kind_fine(r.decision_kind)
        and is_valid_decision_id(r.id)
        and not looks_sensitive(r.id)
        and _texts_fit(_text_values(r))
        and _lists_fit(r)
    ):
        return False
    identifiers = _identifier_values(r)
    if max(map(len, identifiers)) * 4 > limits.IDENTIFIER_MAX or any(
        map(looks_sensitive, filter(None, identifiers))
    ):
        return False
    ids = [option.id for option in options]
    return (
        len(set(ids)) == len(ids)
        and all(map(_option_fine, options))
        and recommendation_consistent(r, options)
        and selection_consistent(r, ids)
    )


def _texts_fit(texts: tuple[str, ...]) -> bool:
    return max(map(len, texts)) * 4 <= _TEXT_LIMIT_MIN or all(
        map(fits_bytes, texts, _TEXT_LIMIT_VALUES)
    )


def _lists_fit(r: RecordShape) -> bool:
    return all(
        _list_fits(items, count, item_limit)
        for (_, count, item_limit), items in zip(_LIST_LIMITS, _list_values(r), strict=True)
    )


def _option_fine(option: OptionShape) -> bool:
    return (
        _option_id_fine(option.id)
        and option.source in _SOURCE_SET
        and bool(go_trim(option.label))
        and fits_bytes(option.label, limits.OPTION_LABEL_MAX)
        and fits_bytes(option.description, limits.OPTION_DESCRIPTION_MAX)
        and _details_fit(option.pros)
        and _details_fit(option.cons)
    )


def recommendation_consistent(r: RecordShape, options: Sequence[OptionShape]) -> bool:
    """At most one flagged option, and recommended_option_id names exactly that one."""
    flagged = [option.id for option in options if option.recommended]
    recommended = r.recommended_option_id
    return flagged == ([recommended] if recommended else [])


def selection_consistent(r: RecordShape, ids: list[str]) -> bool:
    """Exactly one of a listed or custom choice, a reason, and a rejection for every other
    option (its id listed, not the selected one, once, with a reason and a known source)."""
    selected = r.selected_option_id
    custom = go_trim(r.custom_selection)
    if (
        bool(selected) == bool(custom)
        or (selected and selected not in ids)
        or not go_trim(r.selection_reason_raw)
        or not _SOURCE_SET.issuperset(_provenance_values(r.provenance))
    ):
        return False
    rejected: set[str] = set()
    for rejection in r.rejected_reasons:
        option_id, reason = rejection.option_id, rejection.reason
        if (
            option_id not in ids
            or option_id == selected
            or option_id in rejected
            or not go_trim(reason)
            or not fits_bytes(reason, limits.REASON_MAX)
            or rejection.source not in _SOURCE_SET
        ):
            return False
        rejected.add(option_id)
    return len(rejected) + (selected in ids) == len(ids)


def _validate_classification(record: RecordShape, legacy_lenient: bool) -> None:
    if not go_trim(record.problem):
        raise InvalidDecision("implementation decision requires a problem", field="problem")
    kind, risk = record.decision_kind, record.risk_level
    if legacy_lenient:
        if not go_trim(kind) or limits.KIND_MAX < utf8_len(kind) <= limits.IDENTIFIER_MAX:
            kind = LEGACY_KIND
        # A listed risk is its own lowercase: only other values need go_lower.
        if (
            risk not in RISK_LEVELS
            and go_lower(risk) not in RISK_LEVELS
            and utf8_len(risk) <= limits.IDENTIFIER_MAX
        ):
            risk = ""
    if not go_trim(kind):
        raise InvalidDecision(
            "implementation decision requires a decision_kind", field="decision_kind"
        )
    check_bytes("decision_kind", kind, limits.KIND_MAX, "kind")
    check_identifier("decision_kind", kind)
    if risk not in RISK_LEVELS:
        raise InvalidDecision(
            f"implementation decision risk_level {risk!r} is invalid: use low, medium, high, "
            "critical or leave it empty",
            field="risk_level",
        )


def _validate_redaction(record: RecordShape) -> None:
    patterns = record.redaction.patterns
    check_list(
        "redaction.patterns", patterns, limits.REDACTION_PATTERNS_MAX, limits.REDACTION_PATTERN_MAX
    )
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
    count = len(record.options)
    if not limits.OPTIONS_MIN <= count <= limits.OPTIONS_MAX:
        raise InvalidDecision(
            f"implementation decision requires 2 to 4 options, got {count}", field="options"
        )
    seen: set[str] = set()
    recommended: list[str] = []
    for index, option in enumerate(record.options):
        oid = option.id
        # Enough for every rule of _check_option; when it fails, that decides (and words it).
        if (
            not oid
            or len(oid) * 4 > limits.OPTION_ID_MAX
            or len(option.label) * 4 > limits.OPTION_LABEL_MAX
            or len(option.description) * 4 > limits.OPTION_DESCRIPTION_MAX
            or not go_trim(option.label)
            or not _details_fit(option.pros)
            or not _details_fit(option.cons)
            or not is_valid_option_id(oid)
            or looks_sensitive(oid)
            or option.source not in _SOURCE_SET
            or oid in seen
        ):
            _check_option(f"options[{index}]", option, seen)
        seen.add(oid)
        if option.recommended:
            recommended.append(oid)
    _validate_recommendation(record, recommended, seen)
    return seen


def _details_fit(items: list[str]) -> bool:
    """The sufficient test for pros and cons."""
    return _list_fits(items, limits.OPTION_DETAIL_ITEMS_MAX, limits.OPTION_DETAIL_MAX)


def _check_option(where: str, option: OptionShape, seen: set[str]) -> None:
    """The option rules in order; raises on the first one the option breaks."""
    if not option.id or not go_trim(option.label):
        raise InvalidDecision(
            f"implementation decision option requires an id and label: {where}", field=where
        )
    check_bytes(f"{where}.id", option.id, limits.OPTION_ID_MAX, "option")
    check_bytes(f"{where}.label", option.label, limits.OPTION_LABEL_MAX, "option")
    check_bytes(f"{where}.description", option.description, limits.OPTION_DESCRIPTION_MAX)
    for detail in ("pros", "cons"):
        check_list(
            f"{where}.{detail}",
            getattr(option, detail),
            limits.OPTION_DETAIL_ITEMS_MAX,
            limits.OPTION_DETAIL_MAX,
        )
    if not is_valid_option_id(option.id):
        raise InvalidDecision(
            f"invalid implementation decision option id {option.id!r} at {where}: use 1 to "
            "128 characters from A-Z a-z 0-9 . _ -",
            field=f"{where}.id",
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
    sources = _provenance_values(record.provenance)
    if not _SOURCE_SET.issuperset(sources):
        for name, value in zip(
            ("options", "selection", "rationale", "summary"), sources, strict=True
        ):
            _check_source(f"provenance.{name}", value)


def _validate_rejections(record: RecordShape, option_ids: set[str]) -> None:
    selected = record.selected_option_id
    rejected: set[str] = set()
    for index, rejection in enumerate(record.rejected_reasons):
        oid, reason = rejection.option_id, rejection.reason
        if oid not in option_ids:
            raise InvalidDecision(
                f"rejected option {oid!r} is not present", field=f"rejected_reasons[{index}]"
            )
        if oid == selected:
            raise InvalidDecision(
                f"selected option {oid!r} cannot be rejected", field=f"rejected_reasons[{index}]"
            )
        if oid in rejected:
            raise InvalidDecision(
                f"duplicate rejection for option {oid!r}", field=f"rejected_reasons[{index}]"
            )
        rejected.add(oid)
        if len(reason) * 4 > limits.REASON_MAX:
            check_bytes(f"rejected_reasons[{index}].reason", reason, limits.REASON_MAX)
        if not go_trim(reason):
            raise InvalidDecision(
                f"implementation decision requires a rejection rationale for option {oid!r}",
                field=f"rejected_reasons[{index}].reason",
            )
        if rejection.source not in _SOURCE_SET:
            _check_source(f"rejected_reasons[{index}].source", rejection.source)
    if len(rejected) + (selected in option_ids) == len(option_ids):
        return  # every option is either the selected one or rejected
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
