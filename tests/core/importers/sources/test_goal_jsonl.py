"""goal-jsonl importer: agent goal decisions as notes, torn lines reported, idempotent."""

from __future__ import annotations

from pathlib import Path

from core.agents.notes import NoteStore
from core.importers import make_importer
from core.importers.engine import run_import
from core.journal import Journal
from core.record.identity import project_identity

DATA = Path(__file__).resolve().parents[3] / "data" / "importers" / "goal_jsonl"


def test_entries_become_model_notes_and_reruns_add_nothing(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "journal")
    report = run_import(journal, make_importer("goal-jsonl"), DATA)
    assert report.written == {"notes": 3}
    assert dict(report.skipped_by_reason()) == {
        "torn or unreadable line (not a JSON object)": 1,
        "entry has no decision text": 1,
    }
    assert report.read == report.accounted == 5
    notes = NoteStore(journal.root)
    unscoped = notes.read(project_identity("").project_id).notes
    assert [n.decision for n in unscoped] == [
        "Use the existing lane log instead of a new trail",
        "Ruled out a cross-model audit for now",
    ]
    first = unscoped[0]
    assert first.provenance == "model" and first.goal == "2026-08-26T09:58:00.000Z"
    assert first.session_id == "conv-7f3a"
    assert first.evidence == "lanes/2026-08-26.jsonl:41 [conv-7f3a.jsonl:1 at 2026-08-26T10:00:00Z]"
    assert "(autonomous turn)" in unscoped[1].evidence
    shop = notes.read(project_identity("/home/dev/work/shop").project_id).notes
    assert [n.why for n in shop] == ["The journal is the postmortem"]
    again = run_import(journal, make_importer("goal-jsonl"), DATA)
    assert again.imported == 0 and again.unchanged == 3
    assert len(notes.read(project_identity("").project_id).notes) == 2
