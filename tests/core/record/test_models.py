"""The record model: Go's omit-empty serialization (empty fields left out, the rest in field
order) and the read rules the validator hook keeps (JSON null, fresh defaults)."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings

from core.gocompat.gotime import GoTime
from core.record.codec import compact_record
from core.record.models import (
    DecisionRecord,
    Option,
    Provenance,
    Redaction,
)
from tests.core.bulk.support.raw_records import base_raw, raw_records, records_of

_ALWAYS = ("schema_version", "id", "revision", "created_at", "updated_at", "problem", "options")
_ALWAYS += ("status", "provenance", "redaction")
"""The fields Go writes even when empty (no omitempty tag in the reference)."""


def _written(value: Any) -> Any:
    """A model value as the JSON file holds it (Go writes a missing time as its zero time)."""
    if value is None:
        return "0001-01-01T00:00:00Z"
    return value.format() if isinstance(value, GoTime) else value


def _read_back(written: Any, value: Any) -> Any:
    """The file's value as the model holds it: Go writes a large float without a fraction or
    exponent (61531593536951810), which JSON reads back as an int."""
    return float(written) if isinstance(value, float) and isinstance(written, int) else written


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(raw=raw_records())
def test_go_omits_exactly_the_empty_fields_in_field_order(raw: dict[str, Any]) -> None:
    record = records_of(raw)
    if record is None:
        return
    written = json.loads(compact_record(record))
    names = list(DecisionRecord.model_fields)
    assert list(written) == [n for n in names if n in written]
    for name in names:
        value = getattr(record, name)
        if name in written:
            assert name in _ALWAYS or value, name
            if name not in ("options", "rejected_reasons", "provenance", "redaction"):
                assert _read_back(written[name], value) == _written(value), name
        elif name == "deleted_at":
            assert value is None
        else:
            assert name not in _ALWAYS and not value, name


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
