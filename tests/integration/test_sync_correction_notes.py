"""Correction notes through a sync conflict: each machine's "why corrected" stays with its version.

Both machines correct the same decision to revision 2 with a note while they cannot reach the
remote; both notes live at `corrections/<id>/revision-000002.json`. After both sync, each
machine's own chain keeps its own note, the conflict folder holds each version's note beside
it, and the revision that resolves the conflict names both notes in `history`.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.store.correction_notes import CorrectionNotes
from core.sync import conflicts
from core.sync.resolution import load_versions
from core.sync.state import StateFiles
from tests.integration.sync_machines import Machine, assert_kernforge_valid, bare_remote

ID = "decision-shared-1"


@pytest.fixture
def pair(tmp_path: Path) -> tuple[Machine, Machine]:
    _, url = bare_remote(tmp_path)
    laptop, desk = Machine.make(tmp_path, "laptop"), Machine.make(tmp_path, "desk")
    laptop.put(ID, "Pick the cache eviction policy")
    laptop.init(url)
    desk.join(url, laptop.pairing())
    return laptop, desk


def _edit(machine: Machine, tags: str, note: str) -> None:
    machine.ok("edit", ID, "--expected-revision", "1", "--tags", tags, "--note", note)


def _machine(machine: Machine) -> str:
    return StateFiles(machine.root).config().machine


def _notes_in_conflict(machine: Machine) -> dict[str, str]:
    conflict = conflicts.get_conflict(machine.root, ID)
    return {m: conflicts.note_of(machine.root, conflict, m) for m in conflict.versions}


def test_each_note_travels_with_its_version_and_into_history(
    pair: tuple[Machine, Machine],
) -> None:
    laptop, desk = pair
    _edit(laptop, "laptop", "laptop edit")
    _edit(desk, "desk", "desk edit")
    laptop.ok("sync", "now")
    desk.ok("sync", "now", code=4)
    laptop.ok("sync", "now", code=4)
    ids = {"laptop": _machine(laptop), "desk": _machine(desk)}
    names = {
        "laptop": StateFiles(laptop.root).config().machine_name,
        "desk": StateFiles(desk.root).config().machine_name,
    }
    for machine in (laptop, desk):
        assert_kernforge_valid(machine)
        # the desk's chain is current on both machines: its revision 2 keeps its own note
        assert machine.store.get(ID).tags == ["desk"]
        assert CorrectionNotes(machine.root).read(ID)[2].note == "desk edit"
        assert _notes_in_conflict(machine) == {
            ids["laptop"]: "laptop edit",
            ids["desk"]: "desk edit",
        }
        history = machine.ok("history", ID).splitlines()
        assert history[2].startswith("2 ") and "desk edit" in history[2]
        assert "laptop edit" not in "\n".join(history)
    view = load_versions(laptop.store, ID, ids["laptop"])
    assert view is not None
    assert [(v.here, v.record.tags, v.note) for v in view.versions] == [
        (True, ["laptop"], "laptop edit"),
        (False, ["desk"], "desk edit"),
    ]

    out = laptop.ok("sync", "resolve", ID, "--keep", "local")
    assert "is revision 3" in out
    laptop.ok("sync", "now")
    desk.ok("sync", "now")
    for machine in (laptop, desk):
        assert assert_kernforge_valid(machine)[ID] == [1, 2, 3]
        assert machine.store.get(ID).tags == ["laptop"]
        notes = CorrectionNotes(machine.root).read(ID)
        assert notes[2].note == "desk edit"
        assert notes[3].note == (
            f'Sync conflict: kept the version written on {names["laptop"]} (noted: "laptop '
            f'edit"); set aside the version from {names["desk"]} (noted: "desk edit").'
        )
        history = machine.ok("history", ID).splitlines()
        assert "desk edit" in history[2]
        assert history[3].startswith("3 ") and '(noted: "laptop edit")' in history[3]
        assert not (machine.root / "sync-conflicts" / ID).exists()
    raw = json.loads(laptop.ok("history", ID, "--json"))
    assert [r["revision"] for r in raw] == [1, 2, 3]


def test_a_note_on_one_side_only_is_never_given_to_the_other_sides_revision(
    pair: tuple[Machine, Machine],
) -> None:
    laptop, desk = pair
    _edit(laptop, "laptop", "only the laptop said why")
    desk.ok("edit", ID, "--expected-revision", "1", "--tags", "desk")
    laptop.ok("sync", "now")
    desk.ok("sync", "now", code=4)
    assert 2 not in CorrectionNotes(desk.root).read(ID)  # the desk's revision 2 has none
    assert _notes_in_conflict(desk) == {
        _machine(laptop): "only the laptop said why",
        _machine(desk): "",
    }
    laptop.ok("sync", "now", code=4)
    assert 2 not in CorrectionNotes(laptop.root).read(ID)
    assert _notes_in_conflict(laptop) == _notes_in_conflict(desk)
