"""Conflict files beside the journal and choosing a side (resolving: `test_resolution`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.errors import InvalidDecision
from core.record.codec import encode_record
from core.store.correction_notes import CorrectionNotes, note_path
from core.store.decisions import DecisionStore
from core.sync import conflicts
from core.sync.merge import CONFLICT, RecordMerge
from core.sync.paths import unit_of
from tests.factories import make_record

LAPTOP, DESK = ("0a0a0a0a", "laptop"), ("0d0d0d0d", "desk")


def _conflicted_store(tmp_path: Path) -> tuple[DecisionStore, conflicts.Conflict]:
    """Revision 2 written here (current) and, on the desk, another revision 2."""
    store = DecisionStore(tmp_path)
    first = store.put(make_record(id="decision-c-1"))
    mine = store.revise(first.id, 1, lambda r: setattr(r, "selection_reason_raw", "mine"))
    theirs = mine.model_copy(update={"selection_reason_raw": "theirs"})
    merge = RecordMerge(CONFLICT, 2, {2: encode_record(mine)}, {2: encode_record(theirs)})
    conflicts.write_files(tmp_path, conflicts.conflict_files(first.id, merge, (LAPTOP, DESK)))
    return store, conflicts.get_conflict(tmp_path, first.id)


def test_both_versions_and_a_summary_live_outside_records_and_history(tmp_path: Path) -> None:
    _, conflict = _conflicted_store(tmp_path)
    folder = tmp_path / "sync-conflicts" / "decision-c-1"
    assert sorted(p.name for p in folder.iterdir()) == [
        "conflict.json",
        "revision-000002.0a0a0a0a.json",
        "revision-000002.0d0d0d0d.json",
    ]
    assert conflict.current == LAPTOP[0]
    assert conflict.versions[DESK[0]] == {"name": "desk", "revisions": [2]}
    assert [c.record_id for c in conflicts.list_conflicts(tmp_path)] == ["decision-c-1"]


def test_a_second_divergence_keeps_every_version_listed(tmp_path: Path) -> None:
    _, conflict = _conflicted_store(tmp_path)
    later = RecordMerge(CONFLICT, 3, {3: b"{}\n"}, {3: b"{}\n"})
    files = conflicts.conflict_files("decision-c-1", later, (LAPTOP, DESK), conflict)
    summary = json.loads(files["sync-conflicts/decision-c-1/conflict.json"])
    assert summary["fork_revision"] == 2
    assert summary["versions"][DESK[0]]["revisions"] == [2, 3]


@pytest.mark.parametrize(
    ("keep", "machine"),
    [("local", LAPTOP[0]), ("remote", DESK[0]), ("desk", DESK[0]), (DESK[0], DESK[0])],
)
def test_choosing_a_side(tmp_path: Path, keep: str, machine: str) -> None:
    _, conflict = _conflicted_store(tmp_path)
    assert conflicts.choose_machine(conflict, keep, LAPTOP[0]) == machine


def test_an_unknown_side_lists_the_versions(tmp_path: Path) -> None:
    _, conflict = _conflicted_store(tmp_path)
    with pytest.raises(InvalidDecision, match=r"versions: 0a0a0a0a \(laptop\), 0d0d0d0d"):
        conflicts.choose_machine(conflict, "server", LAPTOP[0])


def test_each_sides_note_travels_with_its_version(tmp_path: Path) -> None:
    """Both machines' notes of revision 2 share one path in corrections/, so the conflict
    keeps each beside the version it belongs to."""
    store = DecisionStore(tmp_path)
    first = store.put(make_record(id="decision-c-1"))
    mine = store.revise(first.id, 1, lambda r: setattr(r, "selection_reason_raw", "mine"))
    notes = CorrectionNotes(tmp_path)
    notes.write(first.id, 2, "laptop edit")
    laptop_note = (tmp_path / note_path(first.id, 2)).read_bytes()
    notes.write(first.id, 2, "desk edit")
    desk_note = (tmp_path / note_path(first.id, 2)).read_bytes()
    merge = RecordMerge(CONFLICT, 2, {2: encode_record(mine)}, {2: encode_record(mine)})
    files = conflicts.conflict_files(
        first.id, merge, (LAPTOP, DESK), notes=({2: laptop_note}, {2: desk_note})
    )
    conflicts.write_files(tmp_path, files)
    folder = tmp_path / "sync-conflicts" / first.id
    assert sorted(p.name for p in folder.iterdir()) == [
        "conflict.json",
        "note-000002.0a0a0a0a.json",
        "note-000002.0d0d0d0d.json",
        "revision-000002.0a0a0a0a.json",
        "revision-000002.0d0d0d0d.json",
    ]
    conflict = conflicts.get_conflict(tmp_path, first.id)
    assert conflicts.note_of(tmp_path, conflict, LAPTOP[0]) == "laptop edit"
    assert conflicts.note_of(tmp_path, conflict, DESK[0]) == "desk edit"
    assert all(unit_of(f"sync-conflicts/{first.id}/{p.name}") for p in folder.iterdir())


def test_a_version_without_a_note_or_with_a_damaged_one_reads_as_none(tmp_path: Path) -> None:
    _, conflict = _conflicted_store(tmp_path)
    assert conflicts.note_of(tmp_path, conflict, DESK[0]) == ""
    damaged = tmp_path / "sync-conflicts" / "decision-c-1" / "note-000002.0d0d0d0d.json"
    damaged.write_text("{not json")
    assert conflicts.note_of(tmp_path, conflict, DESK[0]) == ""
