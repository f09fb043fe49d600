"""`core.bulk.decision_ids.all_valid_decision_ids` against the rule it replaces, one id at a time
(`core.record.validation.is_valid_decision_id`)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from core.bulk.decision_ids import all_valid_decision_ids
from core.limits import DECISION_ID_MAX
from core.record.validation import is_valid_decision_id

_PIECES = st.sampled_from(
    ["a", "Z", "0", "-", "_", ".", "..", "\n", " ", "é", "/", "\x00", "decision-1f3a", "x" * 159]
)
_IDS = st.lists(_PIECES, max_size=4).map("".join) | st.sampled_from(
    ["", ".", "..", "a" * DECISION_ID_MAX, "a" * (DECISION_ID_MAX + 1), "a\nb", "\n", "a."]
)


@settings(max_examples=500)
@given(ids=st.lists(_IDS, max_size=6))
def test_one_pass_is_each_id_checked_alone(ids: list[str]) -> None:
    expected = all(map(is_valid_decision_id, ids))
    assert all_valid_decision_ids(ids) == expected
    assert all_valid_decision_ids(set(ids)) == expected


def test_an_id_holding_the_separator_is_refused() -> None:
    assert not all_valid_decision_ids(["decision-a\ndecision-b"])
    assert all_valid_decision_ids(["decision-a", "decision-b"])
