"""`core.bulk.compact_json.compact_bytes` against `core.record.codec.compact_record`, which it
stands in for, on generated records: odd text, escapes, every float the model accepts."""

from __future__ import annotations

import hashlib
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.bulk.compact_json import compact_bytes, record_digest
from core.record.codec import compact_record
from core.record.models import DecisionRecord
from tests.core.bulk.support.raw_records import base_raw, raw_records, records_of


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(raw=raw_records())
def test_compact_bytes_are_the_go_encoders(raw: dict[str, Any]) -> None:
    record = records_of(raw)
    if record is None:
        return
    assert compact_bytes(record) == compact_record(record)


@settings(max_examples=300, deadline=None)
@given(
    confidence=st.floats(0, 1) | st.sampled_from([0.0, 1.0, 1e-05, 0.5]),
    text=st.text(max_size=8) | st.sampled_from(["<>&", "\u2028\u2029", "\ud800", "\x00\x1f\x7f"]),
)
def test_floats_and_escapes_are_written_as_go_writes_them(confidence: float, text: str) -> None:
    record = DecisionRecord.model_validate(
        {**base_raw(), "detector_confidence": confidence, "tags": [text]}
    )
    assert compact_bytes(record) == compact_record(record)


def test_the_digest_is_the_hash_of_the_compact_bytes() -> None:
    record = DecisionRecord.model_validate(base_raw())
    assert record_digest(record) == hashlib.sha256(compact_record(record)).hexdigest()
