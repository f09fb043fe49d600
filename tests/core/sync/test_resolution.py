"""Resolving a sync conflict: the one function the CLI and the journal window call."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from core.errors import (
    InvalidDecision,
    RevisionConflict,
    SyncConflictPending,
    SyncConflictUnknown,
)
from core.record.codec import encode_record
from core.record.models import DecisionRecord
from core.store.correction_notes import NOTE_MAX, CorrectionNotes
from core.store.decisions import DecisionStore, mark_deleted
from core.sync import conflicts, resolution
from core.sync.merge import CONFLICT, RecordMerge
from tests.factories import make_record

LAPTOP, DESK = ("0a0a0a0a", "laptop"), ("0d0d0d0d", "desk")
ID = "decision-c-1"
FOLDER = Path("sync-conflicts") / ID


def _conflicted(tmp_path: Path) -> DecisionStore:
    """Revision 2 written here (current, tagged "mine") and another revision 2 on the desk."""
    store = DecisionStore(tmp_path)
    first = store.put(make_record(id=ID, tags=["base"]))

    def mine(record: DecisionRecord) -> None:
        record.selection_reason_raw = "mine"
        record.tags = ["mine"]

    here = store.revise(first.id, 1, mine)
    theirs = here.model_copy(update={"selection_reason_raw": "theirs", "tags": ["theirs"]})
    merge = RecordMerge(CONFLICT, 2, {2: encode_record(here)}, {2: encode_record(theirs)})
    conflicts.write_files(tmp_path, conflicts.conflict_files(ID, merge, (LAPTOP, DESK)))
    return store


def test_versions_list_this_machine_first_with_names_and_records(tmp_path: Path) -> None:
    store = _conflicted(tmp_path)
    view = resolution.load_versions(store, ID, DESK[0])
    assert view is not None
    assert [(v.machine, v.here, v.title) for v in view.versions] == [
        (DESK[0], True, "desk (this machine)"),
        (LAPTOP[0], False, "laptop"),
    ]
    assert view.version(LAPTOP[0]).record.selection_reason_raw == "mine"
    assert view.current.revision == 2
    assert resolution.load_versions(store, "decision-none", DESK[0]) is None


def test_without_sync_the_current_records_machine_stands_for_this_one(tmp_path: Path) -> None:
    store = _conflicted(tmp_path)
    assert resolution.this_machine(store) == ""
    view = resolution.load_versions(store, ID, "")
    assert view is not None and view.versions[0].machine == LAPTOP[0]
    done = resolution.resolve_conflict(store, ID, "local", "")
    assert done.machine == LAPTOP[0]


@pytest.mark.parametrize(("keep", "reason"), [("local", "mine"), ("remote", "theirs")])
def test_keeping_one_writes_the_next_revision_and_a_note(
    tmp_path: Path, keep: str, reason: str
) -> None:
    store = _conflicted(tmp_path)
    done = resolution.resolve_conflict(store, ID, keep, LAPTOP[0], expected=2)
    assert (done.record.revision, done.record.selection_reason_raw) == (3, reason)
    assert done.cleared and not (tmp_path / FOLDER).exists()
    with pytest.raises(SyncConflictUnknown, match=f"decision {ID} has no sync conflict"):
        conflicts.get_conflict(tmp_path, ID)
    assert [r.revision for r in store.history(ID)] == [1, 2, 3]
    assert store.history(ID)[1].selection_reason_raw == "mine"  # revision 2 is kept
    name = "laptop" if keep == "local" else "desk"
    note = CorrectionNotes(tmp_path).read(ID)[3].note
    other = "desk" if keep == "local" else "laptop"
    assert (
        note
        == f"Sync conflict: kept the version written on {name}; set aside the version from {other}."
    )
    assert store.list_with_issues().issues == []


def test_an_edit_on_top_of_the_chosen_version_is_one_revision(tmp_path: Path) -> None:
    store = _conflicted(tmp_path)

    def merge(record: DecisionRecord) -> None:
        record.tags = ["mine", "theirs"]

    done = resolution.resolve_conflict(
        store, ID, DESK[0], LAPTOP[0], expected=2, edit=merge, note="took both tags"
    )
    assert done.record.selection_reason_raw == "theirs"
    assert done.record.tags == ["mine", "theirs"]
    note = CorrectionNotes(tmp_path).read(ID)[3].note
    assert note == (
        "Sync conflict: merged by hand from the version written on desk; set aside the version "
        "from laptop. took both tags"
    )


def test_a_stale_expected_revision_writes_nothing_and_keeps_the_conflict(tmp_path: Path) -> None:
    store = _conflicted(tmp_path)
    with pytest.raises(RevisionConflict):
        resolution.resolve_conflict(store, ID, "remote", LAPTOP[0], expected=1)
    assert store.get(ID).revision == 2
    assert (tmp_path / FOLDER / "conflict.json").is_file()


def test_a_note_over_its_limit_is_refused_before_any_write(tmp_path: Path) -> None:
    store = _conflicted(tmp_path)
    with pytest.raises(InvalidDecision, match=r"correction_note is .* the limit is"):
        resolution.resolve_conflict(store, ID, "remote", LAPTOP[0], note="x" * NOTE_MAX)
    assert store.get(ID).revision == 2
    assert (tmp_path / FOLDER).is_dir()


def test_a_divergence_arriving_while_resolving_is_not_thrown_away(tmp_path: Path) -> None:
    """A sync that lists another version while the write runs leaves the folder in place."""
    store = _conflicted(tmp_path)
    earlier = conflicts.get_conflict(tmp_path, ID)
    later = RecordMerge(CONFLICT, 3, {}, {3: b"{}\n"})

    def arrives(record: DecisionRecord) -> None:
        files = conflicts.conflict_files(ID, later, (LAPTOP, DESK), earlier)
        conflicts.write_files(tmp_path, files)

    done = resolution.resolve_conflict(store, ID, "local", LAPTOP[0], edit=arrives)
    assert done.record.revision == 3 and not done.cleared
    assert conflicts.get_conflict(tmp_path, ID).versions[DESK[0]]["revisions"] == [2, 3]


def test_unknown_conflicts_and_sides_name_what_exists(tmp_path: Path) -> None:
    store = _conflicted(tmp_path)
    with pytest.raises(SyncConflictUnknown, match="decision decision-c-2 has no sync conflict"):
        resolution.resolve_conflict(store, "decision-c-2", "local", LAPTOP[0])
    with pytest.raises(InvalidDecision, match="versions: 0a0a0a0a"):
        resolution.resolve_conflict(store, ID, "server", LAPTOP[0])
    assert store.get(ID).revision == 2


# the ordinary changes of a conflicted decision: correct, soft-delete, restore ------------------


def _tag(tags: list[str]) -> Callable[[DecisionRecord], None]:
    def change(record: DecisionRecord) -> None:
        record.tags = tags

    return change


@pytest.mark.parametrize(
    ("change", "how"),
    [
        (_tag(["mine", "fixed"]), resolution.CORRECTING),
        (mark_deleted, resolution.DELETING),
    ],
    ids=["correct", "soft-delete"],
)
def test_a_change_refused_until_asked_to_settle_then_one_revision(
    tmp_path: Path, change: Callable[[DecisionRecord], None], how: str
) -> None:
    store = _conflicted(tmp_path)
    with pytest.raises(SyncConflictPending) as refused:
        resolution.revise(store, ID, 2, change, here=LAPTOP[0], note="why", how=how)
    assert str(refused.value) == (
        f"decision {ID} was changed on 2 machines (laptop and desk) and waits for a choice of "
        "version; nothing was written"
    )
    assert refused.value.runbook_anchor == "sync-conflict"
    assert store.get(ID).revision == 2 and (tmp_path / FOLDER).is_dir()
    assert 2 not in CorrectionNotes(tmp_path).read(ID)

    done = resolution.revise(store, ID, 2, change, here=LAPTOP[0], settle=True, note="why", how=how)
    assert done.record.revision == 3 and done.settled is not None and done.settled.cleared
    assert done.record.selection_reason_raw == "mine"  # the current record, as it stood
    assert not (tmp_path / FOLDER).exists()
    assert [r.revision for r in store.history(ID)] == [1, 2, 3]
    note = CorrectionNotes(tmp_path).read(ID)[3].note
    assert note == (
        f"Sync conflict: settled by {how} the current version (written on laptop); the version "
        "from desk set aside. why"
    )
    assert store.list_with_issues().issues == []


def test_the_current_record_as_it_stands_is_kept_past_the_versions(tmp_path: Path) -> None:
    """A revision written on top of the conflict (before this rule) is what a change starts
    from: settling never reverts the record to the version of the revision both machines
    wrote."""
    store = _conflicted(tmp_path)
    store.revise(ID, 2, _tag(["later"]))
    done = resolution.revise(store, ID, 3, _tag(["later", "fixed"]), here=LAPTOP[0], settle=True)
    assert (done.record.revision, done.record.tags) == (4, ["later", "fixed"])
    assert done.settled is not None and done.settled.machine == LAPTOP[0]


def test_without_a_conflict_a_change_is_the_stores_revision_with_its_note(
    tmp_path: Path,
) -> None:
    store = DecisionStore(tmp_path)
    store.put(make_record(id=ID, tags=["base"]))
    done = resolution.revise(store, ID, 1, _tag(["new"]), here="", note="  typo  ")
    assert (done.record.revision, done.record.tags, done.settled) == (2, ["new"], None)
    assert done.note == "typo" and CorrectionNotes(tmp_path).read(ID)[2].note == "typo"
    quiet = resolution.revise(store, ID, 2, _tag(["newer"]), here="", settle=True)
    assert quiet.settled is None and 3 not in CorrectionNotes(tmp_path).read(ID)


def test_a_stale_revision_or_a_long_note_writes_nothing_and_keeps_the_conflict(
    tmp_path: Path,
) -> None:
    store = _conflicted(tmp_path)
    with pytest.raises(RevisionConflict):
        resolution.revise(store, ID, 1, _tag(["x"]), here=LAPTOP[0], settle=True)
    with pytest.raises(InvalidDecision, match="correction_note"):
        resolution.revise(
            store, ID, 2, _tag(["x"]), here=LAPTOP[0], settle=True, note="x" * (NOTE_MAX + 1)
        )
    assert store.get(ID).revision == 2 and (tmp_path / FOLDER / "conflict.json").is_file()


def _noted(store: DecisionStore, laptop: str, desk: str) -> None:
    """Gives each version of the conflict the note its machine saved with it."""
    for (machine, _name), text in ((LAPTOP, laptop), (DESK, desk)):
        if not text:
            continue
        CorrectionNotes(store.root).write(ID, 2, text)
        note = store.root / "corrections" / ID / "revision-000002.json"
        note.rename(store.root / FOLDER / f"note-000002.{machine}.json")


def test_each_version_shows_its_own_note(tmp_path: Path) -> None:
    store = _conflicted(tmp_path)
    _noted(store, "laptop edit", "desk edit")
    view = resolution.load_versions(store, ID, DESK[0])
    assert view is not None
    assert [(v.name, v.note) for v in view.versions] == [
        ("desk", "desk edit"),
        ("laptop", "laptop edit"),
    ]


@pytest.mark.parametrize(
    ("keep", "expected"),
    [
        (
            "local",
            'Sync conflict: kept the version written on laptop (noted: "laptop edit"); set aside '
            'the version from desk (noted: "desk edit"). why',
        ),
        (
            "remote",
            'Sync conflict: kept the version written on desk (noted: "desk edit"); set aside '
            'the version from laptop (noted: "laptop edit"). why',
        ),
    ],
)
def test_the_resolution_note_keeps_every_versions_note(
    tmp_path: Path, keep: str, expected: str
) -> None:
    store = _conflicted(tmp_path)
    _noted(store, "laptop edit", "desk edit")
    resolution.resolve_conflict(store, ID, keep, LAPTOP[0], expected=2, note="why")
    assert CorrectionNotes(tmp_path).read(ID)[3].note == expected


def test_settling_by_a_change_names_both_notes(tmp_path: Path) -> None:
    store = _conflicted(tmp_path)
    _noted(store, "laptop edit", "")
    resolution.revise(store, ID, 2, _tag(["fixed"]), here=LAPTOP[0], settle=True)
    assert CorrectionNotes(tmp_path).read(ID)[3].note == (
        "Sync conflict: settled by correcting the current version (written on laptop "
        '(noted: "laptop edit")); the version from desk set aside.'
    )


def test_long_notes_are_shortened_alike_to_fit_the_limit(tmp_path: Path) -> None:
    store = _conflicted(tmp_path)
    _noted(store, "l" * NOTE_MAX, "d" * NOTE_MAX)
    resolution.resolve_conflict(store, ID, "local", LAPTOP[0], note="mine is right")
    note = CorrectionNotes(tmp_path).read(ID)[3].note
    assert len(note.encode()) <= NOTE_MAX
    assert note.endswith('…"). mine is right')
    assert note.count("l") - note.count("d") in range(-8, 9)
