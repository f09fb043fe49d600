"""The strict read's fast paths against straightforward reference implementations.

Why: normalization, validation, timestamp parsing and serialization take shortcuts for the
common, already-normal record. Each shortcut must give exactly what the plain rule gives, for
normal records and for mutated, non-normal and invalid ones, errors included. The references
below are the plain implementations the shortcuts replaced, kept here as oracles.
"""

from __future__ import annotations

import calendar
import json
import math
import re
import time
from functools import partial
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from core import limits
from core.errors import InvalidDecision, JournalDamaged, SensitiveIdentifier
from core.gocompat.gojson import dumps_compact, loads_strict
from core.gocompat.gotime import GoTime
from core.gocompat.text import go_lower, go_trim, utf8_len
from core.profile.derive import compact_bytes
from core.record.codec import compact_record, decode_stored_record, parse_record
from core.record.models import (
    RISK_LEVELS,
    SCHEMA_VERSION,
    SOURCES,
    STATUS_COMPLETED,
    STATUSES,
    DecisionRecord,
    Option,
    Provenance,
    Redaction,
    RejectedReason,
)
from core.record.normalize import collapse_list, dedupe_fold, normalize_record, normalized
from core.record.summary import korean_summary
from core.record.validation import (
    LEGACY_KIND,
    check_decision_id,
    is_valid_option_id,
    looks_sensitive,
    validate_record,
)

NOW = GoTime(1_780_000_000_123_456_789)

# references ------------------------------------------------------------------------------------

_SCALARS = (
    "id",
    "session_id",
    "feature_id",
    "goal_id",
    "edit_loop_id",
    "project_id",
    "project_alias",
    "workspace",
    "workspace_hash",
    "problem",
    "task_fingerprint",
    "evidence_fingerprint",
    "recommended_option_id",
    "selected_option_id",
    "custom_selection",
    "selection_reason_raw",
    "summary_sentence",
)


def reference_normalize(record: DecisionRecord, now: GoTime) -> DecisionRecord:
    """Every field computed and copied, as normalization was written before its fast path."""
    update: dict[str, object] = {name: go_trim(getattr(record, name)) for name in _SCALARS}
    update["schema_version"] = record.schema_version or SCHEMA_VERSION
    update["revision"] = record.revision if record.revision > 0 else 1
    created = record.created_at or now
    update["created_at"] = created
    update["updated_at"] = record.updated_at or created
    update["decision_kind"] = go_lower(go_trim(record.decision_kind))
    update["risk_level"] = go_lower(go_trim(record.risk_level))
    update["status"] = go_lower(go_trim(record.status)) or STATUS_COMPLETED
    update["domains"] = dedupe_fold(record.domains)
    update["languages"] = dedupe_fold(record.languages)
    update["tags"] = dedupe_fold(record.tags)
    update["evidence_refs"] = collapse_list(record.evidence_refs, limits.EVIDENCE_REFS_MAX)
    options = [
        o.model_copy(
            update={
                "id": go_trim(o.id),
                "label": go_trim(o.label),
                "description": go_trim(o.description),
                "pros": collapse_list(o.pros, limits.OPTION_DETAIL_ITEMS_MAX),
                "cons": collapse_list(o.cons, limits.OPTION_DETAIL_ITEMS_MAX),
                "order": o.order if o.order > 0 else i + 1,
                "source": go_trim(o.source),
            }
        )
        for i, o in enumerate(record.options)
    ]
    update["options"] = sorted(options, key=lambda o: o.order)
    update["rejected_reasons"] = [
        RejectedReason(
            option_id=go_trim(r.option_id), reason=go_trim(r.reason), source=go_trim(r.source)
        )
        for r in record.rejected_reasons
    ]
    p = record.provenance
    update["provenance"] = Provenance(
        options=go_trim(p.options),
        selection=go_trim(p.selection),
        rationale=go_trim(p.rationale),
        summary=go_trim(p.summary),
    )
    update["redaction"] = record.redaction.model_copy(deep=True)
    result = record.model_copy(update=update)
    if not result.summary_sentence:
        result.summary_sentence = korean_summary(result)
    return result


