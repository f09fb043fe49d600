"""Name manifests: numbering, and compaction that keeps every path and machine name."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.errors import SyncKeyWrong
from core.sync import manifests
from core.sync.crypto import AgeCodec, SyncKey
from core.sync.manifests import Manifest

LAPTOP, DESK = "0a0a0a0a", "0d0d0d0d"


class Folder:
    """A working copy's `m/` on disk, written the way the working copy writes blobs."""

    def __init__(self, root: Path, codec: AgeCodec) -> None:
        self.root = root
        self.codec = codec

    def write(self, name: str, data: bytes) -> None:
        target = self.root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)

    def remove(self, name: str) -> None:
        (self.root / name).unlink()

    def add(self, machine: str, name: str, paths: list[str]) -> str:
        target = manifests.next_name(self.root, machine)
        self.write(target, self.codec.seal(Manifest(machine, name, paths).encode()))
        return target

    def read(self, name: str) -> Manifest:
        return Manifest.decode(self.codec.open((self.root / name).read_bytes()))


@pytest.fixture
def folder(tmp_path: Path) -> Folder:
    return Folder(tmp_path, AgeCodec(SyncKey.generate()))


def _compact(folder: Folder, bound: int) -> manifests.Compaction | None:
    writer = Manifest(LAPTOP, "laptop", [])
    return manifests.compact(
        folder.root, folder.codec, writer, folder.write, folder.remove, bound=bound
    )


def test_numbers_grow_across_machines(folder: Folder) -> None:
    assert folder.add(LAPTOP, "laptop", ["records/a.json"]) == f"m/{LAPTOP}-000001.age"
    assert folder.add(DESK, "desk", ["records/b.json"]) == f"m/{DESK}-000002.age"
    assert manifests.listed(folder.root) == [f"m/{LAPTOP}-000001.age", f"m/{DESK}-000002.age"]
    assert manifests.is_manifest(f"m/{DESK}-000002.age")
    assert not manifests.is_manifest("m/notes.age") and not manifests.is_manifest("d/ab/c.age")


def test_at_or_under_the_bound_nothing_changes(folder: Folder) -> None:
    for n in range(3):
        folder.add(LAPTOP, "laptop", [f"records/{n}.json"])
    assert _compact(folder, bound=3) is None
    assert len(manifests.listed(folder.root)) == 3


def test_over_the_bound_one_manifest_keeps_every_path_and_name(folder: Folder) -> None:
    folder.add(LAPTOP, "laptop", ["records/a.json", "history/a/revision-000001.json"])
    folder.add(DESK, "desk", ["records/b.json", "records/a.json"])
    folder.add(LAPTOP, "laptop", ["records/c.json"])
    done = _compact(folder, bound=2)
    assert done is not None
    assert done.written == f"m/{LAPTOP}-000004.age"
    assert len(done.removed) == 3
    assert manifests.listed(folder.root) == [done.written]
    union = folder.read(done.written)
    assert union.paths == [
        "records/a.json",
        "history/a/revision-000001.json",
        "records/b.json",
        "records/c.json",
    ]
    assert union.names() == {LAPTOP: "laptop", DESK: "desk"}
    assert folder.add(DESK, "desk", ["records/d.json"]) == f"m/{DESK}-000005.age"


def test_a_second_compaction_keeps_the_names_a_first_one_folded(folder: Folder) -> None:
    folder.add(DESK, "desk", ["records/b.json"])
    folder.add(LAPTOP, "laptop", ["records/a.json"])
    first = _compact(folder, bound=1)
    assert first is not None
    folder.add(LAPTOP, "laptop", ["records/c.json"])
    second = _compact(folder, bound=1)
    assert second is not None and second.removed == [first.written, f"m/{LAPTOP}-000004.age"]
    union = folder.read(second.written)
    assert union.names() == {LAPTOP: "laptop", DESK: "desk"}
    assert sorted(union.paths) == ["records/a.json", "records/b.json", "records/c.json"]


def test_a_manifest_this_key_cannot_open_stops_the_compaction(folder: Folder) -> None:
    folder.add(LAPTOP, "laptop", ["records/a.json"])
    other = AgeCodec(SyncKey.generate())
    folder.write(f"m/{DESK}-000002.age", other.seal(Manifest(DESK, "desk", []).encode()))
    with pytest.raises(SyncKeyWrong):
        _compact(folder, bound=1)
    assert len(manifests.listed(folder.root)) == 2
