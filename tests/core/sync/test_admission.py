"""Sync's admission of a record another machine sent: the bulk reads it tries first give the
verdict, and the words, of the plain checks (`admission.record_problem`) on every record.

The records are the bulk reads' generated ones (odd, non-normal and invalid values), with
texts that open the redaction rules' gates and often fire them, as current records and as
history revisions whose name says another revision.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from core.sync import admission
from tests.core.bulk.support.raw_records import base_raw, raw_records
from tests.core.bulk.support.secret_texts import secret_texts

_RECORD_ID = "decision-abc123"
_TEXT_FIELDS = ("problem", "selection_reason_raw", "summary_sentence", "workspace")
_SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _problems(raw: dict[str, Any], named: int | None) -> tuple[str | None, str | None]:
    data = json.dumps(raw, indent=2).encode()
    if named is None:
        path = f"records/{_RECORD_ID}.json"
    else:
        path = f"history/{_RECORD_ID}/revision-{named:06d}.json"
    return admission.file_problem(path, data), admission.record_problem(
        path, data, _RECORD_ID, named
    )


@_SETTINGS
@given(
    raw=st.just(base_raw()) | st.just(base_raw()) | raw_records(),
    field=st.sampled_from(_TEXT_FIELDS),
    text=secret_texts,
    reason=secret_texts,
    named=st.none() | st.integers(1, 3),
)
@example(
    raw=base_raw(), field="problem", text="the password is hunter2hunter2", reason="x", named=None
)
@example(raw=base_raw(), field="problem", text="Decide the queue", reason="x", named=2)
def test_the_bulk_path_admits_and_refuses_as_the_plain_checks_do(
    raw: dict[str, Any], field: str, text: str, reason: str, named: int | None
) -> None:
    raw = {**raw, field: text.strip() or "x"}  # trimmed and present, as the store keeps them
    if isinstance(raw.get("rejected_reasons"), list) and raw["rejected_reasons"]:
        first = raw["rejected_reasons"][0]
        if isinstance(first, dict):
            rest = raw["rejected_reasons"][1:]
            raw["rejected_reasons"] = [{**first, "reason": reason.strip() or "x"}, *rest]
    fast, plain = _problems(raw, named)
    assert fast == plain


def test_a_clean_record_is_admitted_and_a_secret_refused() -> None:
    assert _problems(base_raw(), None) == (None, None)
    assert _problems(base_raw(), 3)[0] == "it holds revision 2, not the 3 its name says"
    leaked = {**base_raw(), "problem": "Decide the queue; the password is hunter2hunter2"}
    assert "redaction rules remove" in (_problems(leaked, None)[0] or "")
