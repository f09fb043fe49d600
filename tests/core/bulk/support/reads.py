"""The fast read's verdict next to the strict read's, for one input.

The property: whenever the fast read accepts bytes, the strict read accepts them too and gives
the same record (every field a reader may use), the same compact bytes, and so the same profile
facts and index entry.
"""

from __future__ import annotations

from typing import Any

from core.bulk.fast_read import RecordView, fast_read
from core.errors import JournalDamaged
from core.index.entry import IndexEntry
from core.profile.derive import facts_from, facts_of
from core.record.codec import compact_record, decode_stored_record
from core.record.models import DecisionRecord
from core.record.shape import OptionShape, RecordShape, RejectionShape

_NESTED = ("options", "rejected_reasons", "provenance", "redaction")
_SCALARS = (*(name for name in DecisionRecord.model_fields if name not in _NESTED), "is_deleted")


def _option(option: OptionShape) -> tuple[Any, ...]:
    return (
        option.id,
        option.label,
        option.description,
        option.pros,
        option.cons,
        option.recommended,
        option.order,
        option.source,
    )


def _rejection(rejection: RejectionShape) -> tuple[str, str, str]:
    return (rejection.option_id, rejection.reason, rejection.source)


def shape_values(record: RecordShape) -> dict[str, Any]:
    """Every value `RecordShape` offers, nested ones as tuples, floats with their sign."""
    values: dict[str, Any] = {name: getattr(record, name) for name in _SCALARS}
    values["detector_confidence"] = repr(record.detector_confidence)
    values["options"] = [_option(o) for o in record.options]
    values["rejected_reasons"] = [_rejection(r) for r in record.rejected_reasons]
    p, r = record.provenance, record.redaction
    values["provenance"] = (p.options, p.selection, p.rationale, p.summary)
    values["redaction"] = (r.redacted, r.patterns)
    values["selected_label"] = record.selected_label()
    return values


def _strict(data: bytes, expected_id: str) -> DecisionRecord | None:
    try:
        return decode_stored_record(data, what="x", expected_id=expected_id)
    except JournalDamaged:
        return None


def assert_fast_agrees(data: bytes, expected_id: str = "decision-abc123") -> bool:
    """Checks the property for one input; True when the fast read accepted it."""
    fast = fast_read(data, expected_id)
    strict = _strict(data, expected_id)
    if fast is None:
        return False
    assert strict is not None, data
    assert isinstance(fast.record, RecordView)
    assert shape_values(fast.record) == shape_values(strict)
    assert fast.compact == compact_record(strict)
    assert facts_from(fast.record, fast.compact) == facts_of(strict)
    assert IndexEntry.of_read("f.json", "sig", fast) == IndexEntry.of("f.json", "sig", strict)
    return True
