"""The sync bookkeeping: saved by what changed, read back whole, and taken over from the files
an earlier version wrote whole (`index.json`, the maps inside `state.json`)."""

from __future__ import annotations

import json
from pathlib import Path

from core.bulk.file_identity import FileIdentity
from core.sync.state import ExportedFile, StateFiles


def _files(tmp_path: Path) -> StateFiles:
    files = StateFiles(tmp_path)
    files.directory.mkdir(parents=True)
    return files


def test_state_and_index_come_back_as_saved(tmp_path: Path) -> None:
    files = _files(tmp_path)
    state, index = files.load()
    state.last_result = "synced"
    state.known["d/ab/cd.age"] = "records/decision-a-1.json"
    state.blobs["d/ab/cd.age"] = ["f" * 64, 412]
    index["records/decision-a-1.json"] = ExportedFile(
        FileIdentity(1, 2, 412, 10, 11), "e" * 64, "d/ab/cd.age"
    )
    index["records/decision-b-1.json"] = ExportedFile(None, "0" * 64, "d/ef/01.age")
    files.save(state, index)
    again, again_index = StateFiles(tmp_path).load()
    assert again.last_result == "synced"
    assert dict(again.known) == dict(state.known) and dict(again.blobs) == dict(state.blobs)
    assert dict(again_index) == dict(index)
    scalars = json.loads((files.directory / "state.json").read_text())
    assert "known" not in scalars and "blobs" not in scalars and scalars["last_result"] == "synced"


def test_an_incremental_save_leaves_the_snapshot_and_appends_the_change(tmp_path: Path) -> None:
    files = _files(tmp_path)
    state, index = files.load()
    for n in range(3000):
        state.known[f"d/{n:04d}.age"] = f"records/decision-{n}-1.json"
        index[f"records/decision-{n}-1.json"] = ExportedFile(None, "a" * 64, f"d/{n:04d}.age")
    files.save(state, index)
    snapshot = (files.directory / "files.json").read_bytes()
    state, index = StateFiles(tmp_path).load()
    index["records/decision-7-1.json"] = ExportedFile(None, "b" * 64, "d/0007.age")
    StateFiles(tmp_path).save(state, index)
    assert (files.directory / "files.json").read_bytes() == snapshot
    (log,) = files.directory.glob("files-*.log")
    assert log.read_bytes().count(b"\n") == 1
    assert StateFiles(tmp_path).index()["records/decision-7-1.json"].digest == "b" * 64


def test_the_files_of_the_version_that_wrote_them_whole_are_taken_over(tmp_path: Path) -> None:
    files = _files(tmp_path)
    old_state = {
        "last_result": "synced",
        "known": {"d/ab/cd.age": "records/decision-a-1.json"},
        "blobs": {"d/ab/cd.age": ["f" * 64, 412, 700, 123, 456]},
        "seen": {"0123abcd": 4},
    }
    (files.directory / "state.json").write_text(json.dumps(old_state))
    old_index = {"records/decision-a-1.json": [412, 123, 456, "e" * 64, "d/ab/cd.age"]}
    (files.directory / "index.json").write_text(json.dumps(old_index))
    state, index = files.load()
    assert state.seen == {"0123abcd": 4} and state.known == old_state["known"]
    assert state.blobs["d/ab/cd.age"][:2] == ["f" * 64, 412]
    # that version's stat held no ctime: the file is read again once, not trusted
    assert index["records/decision-a-1.json"] == ExportedFile(None, "e" * 64, "d/ab/cd.age")
    files.save(state, index)
    assert not (files.directory / "index.json").exists()
    again, again_index = StateFiles(tmp_path).load()
    assert again.known == old_state["known"] and dict(again_index) == dict(index)


def test_a_replaced_map_is_saved_whole(tmp_path: Path) -> None:
    files = _files(tmp_path)
    state, index = files.load()
    state.blobs["a"] = ["1" * 64, 3]
    files.save(state, index)
    state = files.state()
    state.blobs = {}
    files.save_state(state)
    assert files.state().blobs == {}
