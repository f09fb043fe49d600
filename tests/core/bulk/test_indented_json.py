"""`core.bulk.indented_json` against the export it replaces (`json_export.export_records`): the
same bytes for any record, whatever its floats, texts and escapes, with and without the fields
a privacy-reduced export leaves out."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from core.bulk.indented_json import indented_array
from core.exporters.json_export import PRIVATE_FIELDS, export_records
from core.record.codec import compact_record
from core.record.models import DecisionRecord
from tests.core.bulk.support.raw_records import base_raw, raw_records, records_of

_CONFIDENCES = st.sampled_from([0.0, 1.0, 0.92, 0.65, 1e-7, 0.5, 2.0**-20]) | st.floats(0, 1)
_TEXTS = st.text(st.characters(codec="utf-8") | st.sampled_from('<>&\u2028\u2029"\\\n\t\x00'))


def _joined(records: list[DecisionRecord], include_private: bool) -> bytes:
    leave_out = () if include_private else PRIVATE_FIELDS
    return b"".join(indented_array([compact_record(r) for r in records], leave_out))


@settings(max_examples=120, deadline=None)
@given(
    raws=st.lists(raw_records(), max_size=4),
    confidence=_CONFIDENCES,
    problem=_TEXTS,
    include_private=st.booleans(),
)
def test_the_indented_array_is_the_export(
    raws: list[dict[str, Any]], confidence: float, problem: str, include_private: bool
) -> None:
    records = [r for r in map(records_of, raws) if r is not None]
    odd = records_of(base_raw() | {"detector_confidence": confidence, "problem": problem})
    records += [] if odd is None else [odd]
    plain = export_records(records, include_private=include_private)
    assert _joined(records, include_private) == plain


def test_no_records_is_an_empty_array() -> None:
    assert _joined([], True) == export_records([], include_private=True) == b"[]\n"
