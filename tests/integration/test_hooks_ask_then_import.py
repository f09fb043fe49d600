"""One record per answered AskUserQuestion: answered in the window through the real hook
process, then the session's transcript imported (as `decision-journal import claude-code`
does), and the journal still holds exactly the window's records, byte for byte."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from core.importers import make_importer
from core.importers.engine import run_import
from core.journal import Journal
from tests.integration.agent_support import FakeApp, method_not_found
from tests.integration.hook_support import Place, hook_place, run_hook

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Place]:
    with hook_place(tmp_path, monkeypatch) as place:
        yield place


def answered_in_the_window(place: Place, event_name: str, reply_name: str) -> dict[str, Any]:
    """Runs the hook with the app answering; returns the `updatedInput` Claude Code receives."""
    reply = place.golden(reply_name)

    def handler(method: str, params: dict[str, Any]) -> Any:
        return reply if method == "questions.ask" else method_not_found(method, params)

    app = FakeApp(place.journal, handler)
    try:
        run = run_hook(place, "claude-code", place.golden_text(event_name))
    finally:
        app.close()
    assert run.returncode == 0, run.stderr
    output: dict[str, Any] = json.loads(run.stdout)["hookSpecificOutput"]
    assert output["permissionDecision"] == "allow"
    return output["updatedInput"]


def transcript(place: Place, event: dict[str, Any], updated: dict[str, Any]) -> str:
    """The two lines Claude Code writes: the call as the model made it, and its result with
    the answers the hook supplied."""
    envelope = {"sessionId": place.session, "cwd": str(place.workspace)}
    asked = {
        **envelope,
        "type": "assistant",
        "timestamp": "2026-12-01T09:00:00Z",
        "message": {
            "role": "assistant",
            "content": [
                {
                    "type": "tool_use",
                    "id": event["tool_use_id"],
                    "name": "AskUserQuestion",
                    "input": event["tool_input"],
                }
            ],
        },
    }
    kept = ("questions", "answers", "annotations")
    result = {key: updated[key] for key in kept if key in updated}
    answered = {
        **envelope,
        "type": "user",
        "timestamp": "2026-12-01T09:00:30Z",
        "message": {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": event["tool_use_id"],
                    "content": "User has answered your questions.",
                }
            ],
        },
        "toolUseResult": result,
    }
    return json.dumps(asked) + "\n" + json.dumps(answered) + "\n"


def record_files(journal: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((journal / "records").rglob("*")) if p.is_file()}


@pytest.mark.parametrize(
    ("event_name", "reply_name", "questions"),
    [
        ("claude_ask_one.input.json", "ask_one.app_reply.json", 1),
        ("claude_ask_several.input.json", "ask_several.app_reply.json", 2),
    ],
)
def test_importing_the_transcript_after_answering_in_the_window_changes_nothing(
    place: Place, tmp_path: Path, event_name: str, reply_name: str, questions: int
) -> None:
    updated = answered_in_the_window(place, event_name, reply_name)
    journal = Journal(place.journal)
    window_records = journal.store.list()
    assert len(window_records) == questions
    before = record_files(place.journal)

    source = tmp_path / "projects" / "-repo" / f"{place.session}.jsonl"
    source.parent.mkdir(parents=True)
    source.write_text(transcript(place, place.golden(event_name), updated), encoding="utf-8")
    report = run_import(journal, make_importer("claude-code"), source)

    assert (report.imported, report.unchanged, report.conflicts) == (0, questions, [])
    assert record_files(place.journal) == before
    after = journal.store.list()
    assert [(r.id, r.decision_kind) for r in after] == [
        (r.id, r.decision_kind) for r in window_records
    ]
    assert all(r.provenance.selection == "user" for r in after)

    again = run_import(journal, make_importer("claude-code"), source)
    assert (again.imported, again.unchanged, again.conflicts) == (0, questions, [])


def test_the_same_transcript_without_the_window_imports_the_same_ids(
    place: Place, tmp_path: Path
) -> None:
    """The ids agree because both paths build them, not because the import found the record."""
    updated = answered_in_the_window(
        place, "claude_ask_several.input.json", "ask_several.app_reply.json"
    )
    window_ids = sorted((r.id, r.decision_kind) for r in Journal(place.journal).store.list())
    source = tmp_path / "t" / f"{place.session}.jsonl"
    source.parent.mkdir()
    event = place.golden("claude_ask_several.input.json")
    source.write_text(transcript(place, event, updated), encoding="utf-8")
    fresh = Journal(tmp_path / "fresh-journal")
    report = run_import(fresh, make_importer("claude-code"), source)
    assert report.imported == 2
    imported = fresh.store.list()
    assert sorted((r.id, r.decision_kind) for r in imported) == window_ids
    assert all(r.provenance.selection == "imported" for r in imported)