def _ref_check_bytes(field: str, value: str, limit: int, what: str = "text") -> None:
    size = utf8_len(value)
    if size > limit:
        raise InvalidDecision(
            f"implementation decision {what} exceeds the storage limit: "
            f"{field} is {size} bytes, limit {limit}",
            field=field,
            limit=limit,
        )


def _ref_check_list(field: str, items: list[str], count: int, item_limit: int) -> None:
    if len(items) > count:
        raise InvalidDecision(
            f"implementation decision list exceeds the storage limit: "
            f"{field} has {len(items)} items, limit {count}",
            field=field,
            limit=count,
        )
    for index, item in enumerate(items):
        _ref_check_bytes(f"{field}[{index}]", item, item_limit, "list item")


def _ref_check_identifier(field: str, value: str) -> None:
    _ref_check_bytes(field, value, limits.IDENTIFIER_MAX, "metadata")
    if value and looks_sensitive(value):
        raise SensitiveIdentifier(
            f"implementation decision identifier metadata contains sensitive-looking text: {field}",
            field=field,
        )


def _ref_check_source(field: str, value: str) -> None:
    if go_lower(value) not in SOURCES:
        raise InvalidDecision(
            f"unsupported implementation decision provenance {value!r} in {field}", field=field
        )


def reference_validate(record: DecisionRecord, *, legacy_lenient: bool) -> None:
    """Every rule in order, one helper call per check, as validation was written before."""
    if record.schema_version != SCHEMA_VERSION:
        raise InvalidDecision(
            f"unsupported implementation decision schema_version {record.schema_version}",
            field="schema_version",
        )
    check_decision_id(record.id)
    if record.revision <= 0:
        raise InvalidDecision("implementation decision revision must be positive", field="revision")
    if not go_trim(record.problem):
        raise InvalidDecision("implementation decision requires a problem", field="problem")
    kind, risk = record.decision_kind, record.risk_level
    if legacy_lenient:
        if not go_trim(kind) or limits.KIND_MAX < utf8_len(kind) <= limits.IDENTIFIER_MAX:
            kind = LEGACY_KIND
        if go_lower(risk) not in RISK_LEVELS and utf8_len(risk) <= limits.IDENTIFIER_MAX:
            risk = ""
    if not go_trim(kind):
        raise InvalidDecision(
            "implementation decision requires a decision_kind", field="decision_kind"
        )
    _ref_check_bytes("decision_kind", kind, limits.KIND_MAX, "kind")
    _ref_check_identifier("decision_kind", kind)
    if risk not in RISK_LEVELS:
        raise InvalidDecision(
            f"implementation decision risk_level {risk!r} is invalid: use low, medium, high, "
            "critical or leave it empty",
            field="risk_level",
        )
    for field, limit in (
        ("problem", limits.PROBLEM_MAX),
        ("selection_reason_raw", limits.REASON_MAX),
        ("custom_selection", limits.CUSTOM_SELECTION_MAX),
        ("summary_sentence", limits.SUMMARY_MAX),
        ("workspace", limits.WORKSPACE_MAX),
        ("project_alias", limits.IDENTIFIER_MAX),
    ):
        _ref_check_bytes(field, getattr(record, field), limit)
    for field, count, item_limit in (
        ("domains", limits.DOMAINS_MAX, limits.LIST_ITEM_MAX),
        ("languages", limits.LANGUAGES_MAX, limits.LIST_ITEM_MAX),
        ("tags", limits.TAGS_MAX, limits.LIST_ITEM_MAX),
        ("evidence_refs", limits.EVIDENCE_REFS_MAX, limits.EVIDENCE_REF_MAX),
    ):
        _ref_check_list(field, getattr(record, field), count, item_limit)
    patterns = record.redaction.patterns
    _ref_check_list(
        "redaction.patterns", patterns, limits.REDACTION_PATTERNS_MAX, limits.REDACTION_PATTERN_MAX
    )
    for pattern in patterns:
        if looks_sensitive(pattern):
            raise SensitiveIdentifier(
                "implementation decision redaction pattern contains sensitive-looking text",
                field="redaction.patterns",
            )
    for field in (
        "session_id",
        "feature_id",
        "goal_id",
        "edit_loop_id",
        "project_id",
        "workspace_hash",
        "task_fingerprint",
        "evidence_fingerprint",
    ):
        _ref_check_identifier(field, getattr(record, field))
    if not (0.0 <= record.detector_confidence <= 1.0) or math.isnan(record.detector_confidence):
        raise InvalidDecision(
            "implementation decision detector confidence must be between 0 and 1",
            field="detector_confidence",
        )
    # options
    count = len(record.options)
    if not limits.OPTIONS_MIN <= count <= limits.OPTIONS_MAX:
        raise InvalidDecision(
            f"implementation decision requires 2 to 4 options, got {count}", field="options"
        )
    seen: set[str] = set()
    flagged: list[str] = []
    for index, option in enumerate(record.options):
        where = f"options[{index}]"
        if not option.id or not go_trim(option.label):
            raise InvalidDecision(
                f"implementation decision option requires an id and label: {where}", field=where
            )
        _ref_check_bytes(f"{where}.id", option.id, limits.OPTION_ID_MAX, "option")
        _ref_check_bytes(f"{where}.label", option.label, limits.OPTION_LABEL_MAX, "option")
        _ref_check_bytes(f"{where}.description", option.description, limits.OPTION_DESCRIPTION_MAX)
        for detail in ("pros", "cons"):
            _ref_check_list(
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
        _ref_check_source(f"{where}.source", option.source)
        if option.id in seen:
            raise InvalidDecision(
                f"duplicate implementation decision option id {option.id!r}", field=f"{where}.id"
            )
        seen.add(option.id)
        if option.recommended:
            flagged.append(option.id)
    if len(flagged) > 1:
        raise InvalidDecision(
            "implementation decision must not have multiple recommended options", field="options"
        )
    rec = record.recommended_option_id
    if rec and rec not in seen:
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
    # selection
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
    if selected and selected not in {o.id for o in record.options}:
        raise InvalidDecision(
            f"selected option {selected!r} is not present", field="selected_option_id"
        )
    if not go_trim(record.selection_reason_raw):
        raise InvalidDecision(
            "implementation decision requires a selection rationale", field="selection_reason_raw"
        )
    for name in ("options", "selection", "rationale", "summary"):
        _ref_check_source(f"provenance.{name}", getattr(record.provenance, name))
    # rejections
    option_ids = {o.id for o in record.options}
    rejected: set[str] = set()
    for index, rejection in enumerate(record.rejected_reasons):
        where = f"rejected_reasons[{index}]"
        oid = rejection.option_id
        if oid not in option_ids:
            raise InvalidDecision(f"rejected option {oid!r} is not present", field=where)
        if oid == record.selected_option_id:
            raise InvalidDecision(f"selected option {oid!r} cannot be rejected", field=where)
        if oid in rejected:
            raise InvalidDecision(f"duplicate rejection for option {oid!r}", field=where)
        rejected.add(oid)
        _ref_check_bytes(f"{where}.reason", rejection.reason, limits.REASON_MAX)
        if not go_trim(rejection.reason):
            raise InvalidDecision(
                f"implementation decision requires a rejection rationale for option {oid!r}",
                field=f"{where}.reason",
            )
        _ref_check_source(f"{where}.source", rejection.source)
    for option in record.options:
        if option.id != record.selected_option_id and option.id not in rejected:
            raise InvalidDecision(
                f"implementation decision requires a rejection entry for option {option.id!r}",
                field="rejected_reasons",
            )
    # lifecycle
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


def _reject_constant(name: str) -> Any:
    raise ValueError(f"JSON constant {name} is not allowed")


def reference_loads(data: bytes | str, *, what: str) -> Any:
    """json.loads with its options, building a decoder per call; a lone surrogate it leaves
    becomes U+FFFD, as Go's decoder reads it (replaced in the value's own JSON text)."""
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
        value = json.loads(text, parse_constant=_reject_constant)
        written = json.dumps(value, ensure_ascii=False)
        return json.loads(re.sub("[\ud800-\udfff]", "\ufffd", written))
    except UnicodeDecodeError as exc:
        raise JournalDamaged(f"parse {what}: invalid UTF-8 ({exc.reason})") from exc
    except json.JSONDecodeError as exc:
        if exc.msg == "Extra data":
            raise JournalDamaged(f"parse {what}: trailing data") from exc
        raise JournalDamaged(f"parse {what}: {exc.msg} at line {exc.lineno}") from exc
    except ValueError as exc:
        raise JournalDamaged(f"parse {what}: {exc}") from exc


def reference_decode(data: bytes, expected_id: str | None) -> DecisionRecord:
    """The read contract step by step, with the reference normalization and validation."""
    record = parse_record(data, what="x")
    if expected_id is not None and go_trim(record.id).lower() != expected_id.lower():
        raise JournalDamaged(
            f"implementation decision file id {record.id!r} does not match expected id "
            f"{expected_id!r}"
        )
    if (
        record.schema_version != 1
        or record.revision <= 0
        or record.created_at is None
        or record.updated_at is None
        or not go_trim(record.status)
    ):
        raise JournalDamaged(
            "stored implementation decision is missing required lifecycle metadata"
        )
    result = reference_normalize(record, NOW)
    try:
        reference_validate(result, legacy_lenient=True)
    except InvalidDecision as exc:
        raise JournalDamaged(f"stored implementation decision x is invalid: {exc}") from exc
    return result


_RFC3339 = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$"
)


