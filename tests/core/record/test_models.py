"""The record model: Go's omit-empty serialization (against a one-test-per-field model of it)
and the read rules the validator hook keeps (JSON null, fresh defaults)."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings

from core.gocompat.gojson import dumps_compact
from core.gocompat.gotime import GoTime
from core.record.codec import compact_record
from core.record.models import (
    DecisionRecord,
    Option,
    Provenance,
    Redaction,
    RejectedReason,
)
from tests.core.bulk.support.raw_records import base_raw, raw_records, records_of

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
        return "0001-01-01T00:00:00Z" if value is None else value.format()

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
        out["deleted_at"] = record.deleted_at.format()
    return out


_SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@_SETTINGS
@given(raw=raw_records())
def test_serialization_matches_the_reference(raw: dict[str, Any]) -> None:
    record = records_of(raw)
    if record is None:
        return
    expected = reference_go_dict(record)
    assert json.dumps(record.to_go_dict()) == json.dumps(expected)
    assert compact_record(record) == dumps_compact(expected).encode()


def test_json_null_reads_as_the_zero_value_at_every_level() -> None:
    raw = base_raw()
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
