"""Normalization's edge: a record it leaves unchanged is returned itself, not a copy."""

from __future__ import annotations

from core.gocompat.gotime import GoTime
from core.record.models import DecisionRecord
from core.record.normalize import normalized
from core.record.summary import korean_summary
from tests.core.bulk.support.raw_records import base_raw

NOW = GoTime(1_780_000_000_123_456_789)


def test_a_summary_that_cannot_be_written_leaves_the_record_itself() -> None:
    """Without options or a selection there is no summary to write: nothing changes."""
    record = DecisionRecord.model_validate({**base_raw(), "options": [], "summary_sentence": ""})
    record = record.model_copy(
        update={"selected_option_id": "", "recommended_option_id": "", "rejected_reasons": []}
    )
    assert korean_summary(record) == ""
    assert normalized(record, now=NOW) is record