def reference_parse_time(text: str) -> GoTime:
    match = _RFC3339.match(text)
    if match is None:
        raise ValueError(f"timestamp {text!r} is not RFC 3339")
    year, month, day, hour, minute, second = (int(match.group(i)) for i in range(1, 7))
    fraction = (match.group(7) or "").ljust(9, "0")
    zone = match.group(8)
    offset = 0
    if zone != "Z":
        sign = -1 if zone[0] == "-" else 1
        offset = sign * (int(zone[1:3]) * 3600 + int(zone[4:6]) * 60)
    if not (1 <= month <= 12 and 1 <= day <= 31 and hour < 24 and minute < 60 and second < 60):
        raise ValueError(f"timestamp {text!r} is out of range")
    seconds = calendar.timegm((year, month, day, hour, minute, second, 0, 0, 0)) - offset
    return GoTime(seconds * 1_000_000_000 + int(fraction), offset)


def reference_format_time(value: GoTime) -> str:
    seconds, ns = divmod(value.unix_ns + value.offset_seconds * 1_000_000_000, 1_000_000_000)
    parts = time.gmtime(seconds)
    text = (
        f"{parts.tm_year:04d}-{parts.tm_mon:02d}-{parts.tm_mday:02d}"
        f"T{parts.tm_hour:02d}:{parts.tm_min:02d}:{parts.tm_sec:02d}"
    )
    if ns:
        text += "." + f"{ns:09d}".rstrip("0")
    if value.offset_seconds == 0:
        return text + "Z"
    sign = "-" if value.offset_seconds < 0 else "+"
    hours, minutes = divmod(abs(value.offset_seconds) // 60, 60)
    return f"{text}{sign}{hours:02d}:{minutes:02d}"


def _put(out: dict[str, Any], name: str, value: Any) -> None:
    if value:
        out[name] = list(value) if isinstance(value, list) else value


def reference_go_dict(record: DecisionRecord) -> dict[str, Any]:
    """One omit-empty test per field, in the reference's field order."""

    def option(o: Option) -> dict[str, Any]:
        out: dict[str, Any] = {"id": o.id, "label": o.label}
        for name in ("description", "pros", "cons", "recommended", "order", "source"):
            _put(out, name, getattr(o, name))
        return out

    def rejection(r: RejectedReason) -> dict[str, Any]:
        out: dict[str, Any] = {"option_id": r.option_id}
        _put(out, "reason", r.reason)
        _put(out, "source", r.source)
        return out

    def stamp(value: GoTime | None) -> str:
        return "0001-01-01T00:00:00Z" if value is None else reference_format_time(value)

    out: dict[str, Any] = {
        "schema_version": record.schema_version,
        "id": record.id,
        "revision": record.revision,
        "created_at": stamp(record.created_at),
        "updated_at": stamp(record.updated_at),
    }
    for name in (*_SCALARS[1:9], "domains", "languages", "decision_kind", "risk_level"):
        _put(out, name, getattr(record, name))
    out["problem"] = record.problem
    _put(out, "task_fingerprint", record.task_fingerprint)
    _put(out, "evidence_fingerprint", record.evidence_fingerprint)
    out["options"] = [option(o) for o in record.options]
    for name in _SCALARS[12:16]:
        _put(out, name, getattr(record, name))
    if record.rejected_reasons:
        out["rejected_reasons"] = [rejection(r) for r in record.rejected_reasons]
    for name in ("summary_sentence", "evidence_refs", "tags", "detector_confidence"):
        _put(out, name, getattr(record, name))
    out["status"] = record.status
    provenance: dict[str, Any] = {}
    for name in ("options", "selection", "rationale", "summary"):
        _put(provenance, name, getattr(record.provenance, name))
    out["provenance"] = provenance
    redaction: dict[str, Any] = {}
    _put(redaction, "redacted", record.redaction.redacted)
    _put(redaction, "patterns", record.redaction.patterns)
    out["redaction"] = redaction
    if record.deleted_at is not None:
        out["deleted_at"] = reference_format_time(record.deleted_at)
    return out


# strategies ------------------------------------------------------------------------------------

_WORDS = st.sampled_from(
    [
        "",
        " ",
        "\u3000",
        "storage",
        "Storage",
        "STORAGE",
        " storage",
        "storage\t",
        "two  words",
        "two\nwords",
        "İstanbul",
        "ǅ",
        "user",
        "User",
        " model ",
        "runtime",
        "imported",
        "llm",
        "low",
        "Medium",
        " high",
        "critical ",
        "extreme",
        "completed",
        "Completed",
        " deleted",
        "corrected",
        "sk-" + "a" * 24,
        "task-1234abcd",
        "password=hunter22",
        "opt-a",
        "opt-b",
        "opt-c",
        "opt-a\n",
        "__custom__",
        "bad id",
        "x" * 40,
        "é" * 300,
        "한" * 1100,
        "w" * 5000,
        "<>&\u2028",
    ]
)
_TEXT = _WORDS | st.text(max_size=12)
_ID = st.sampled_from(["opt-a", "opt-b", "opt-c", "opt-d", " opt-a", "OPT-A", "", "opt.a.."])


def _base_raw() -> dict[str, Any]:
    """A valid stored record, as the JSON file holds it."""
    return {
        "schema_version": 1,
        "id": "decision-abc123",
        "revision": 2,
        "created_at": "2025-10-09T10:28:23.000039921Z",
        "updated_at": "2025-10-10T11:00:00+02:00",
        "session_id": "session-1",
        "project_id": "project-1",
        "project_alias": "alias",
        "workspace": "/home/dev/project",
        "domains": ["http", "storage"],
        "languages": ["python"],
        "decision_kind": "concurrency",
        "risk_level": "low",
        "problem": "Decide how to handle the queue",
        "task_fingerprint": "task-d1a3f900",
        "options": [
            {
                "id": "opt-a",
                "label": "Approach A",
                "description": "one way",
                "pros": ["fast"],
                "cons": ["risky"],
                "recommended": True,
                "order": 1,
                "source": "model",
            },
            {"id": "opt-b", "label": "Approach B", "order": 2, "source": "model"},
        ],
        "recommended_option_id": "opt-a",
        "selected_option_id": "opt-b",
        "selection_reason_raw": "simpler",
        "rejected_reasons": [{"option_id": "opt-a", "reason": "not this one", "source": "user"}],
        "summary_sentence": "A summary.",
        "evidence_refs": ["src/index.py:45"],
        "tags": ["snapshot"],
        "detector_confidence": 0.84,
        "status": "completed",
        "provenance": {"options": "model", "selection": "user", "rationale": "user"},
        "redaction": {},
    }


_STAMP = st.sampled_from(
    [
        "2025-10-09T10:28:23Z",
        "2025-10-09T10:28:23.5-07:30",
        "2024-02-31T00:00:00Z",
        "0000-01-01T00:00:00Z",
        "2025-13-01T00:00:00Z",
        "yesterday",
        None,
    ]
)
_SOURCE = st.sampled_from(["", "model", "user", " user", "USER", "runtime\t", "llm"]) | _TEXT
_ODD_VALUE = st.one_of(st.none(), st.integers(-2, 3), st.booleans(), st.lists(_TEXT))
_TOP_FIELDS = [name for name in _base_raw() if name not in ("options", "rejected_reasons")]


@st.composite
def _option(draw: st.DrawFn, option_id: str) -> dict[str, Any]:
    option: dict[str, Any] = {"id": option_id, "label": draw(_TEXT | st.just("Label"))}
    if draw(st.booleans()):
        option["description"] = draw(_TEXT)
    for name in ("pros", "cons"):
        if draw(st.booleans()):
            option[name] = draw(st.lists(_TEXT, max_size=3) | st.just(["p"] * 17))
    option["recommended"] = draw(st.booleans())
    option["order"] = draw(st.integers(-1, 4))
    option["source"] = draw(_SOURCE)
    return option


@st.composite
def raw_records(draw: st.DrawFn) -> dict[str, Any]:
    """The valid base with a few fields replaced by odd, non-normal or invalid values."""
    raw = _base_raw()
    for name in draw(st.lists(st.sampled_from(_TOP_FIELDS), max_size=4, unique=True)):
        if name in ("created_at", "updated_at"):
            raw[name] = draw(_STAMP)
        elif name in ("domains", "languages", "tags", "evidence_refs"):
            raw[name] = draw(st.lists(_TEXT, max_size=4) | st.none())
        elif name == "provenance":
            raw[name] = {k: draw(_SOURCE) for k in ("options", "selection", "rationale", "summary")}
        elif name == "redaction":
            raw[name] = {"redacted": draw(st.booleans()), "patterns": draw(st.lists(_TEXT))}
        elif name == "detector_confidence":
            raw[name] = draw(st.floats(allow_nan=False, allow_infinity=False) | st.integers())
        elif name in ("schema_version", "revision"):
            raw[name] = draw(st.integers(-1, 2) | _ODD_VALUE)
        else:
            raw[name] = draw(_TEXT | _ODD_VALUE) if draw(st.booleans()) else draw(_TEXT)
    if draw(st.booleans()):
        ids = draw(st.lists(_ID, min_size=2, max_size=4) | st.lists(_ID, max_size=5))
        raw["options"] = [draw(_option(option_id)) for option_id in ids]
        raw["recommended_option_id"] = draw(st.sampled_from(["", *ids]))
        raw["selected_option_id"] = draw(st.sampled_from(["", *ids]))
    if draw(st.booleans()):
        raw["rejected_reasons"] = draw(
            st.lists(
                st.fixed_dictionaries(
                    {"option_id": _ID, "reason": _TEXT | st.just("because"), "source": _SOURCE}
                ),
                max_size=4,
            )
        )
    if draw(st.booleans()):
        raw.pop(draw(st.sampled_from(sorted(raw))))
    return raw


def _outcome(call: Any) -> tuple[Any, ...]:
    try:
        result = call()
    except (InvalidDecision, JournalDamaged) as exc:
        return (type(exc), str(exc), getattr(exc, "field", None), getattr(exc, "limit", None))
    if isinstance(result, DecisionRecord):
        return ("record", result.model_dump(), json.dumps(reference_go_dict(result)))
    return ("ok", result)


def _records(raw: dict[str, Any]) -> DecisionRecord | None:
    try:
        return DecisionRecord.model_validate(raw)
    except ValueError:
        return None


_SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# properties ------------------------------------------------------------------------------------


@_SETTINGS
@given(raw=raw_records(), expected=st.sampled_from([None, "decision-abc123", "decision-other"]))
def test_decode_matches_the_reference_read(raw: dict[str, Any], expected: str | None) -> None:
    data = json.dumps(raw, ensure_ascii=False).encode()
    ours = _outcome(lambda: decode_stored_record(data, what="x", expected_id=expected))
    assert ours == _outcome(lambda: reference_decode(data, expected))


@_SETTINGS
@given(raw=raw_records())
def test_normalized_matches_the_reference(raw: dict[str, Any]) -> None:
    record = _records(raw)
    if record is None:
        return
    before = record.model_dump()
    expected = reference_normalize(record, NOW)
    result = normalized(record, now=NOW)
    assert result.model_dump() == expected.model_dump()
    assert (result is record) == (expected.model_dump() == before)
    assert record.model_dump() == before
    assert normalize_record(record, now=NOW).model_dump() == expected.model_dump()


@_SETTINGS
@given(raw=raw_records(), lenient=st.booleans(), normalize_first=st.booleans())
def test_validation_matches_the_reference(
    raw: dict[str, Any], lenient: bool, normalize_first: bool
) -> None:
    record = _records(raw)
    if record is None:
        return
    if normalize_first:
        record = normalized(record, now=NOW)
    ours = _outcome(lambda: validate_record(record, legacy_lenient=lenient))
    assert ours == _outcome(lambda: reference_validate(record, legacy_lenient=lenient))


@_SETTINGS
@given(raw=raw_records())
def test_serialization_matches_the_reference(raw: dict[str, Any]) -> None:
    record = _records(raw)
    if record is None:
        return
    expected = reference_go_dict(record)
    assert json.dumps(record.to_go_dict()) == json.dumps(expected)
    assert compact_record(record) == dumps_compact(expected).encode()
    assert compact_bytes(record) == compact_record(record)


def _two_digits(low: int, high: int) -> st.SearchStrategy[str]:
    return st.integers(low, high).map("{:02d}".format) | st.text(alphabet="0123456789", max_size=3)


@settings(max_examples=500, deadline=None)
@given(
    text=st.one_of(
        st.builds(
            "{}-{}-{}T{}:{}:{}{}{}".format,
            st.sampled_from(["0000", "0001", "1969", "2024", "9999", "٢٠٢٤", "12345"]),
            _two_digits(0, 13),
            _two_digits(0, 32),
            _two_digits(0, 24),
            _two_digits(0, 60),
            _two_digits(0, 60),
            st.sampled_from(["", ".", ".5", ".000000001", ".1234567890", ".120"]),
            st.sampled_from(["Z", "+05:30", "-12:59", "+99:99", "z", "", "Z\n"]),
        ),
        st.text(max_size=30),
    )
)
@example("2024-01-31T23:59:59.999999999+05:30")
@example("2023-02-29T00:00:00Z")
@example("2024-12-31T00:00:00-00:01")
@example("0000-12-31T00:00:00Z")
@example("2024-01-01T24:00:00Z")
def test_timestamp_parsing_matches_the_reference(text: str) -> None:
    def outcome(parse: Any) -> tuple[Any, ...]:
        try:
            value = parse(text)
        except ValueError as exc:
            return (type(exc), str(exc))
        return (value.unix_ns, value.offset_seconds)

    assert outcome(GoTime.parse) == outcome(reference_parse_time)


@settings(max_examples=500, deadline=None)
@given(
    unix_ns=st.integers(-62_135_510_400 * 10**9, 253_402_214_399 * 10**9),  # a day inside 1-9999
    offset=st.integers(-18 * 3600, 18 * 3600),
)
def test_timestamp_formatting_matches_the_reference(unix_ns: int, offset: int) -> None:
    value = GoTime(unix_ns, offset)
    assert value.format() == reference_format_time(value)


_JSON_PIECES = st.sampled_from(
    [
        *("\ufeff", "{", "}", "[", "]", '"a"', ":", ",", "NaN", "-Infinity", "1e999", " ", "\n"),
        *("x", '"\\ud800"', '"\\udc00x"', '"\\ud83d\\ude00"', '"\\uDBFF\\u0041"'),
    ]
)


@settings(max_examples=500, deadline=None)
@given(
    text=st.lists(_JSON_PIECES | st.text(max_size=4), max_size=8).map("".join),
    as_bytes=st.booleans(),
    prefix=st.sampled_from([b"", b"\xef\xbb\xbf", b"\xff"]),
)
def test_strict_json_matches_the_reference(text: str, as_bytes: bool, prefix: bytes) -> None:
    data: bytes | str = prefix + text.encode() if as_bytes else text

    def outcome(loads: Any) -> tuple[Any, ...]:
        try:
            return ("ok", repr(loads(data, what="x")))
        except JournalDamaged as exc:
            return (type(exc), str(exc))

    assert outcome(loads_strict) == outcome(reference_loads)


_SWEEP_VALUES = (
    "",
    " padded ",
    "UPPER",
    "sk-" + "a" * 24,
    "password=hunter22",
    "é" * 300,
    "w" * 5000,
    None,
    7,
    [" a", "A", ""],
)


def test_every_field_with_odd_values_reads_as_the_reference() -> None:
    """A deterministic sweep: each stored field, and each option's, set to each odd value."""
    cases = []
    for name in _base_raw():
        for value in _SWEEP_VALUES:
            raw = _base_raw()
            raw[name] = value
            cases.append(raw)
    for key in ("option", "rejection"):
        fields = _base_raw()["options"][0] if key == "option" else {"reason": "", "source": ""}
        for name in fields:
            for value in _SWEEP_VALUES:
                raw = _base_raw()
                target = raw["options"][1] if key == "option" else raw["rejected_reasons"][0]
                target[name] = value
                cases.append(raw)
    for raw in cases:
        data = json.dumps(raw).encode()
        ours = _outcome(partial(decode_stored_record, data, what="x", expected_id=None))
        assert ours == _outcome(partial(reference_decode, data, None)), raw


# the model's read rules the validator hook keeps ---------------------------------------------


def test_json_null_reads_as_the_zero_value_at_every_level() -> None:
    raw = _base_raw()
    raw.update({"session_id": None, "domains": None, "provenance": None})
    raw["options"][0].update({"pros": None, "order": None})
    raw["rejected_reasons"][0]["source"] = None
    raw["redaction"] = {"patterns": None}
    record = DecisionRecord.model_validate(raw)
    assert record.session_id == "" and record.domains == []
    assert record.provenance == Provenance()
    assert record.options[0].pros == [] and record.options[0].order == 0
    assert record.rejected_reasons[0].source == ""
    assert record.redaction == Redaction()


def test_omitted_lists_are_fresh_per_record() -> None:
    first, second = DecisionRecord(), DecisionRecord()
    first.tags.append("x")
    first.redaction.patterns.append("y")
    assert second.tags == [] and second.redaction.patterns == []
    assert Option().pros is not Option().pros


def test_a_summary_that_cannot_be_written_leaves_the_record_itself() -> None:
    """Without options or a selection there is no summary to write: nothing changes."""
    record = DecisionRecord.model_validate({**_base_raw(), "options": [], "summary_sentence": ""})
    record = record.model_copy(
        update={"selected_option_id": "", "recommended_option_id": "", "rejected_reasons": []}
    )
    assert korean_summary(record) == ""
    assert normalized(record, now=NOW) is record
