"""The Waiting tab's work without a window: which project it opens on, and the notes shown."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.gui.journal import waiting_jobs
from core.agents.notes import NoteStore
from core.capture.machine import CaptureService
from core.journal import Journal
from core.record.identity import project_identity
from tests.app.support.journal_support import make_journal
from tests.factories import proposal_dict


@pytest.fixture
def journal(tmp_path: Path) -> Journal:
    return make_journal(tmp_path / "journal", [])


def test_nothing_waits_in_a_new_journal(journal: Journal) -> None:
    assert waiting_jobs.pending(journal) == []
    assert waiting_jobs.waiting_project(journal) == ""


def test_an_unreadable_waiting_folder_means_no_project(journal: Journal) -> None:
    journal.pending.directory.parent.mkdir(parents=True, exist_ok=True)
    journal.pending.directory.write_text("not a folder")
    assert waiting_jobs.waiting_project(journal) == ""


def test_notes_come_newest_first_and_at_most_the_cap(
    journal: Journal, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(waiting_jobs, "NOTES_SHOWN", 3)
    store = NoteStore(journal.root)
    workspace = tmp_path / "repo"
    workspace.mkdir()
    project = ""
    for number in range(5):
        note = store.append(workspace=str(workspace), decision=f"note {number}", why="because")
        project = note.project_id
    notes, damaged = waiting_jobs.notes(journal, project)
    assert [note.decision for note in notes] == ["note 4", "note 3", "note 2"]
    assert damaged == 0


def test_the_newest_waiting_decision_names_the_project(journal: Journal) -> None:
    service = CaptureService(journal.store, journal.pending)
    for n, workspace in enumerate(("/home/user/src/alpha", "/home/user/src/beta")):
        service.begin(
            proposal_dict(problem=f"Which layout for {workspace}?"),
            workspace=workspace,
            session_id=f"session-{n}",
            agent="Codex",
        )
    assert len(waiting_jobs.pending(journal)) == 2
    beta = project_identity("/home/user/src/beta").project_id
    assert waiting_jobs.waiting_project(journal) == beta
