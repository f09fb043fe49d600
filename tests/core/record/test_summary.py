"""The summary sentences: the stored Korean template and the English rendering."""

from __future__ import annotations

from core.record.models import RejectedReason
from core.record.summary import (
    ALTERNATIVE_LABEL,
    english_summary,
    is_stand_in_label,
    korean_summary,
)
from tests.factories import make_record


def test_english_summary_states_choice_reason_and_rejections() -> None:
    record = make_record()
    assert english_summary(record) == (
        "To solve “Choose the canonical cross-project decision storage layout”, the user chose "
        "Per-record JSON because independent files avoid lost updates between processes. "
        f"Rejected: Single JSON document, because {record.rejected_reasons[0].reason}."
    )


def test_a_reason_that_ends_its_own_sentence_gets_one_full_stop() -> None:
    record = make_record(
        selection_reason_raw="it runs at no extra cost.",
        rejected_reasons=[RejectedReason(option_id="single-json", reason="too slow..")],
    )
    text = english_summary(record)
    assert "because it runs at no extra cost. Rejected:" in text
    assert text.endswith("Single JSON document, because too slow.")
    assert ".." not in text


def test_an_ellipsis_is_kept_and_the_stored_sentence_is_unchanged() -> None:
    record = make_record(selection_reason_raw="it depends…")
    assert "because it depends… Rejected" in english_summary(record)
    assert "it depends… 때문에 했다." in korean_summary(record)


def test_a_chosen_label_that_is_a_sentence_does_not_stop_the_summary_midway() -> None:
    """Imported ADRs name their decision as a sentence ("We will rewrite the tool in Python 3.")."""
    record = make_record()
    record.options[0].label = "We will rewrite the tool in Python 3."
    text = english_summary(record)
    assert "the user chose We will rewrite the tool in Python 3 because independent" in text
    assert "3. because" not in text


def test_the_imports_stand_in_alternative_is_no_rejection_in_english() -> None:
    record = make_record()
    record.options[1].label = ALTERNATIVE_LABEL
    record.rejected_reasons = [RejectedReason(option_id=record.options[1].id, reason="n/a")]
    assert "Rejected" not in english_summary(record)
    assert ALTERNATIVE_LABEL in korean_summary(record), "the stored sentence is unchanged"


def test_the_summary_and_the_markdown_exports_tell_the_stand_in_by_one_rule() -> None:
    """A stand-in label with stray spaces is still the stand-in, for both of them alike."""
    from core.exporters.stand_in import options_without_stand_in, rejections_without_stand_in

    for label in (ALTERNATIVE_LABEL, f"  {ALTERNATIVE_LABEL} ", "Single JSON document"):
        record = make_record()
        record.options[1].label = label
        record.rejected_reasons = [RejectedReason(option_id=record.options[1].id, reason="n/a")]
        left_out = is_stand_in_label(label)
        assert ("Rejected" not in english_summary(record)) is left_out
        assert (len(options_without_stand_in(record)) == 1) is left_out
        assert (rejections_without_stand_in(record) == []) is left_out
