"""One decision's work without a window: each way a save can end, history, repairs."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.gui.journal import record_jobs
from core.errors import SnapshotExpired
from core.journal import Journal
from core.record.corrections import Correction
from tests.app.support.journal_support import make_journal, record

ID = "decision-test-0001"


@pytest.fixture
def journal(tmp_path: Path) -> Journal:
    journal = make_journal(tmp_path / "journal", [record(1)])
    journal.index.reconcile()
    return journal


def _correct(journal: Journal, expected: int, **fields: object) -> object:
    return record_jobs.mutate(
        journal,
        "edit",
        ID,
        lambda: record_jobs.correct(journal, ID, expected, Correction(**fields), "why"),
    )


def test_a_saved_correction_answers_the_new_revision_and_keeps_its_note(
    journal: Journal,
) -> None:
    result = _correct(journal, 1, risk_level="high")
    assert result.record is not None and result.record.revision == 2 and not result.error
    history = record_jobs.history(journal, ID)
    assert [r.revision for r in history.revisions] == [1, 2]
    assert {n: note.note for n, note in history.notes.items()} == {2: "why"}


def test_each_way_a_save_can_fail_is_answered_not_raised(journal: Journal) -> None:
    unchanged = _correct(journal, 1, risk_level="medium")
    assert unchanged.no_changes and unchanged.record is None
    invalid = _correct(journal, 1, risk_level="catastrophic")
    assert invalid.error and invalid.field == "risk_level"
    journal.store.revise(ID, 1, lambda r: setattr(r, "risk_level", "low"))
    stale = _correct(journal, 1, risk_level="high")
    assert stale.newer is not None and stale.newer.revision == 2 and stale.error


def test_delete_restore_and_confirm_each_write_one_revision(journal: Journal) -> None:
    deleted = record_jobs.mutate(
        journal, "delete", ID, lambda: record_jobs.soft_delete(journal, ID, 1, settle=False)
    )
    assert deleted.record is not None and deleted.record.is_deleted
    restored = record_jobs.mutate(
        journal, "restore", ID, lambda: record_jobs.restore(journal, ID, 2, settle=False)
    )
    assert restored.record is not None and not restored.record.is_deleted
    assert journal.store.get(ID).revision == 3


def test_an_unexpected_error_is_described() -> None:
    result = record_jobs.failed_mutation("edit", ID, SnapshotExpired("gone"))
    assert result.error == "gone" and result.record is None


def test_damaged_files_are_moved_aside_and_the_rest_reported(journal: Journal) -> None:
    class Worker:
        asked = 0

        def request_rebuild(self) -> None:
            self.asked += 1

    damaged = journal.store.records_dir / "decision-bad.json"
    damaged.write_text("{not json")
    outside = journal.root.parent / "elsewhere.json"
    outside.write_text("{}")
    worker = Worker()
    ticks: list[tuple[int, int]] = []
    moved = record_jobs.move_damaged_aside(
        journal,
        worker,  # type: ignore[arg-type]
        [str(damaged), str(outside)],
        lambda done, total: ticks.append((done, total)),
    )
    assert [path for path, _target in moved.moved] == [str(damaged)]
    assert not damaged.exists() and Path(moved.moved[0][1]).exists()
    assert [path for path, _why in moved.failed] == [str(outside)] and outside.exists()
    assert worker.asked == 1
