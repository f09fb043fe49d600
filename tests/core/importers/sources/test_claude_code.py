"""claude-code importer: transcript shapes, joins, skips with reasons, idempotency, watching."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from core.importers import make_importer
from core.importers.base import ImportReport
from core.importers.engine import run_import
from core.journal import Journal
from core.outcomes.verdict import record_outcome
from core.record.models import DecisionRecord

DATA = Path(__file__).resolve().parents[3] / "data" / "importers" / "claude" / "projects"


@pytest.fixture
def journal(tmp_path: Path) -> Journal:
    return Journal(tmp_path / "journal")


def _import(journal: Journal, source: Path = DATA) -> ImportReport:
    return run_import(journal, make_importer("claude-code"), source)


def _by_problem(journal: Journal) -> dict[str, DecisionRecord]:
    return {r.problem: r for r in journal.store.list()}


def test_every_answered_question_becomes_a_record_and_the_rest_are_explained(
    journal: Journal,
) -> None:
    report = _import(journal)
    assert report.imported == 8 and report.written["records"] == 8
    reasons = dict(report.skipped_by_reason())
    assert reasons == {
        "rejected by the user (the question was dismissed)": 1,
        "errored or denied by a hook: Blocked by policy hook": 1,
        "unreadable line (not JSON)": 1,
        "not answered (no tool result in the transcript)": 1,
    }
    assert report.errors == [] and report.conflicts == []
    assert report.read == report.accounted


def test_second_run_adds_nothing(journal: Journal) -> None:
    _import(journal)
    before = sorted(p.name for p in journal.store.records_dir.glob("*.json"))
    again = _import(journal)
    assert again.imported == 0 and again.unchanged == 8
    assert sorted(p.name for p in journal.store.records_dir.glob("*.json")) == before


def test_string_answer_with_the_recommendation_is_an_accept(journal: Journal) -> None:
    _import(journal)
    record = _by_problem(journal)["How should checkout retries be scheduled?"]
    assert record.selected_option_id == record.recommended_option_id == "use-a-queue-recommended"
    assert record_outcome(record) == "accept"
    assert record.project_alias == "shop" and record.session_id == "sess-a"
    assert record.created_at is not None and record.created_at.format() == "2026-10-01T09:00:30.5Z"
    assert record.decision_kind == "retries"


def test_other_text_is_custom_and_notes_are_the_reason(journal: Journal) -> None:
    _import(journal)
    record = _by_problem(journal)["Which cache for sessions?"]
    assert record.custom_selection == "Redis, with a 5 minute TTL"
    assert record.selection_reason_raw == "sessions must survive a restart"
    assert record_outcome(record) == "amend"
    amended = {r.option_id: r.reason for r in record.rejected_reasons}
    assert amended["redis-recommended"].startswith("(not rejected")


def test_multi_select_arrays_and_joined_strings(journal: Journal) -> None:
    _import(journal)
    records = _by_problem(journal)
    ci = records["Which checks run in CI?"]
    assert ci.custom_selection == "Unit tests, Type check"
    reasons = {r.option_id: r.reason for r in ci.rejected_reasons}
    assert reasons["unit-tests"].startswith("(chosen together")
    assert reasons["lint"] == "(not recorded in the source)"
    export = records["Which formats to export?"]
    assert export.custom_selection == "JSON, Markdown"
    assert export.selection_reason_raw == "CSV can wait"


def test_several_questions_in_one_call_and_case_folded_other_text(journal: Journal) -> None:
    _import(journal)
    records = _by_problem(journal)
    assert records["Which ORM?"].selected_option_id == "raw-sql"
    assert record_outcome(records["Which ORM?"]) == "redirect"
    migrations = records["Where do migrations live?"]
    assert migrations.selected_option_id == "alembic-folder" and not migrations.custom_selection
    keys = {r.evidence_refs[0] for r in records.values()}
    assert "claude-code:sess-a:toolu_07" in keys and "claude-code:sess-a:toolu_07#1" in keys


def test_subagent_transcripts_and_lines_without_cwd(journal: Journal) -> None:
    _import(journal)
    records = _by_problem(journal)
    runner = records["Which test runner?"]
    assert "subagent" in runner.tags and runner.project_alias == "shop"
    blog = records["Publish drafts?"]
    assert blog.project_alias == "-home-dev-work-blog" and blog.workspace == ""


def test_imports_are_never_user_provenance_or_evidence(journal: Journal) -> None:
    _import(journal)
    for record in journal.store.list():
        assert record.provenance.selection == "imported"
        assert record.provenance.rationale == "imported"
        assert record.detector_confidence == 0.0
        assert "imported" in record.tags and "import:claude-code" in record.tags


def test_ids_come_from_the_source_key_not_the_run(tmp_path: Path) -> None:
    first, second = Journal(tmp_path / "a"), Journal(tmp_path / "b")
    _import(first)
    _import(second)
    assert {r.id for r in first.store.list()} == {r.id for r in second.store.list()}


def _ask_line(tool_id: str, question: str) -> str:
    return json.dumps(
        {
            "type": "assistant",
            "sessionId": "live",
            "cwd": "/srv/app",
            "timestamp": "2026-11-01T10:00:00Z",
            "message": {
                "content": [
                    {
                        "type": "tool_use",
                        "id": tool_id,
                        "name": "AskUserQuestion",
                        "input": {
                            "questions": [
                                {
                                    "question": question,
                                    "header": "Live",
                                    "multiSelect": False,
                                    "options": [{"label": "Yes"}, {"label": "No"}],
                                }
                            ]
                        },
                    }
                ]
            },
        }
    )


def _answer_line(tool_id: str, question: str, answer: str) -> str:
    return json.dumps(
        {
            "type": "user",
            "sessionId": "live",
            "cwd": "/srv/app",
            "timestamp": "2026-11-01T10:01:00Z",
            "message": {"content": [{"type": "tool_result", "tool_use_id": tool_id}]},
            "toolUseResult": {"answers": {question: answer}},
        }
    )


def test_incremental_reader_imports_answers_as_they_land(journal: Journal, tmp_path: Path) -> None:
    folder = tmp_path / "projects" / "-srv-app"
    folder.mkdir(parents=True)
    transcript = folder / "live.jsonl"
    transcript.write_text(_ask_line("toolu_live", "Ship it?") + "\n")
    importer = make_importer("claude-code", incremental=True)
    first = run_import(journal, importer, tmp_path / "projects")
    assert first.read == 0  # the question waits; nothing is reported as skipped yet
    with transcript.open("a") as handle:
        handle.write(_answer_line("toolu_live", "Ship it?", "No")[:40])  # a half-written line
    assert run_import(journal, importer, tmp_path / "projects").read == 0
    with transcript.open("a") as handle:
        handle.write(_answer_line("toolu_live", "Ship it?", "No")[40:] + "\n")
    third = run_import(journal, importer, tmp_path / "projects")
    assert third.imported == 1
    assert [r.selected_option_id for r in journal.store.list()] == ["no"]


def test_a_rewritten_transcript_is_read_again(journal: Journal, tmp_path: Path) -> None:
    source = tmp_path / "projects"
    shutil.copytree(DATA, source)
    importer = make_importer("claude-code", incremental=True)
    first = run_import(journal, importer, source)
    assert first.imported == 7  # the blog answer has no newline yet: a live file, left for later
    victim = source / "-home-dev-work-shop" / "sess-a" / "subagents" / "agent-1.jsonl"
    size = victim.stat().st_size
    victim.unlink()
    lines = [_ask_line("toolu_new", "Rewritten?"), _answer_line("toolu_new", "Rewritten?", "Yes")]
    victim.write_text("\n".join(lines).ljust(size, " ") + "\n")
    again = run_import(journal, importer, source)
    assert again.imported == 1 and again.unchanged == 0


@pytest.mark.parametrize(
    "line",
    [
        "not json at all AskUserQuestion",
        '["AskUserQuestion"]',
        '{"type":"assistant","message":{"content":[{"type":"tool_use","name":"AskUserQuestion"}]}}',
        '{"type":"assistant","message":"AskUserQuestion"}',
    ],
)
def test_odd_lines_are_reported_never_raised(journal: Journal, tmp_path: Path, line: str) -> None:
    folder = tmp_path / "p" / "x"
    folder.mkdir(parents=True)
    (folder / "s.jsonl").write_text(line + "\n")
    report = _import(journal, tmp_path / "p")
    assert report.imported == 0 and report.errors == []
    assert report.read == report.accounted
