"""`edit`, `delete` and `restore` of a decision that waits for a choice of version after a sync.

Two machines sync through a bare git remote with the real CLI; both write revision 2 of one
decision, so the laptop ends with the conflict. Without `--settle-conflict` each command is
refused with exit code 7 and writes nothing; with it the change is revision 3 on the current
record as it stood, the conflict is gone (one revision, not two), a note says which version was
kept, and a sync each way brings the desk level with no conflict left.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from core.store.correction_notes import CorrectionNotes
from tests.integration.sync_machines import Machine, assert_kernforge_valid, bare_remote

ID = "decision-laptop-1"
WRONG_STATE = 7


def _conflicted(tmp_path: Path, *, laptop_deletes: bool = False) -> tuple[Machine, Machine]:
    _, url = bare_remote(tmp_path)
    laptop, desk = Machine.make(tmp_path, "laptop"), Machine.make(tmp_path, "desk")
    laptop.put(ID, "Pick the cache eviction policy")
    laptop.init(url)
    desk.join(url, laptop.pairing())
    if laptop_deletes:
        laptop.store.soft_delete(ID, 1)
    else:
        laptop.edit(ID, "from the laptop")
    desk.edit(ID, "from the desk")
    desk.ok("sync", "now")
    laptop.ok("sync", "now", code=4)
    assert (laptop.root / "sync-conflicts" / ID / "conflict.json").is_file()
    return laptop, desk


def _refused(laptop: Machine, *args: str) -> None:
    result = laptop.run(*args)
    assert result.returncode == WRONG_STATE, (result.stdout, result.stderr)
    assert result.stdout == ""
    assert result.stderr.startswith(
        f"decision-journal: error: decision {ID} was changed on 2 machines ("
    )
    assert "waits for a choice of version; nothing was written" in result.stderr
    assert f"`sync resolve {ID} --keep local|remote`" in result.stderr
    assert "--settle-conflict" in result.stderr
    assert laptop.store.get(ID).revision == 2
    assert (laptop.root / "sync-conflicts" / ID / "conflict.json").is_file()


def _desk_follows(laptop: Machine, desk: Machine) -> None:
    laptop.ok("sync", "now")
    desk.ok("sync", "now")
    assert desk.store.get(ID) == laptop.store.get(ID)
    assert not (desk.root / "sync-conflicts" / ID).exists()
    assert assert_kernforge_valid(desk)[ID] == [1, 2, 3]
    assert "conflict" not in desk.ok("sync", "status")


@pytest.mark.parametrize(
    ("command", "how"),
    [
        (("edit", "--tags", "lru,settled", "--note", "tags were wrong"), "correcting"),
        (("delete",), "soft-deleting"),
    ],
    ids=["edit", "delete"],
)
def test_a_change_settles_the_conflict_only_when_asked(
    tmp_path: Path, command: tuple[str, ...], how: str
) -> None:
    laptop, desk = _conflicted(tmp_path)
    before = laptop.store.get(ID)
    args = (command[0], ID, "--expected-revision", "2", *command[1:])
    _refused(laptop, *args)
    out = laptop.ok(*args, "--settle-conflict")
    assert "This settled its sync conflict: the version written on" in out
    assert "`sync now` shares it." in out
    record = laptop.store.get(ID)
    assert record.revision == 3
    assert record.selection_reason_raw == before.selection_reason_raw  # as it stood
    if command[0] == "edit":
        assert record.tags == ["lru", "settled"]
    else:
        assert record.is_deleted
    assert not (laptop.root / "sync-conflicts" / ID).exists()
    assert assert_kernforge_valid(laptop)[ID] == [1, 2, 3]
    note = CorrectionNotes(laptop.root).read(ID)[3].note
    assert note.startswith(f"Sync conflict: settled by {how} the current version (written on ")
    assert note.endswith("tags were wrong") == (command[0] == "edit")
    assert "history" not in out  # one revision: nothing more to resolve
    _desk_follows(laptop, desk)


def test_a_restore_settles_the_conflict_of_a_decision_deleted_here(tmp_path: Path) -> None:
    laptop, desk = _conflicted(tmp_path, laptop_deletes=True)
    assert laptop.store.get(ID).is_deleted  # this machine's deleting version is current
    args = ("restore", ID, "--expected-revision", "2")
    _refused(laptop, *args)
    out = laptop.ok(*args, "--settle-conflict")
    assert out.startswith(f"Restored {ID} as revision 3.")
    assert not laptop.store.get(ID).is_deleted
    assert not (laptop.root / "sync-conflicts" / ID).exists()
    note = CorrectionNotes(laptop.root).read(ID)[3].note
    assert note.startswith("Sync conflict: settled by restoring the current version")
    _desk_follows(laptop, desk)


def test_without_a_conflict_the_flag_changes_nothing(tmp_path: Path) -> None:
    laptop = Machine.make(tmp_path, "laptop")
    laptop.put(ID, "Pick the cache eviction policy")
    out = laptop.ok("edit", ID, "--expected-revision", "1", "--tags", "a", "--settle-conflict")
    assert out == f"Saved {ID} as revision 2.\n"
    assert 2 not in CorrectionNotes(laptop.root).read(ID)
