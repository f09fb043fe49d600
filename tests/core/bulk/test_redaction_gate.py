"""The redaction gate (`core.bulk.redaction_gate`) against the rule it stands in for.

The properties: `text_unchanged(t)` is exactly `redact_text(t) == (t, EMPTY_REPORT)`, and
`record_unchanged(r)` never says True of a record `redact_record` would change; for a record
not yet marked redacted the two agree both ways. The texts
(`tests.core.bulk.support.secret_texts`) open a rule's gate, and about half of them fire one.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from core.bulk.fast_read import fast_read
from core.bulk.redaction_gate import record_unchanged, text_unchanged
from core.record.codec import encode_record
from core.record.models import Redaction, RejectedReason
from core.record.normalize import normalize_record
from core.record.redact_record import redact_record
from core.record.redaction import EMPTY_REPORT, redact_text
from tests.core.bulk.support.secret_texts import secret_texts
from tests.factories import make_record

_TEXT = secret_texts
_SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@_SETTINGS
@given(_TEXT)
@example("")
@example("   ")
@example("the password is hunter2hunter2")
@example("a plain sentence about the cache layer, with a comma: and a colon")
def test_text_unchanged_is_what_redact_text_says(text: str) -> None:
    expected = redact_text(text) == (text, EMPTY_REPORT)
    assert text_unchanged(text) is expected
    assert text_unchanged(text) is expected  # the remembered answer is the same


_PARTS = st.fixed_dictionaries(
    {
        "problem": _TEXT,
        "reason": _TEXT,
        "description": _TEXT,
        "pros": st.lists(_TEXT, max_size=2),
        "refs": st.lists(_TEXT, max_size=2),
    }
)
_PATTERNS = st.lists(st.sampled_from(["aws", "AWS", "jwt", "password_in_prose"]), max_size=3)


@_SETTINGS
@given(parts=_PARTS, redacted=st.booleans(), patterns=_PATTERNS)
def test_record_unchanged_never_says_so_of_a_record_redaction_changes(
    parts: dict[str, Any], redacted: bool, patterns: list[str]
) -> None:
    base = make_record()
    option = base.options[0].model_copy(
        update={"description": parts["description"], "pros": parts["pros"]}
    )
    record = base.model_copy(
        update={
            "problem": parts["problem"],
            "evidence_refs": parts["refs"],
            "options": [option, base.options[1]],
            "rejected_reasons": [
                RejectedReason(option_id="single-json", reason=parts["reason"], source="user")
            ],
            "redaction": Redaction(redacted=redacted, patterns=patterns),
        }
    )
    unchanged = redact_record(record) == record
    verdict = record_unchanged(record)
    if verdict:
        assert unchanged
    if not redacted:
        assert verdict is unchanged


@_SETTINGS
@given(problem=_TEXT, reason=_TEXT)
def test_a_bulk_view_gets_the_models_verdict(problem: str, reason: str) -> None:
    record = normalize_record(
        make_record(
            problem=problem or "a problem",
            rejected_reasons=[
                RejectedReason(option_id="single-json", reason=reason or "a reason", source="user")
            ],
        )
    )
    read = fast_read(encode_record(record), record.id)
    if read is not None:
        assert record_unchanged(read.record) is record_unchanged(record)
