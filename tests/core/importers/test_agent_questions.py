"""The one builder of AskUserQuestion records: the window and a transcript agree on the id
and kind of a question, and differ only in what the journal can vouch for."""

from __future__ import annotations

import pytest

from core.importers.agent_questions import (
    ALSO_CHOSEN,
    NO_REASON,
    NOT_CHOSEN,
    WINDOW_TAG,
    AnsweredQuestion,
    answered_in_window,
    question_key,
    transcript_record,
    window_record,
)
from core.importers.base import RecordItem
from core.importers.shaping import SourceOption
from core.record.identity import project_identity
from core.record.models import DecisionRecord

OPTIONS = (SourceOption("SQLite", "Embedded"), SourceOption("Redis"), SourceOption("Postgres"))


def question(**changes: object) -> AnsweredQuestion:
    fields: dict[str, object] = {
        "session_id": "sess-1",
        "tool_use_id": "toolu_1",
        "index": 0,
        "question": "Which database should the cache use?",
        "header": "Cache DB",
        "options": OPTIONS,
        "identity": project_identity("/srv/app"),
        "chosen": 0,
    }
    fields.update(changes)
    return AnsweredQuestion(**fields)  # type: ignore[arg-type]


def record(built: object) -> DecisionRecord:
    assert isinstance(built, RecordItem)
    return built.record


@pytest.mark.parametrize(
    "changes",
    [{}, {"index": 2}, {"chosen": None, "custom": "SQLite, Redis", "also_chosen": (0, 1)}],
)
def test_window_and_transcript_agree_on_id_and_kind(changes: dict[str, object]) -> None:
    answered = question(**changes)
    window, imported = record(window_record(answered)), record(transcript_record(answered))
    assert (window.id, window.decision_kind) == (imported.id, imported.decision_kind)
    assert window.decision_kind == "cache_db"
    assert [o.id for o in window.options] == [o.id for o in imported.options]


def test_the_id_depends_on_the_call_and_position_not_on_the_answer() -> None:
    ids = {
        record(window_record(question(**c))).id
        for c in ({}, {"chosen": 1}, {"reason": "it is embedded"})
    }
    assert len(ids) == 1
    assert record(window_record(question(index=1))).id not in ids
    assert record(window_record(question(tool_use_id="toolu_2"))).id not in ids


def test_keys() -> None:
    assert question_key("s", "t", 0) == "claude-code:s:t"
    assert question_key("s", "t", 2) == "claude-code:s:t#2"


def test_the_window_vouches_for_the_human_the_transcript_does_not() -> None:
    answered = question(chosen=None, custom="SQLite, Redis", also_chosen=(0, 1))
    window, imported = record(window_record(answered)), record(transcript_record(answered))
    assert (window.provenance.selection, window.provenance.options) == ("user", "model")
    assert window.provenance.rationale == "runtime"
    assert window.selection_reason_raw == NO_REASON
    assert window.tags == [WINDOW_TAG, "Cache DB"]
    assert window.detector_confidence == 0.0
    assert {r.option_id: (r.reason, r.source) for r in window.rejected_reasons} == {
        "sqlite": (ALSO_CHOSEN, "runtime"),
        "redis": (ALSO_CHOSEN, "runtime"),
        "postgres": (NOT_CHOSEN, "runtime"),
    }
    assert answered_in_window(window)
    assert imported.provenance.selection == "imported"
    assert not answered_in_window(imported)


def test_a_typed_reason_is_the_humans() -> None:
    window = record(window_record(question(reason="  we run it already ")))
    assert (window.selection_reason_raw, window.provenance.rationale) == (
        "we run it already",
        "user",
    )


def test_without_a_header_the_kind_is_agent_question() -> None:
    assert record(window_record(question(header=""))).decision_kind == "agent_question"
    assert record(window_record(question(header=""))).tags == [WINDOW_TAG]


AWS_KEY_ID = "AKIA" + "GEX5GM4LJWRUNO3T"
GITHUB_TOKEN = "ghp_" + "YA7MhiMiwZfo4OvWNtbYi5DmeRtLNBnl2fJx"


@pytest.mark.parametrize("build", [window_record, transcript_record])
def test_identifiers_made_from_a_header_or_label_hold_no_secret(build: object) -> None:
    """A kind and option ids are slugs of the header and labels; slugged from raw text they
    carried an AWS key id and a GitHub token, lowercased, into the record and the index."""
    answered = question(
        header=f"tok {AWS_KEY_ID}",
        options=(SourceOption(f"use {GITHUB_TOKEN}"), SourceOption("Redis")),
    )
    built = record(build(answered))  # type: ignore[operator]
    identifiers = " ".join([built.decision_kind, *(o.id for o in built.options)])
    for secret in (AWS_KEY_ID, GITHUB_TOKEN):  # text fields are redacted when stored; ids never
        assert secret.lower()[4:20] not in identifiers.replace("-", "").replace("_", "")
    assert "redacted" in built.decision_kind
    assert built.options[0].id.startswith("use-redacted")
