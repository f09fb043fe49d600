"""What the agent reads back is English; the record's Korean sentence rides along as summary_ko."""

from __future__ import annotations

import re
from pathlib import Path

from app.mcp.results import record_outcome, remote_outcome
from core.journal import Journal
from core.record.summary import korean_summary
from tests.factories import make_record

HANGUL = re.compile("[\uac00-\ud7a3]")


def test_a_recorded_answer_is_summarised_in_english() -> None:
    record = make_record()
    record.summary_sentence = korean_summary(record)
    out = record_outcome(record, profile_warning="the profile is stale.")
    assert out.summary == (
        "To solve “Choose the canonical cross-project decision storage layout”, the user chose "
        "Per-record JSON because independent files avoid lost updates between processes. "
        "Rejected: Single JSON document, because global rewrite bottleneck."
    )
    assert out.summary_ko == record.summary_sentence
    assert HANGUL.search(out.summary_ko)
    assert out.instruction == (
        "Implementation decision recorded: Per-record JSON (id=decision-test-1). Continue the "
        "implementation with this choice and do not ask this decision again. Summary: "
        f"{out.summary} Preference profile warning: the profile is stale."
    )


def test_an_app_reply_the_journal_cannot_give_back_still_instructs_in_english(
    tmp_path: Path,
) -> None:
    reply = {
        "status": "recorded",
        "decision_id": "decision-gone",
        "selected_option_id": "per-record-json",
        "selection_reason": "이유",
        "summary_sentence": "문제를 해결할 때 이 사용자는 결정을 했다.",
        "rejected_reasons": [],
    }
    out = remote_outcome(reply, Journal(tmp_path / "journal"))
    assert out.status == "recorded"
    assert out.summary == ""
    assert out.summary_ko == reply["summary_sentence"]
    assert out.instruction == (
        "Implementation decision recorded: per-record-json (id=decision-gone). Continue the "
        "implementation with this choice and do not ask this decision again."
    )
    assert not HANGUL.search(out.instruction)
