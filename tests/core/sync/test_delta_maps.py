"""Maps saved by delta: what was saved comes back, a torn or stale log never corrupts it, and a
save writes what changed, not everything."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.sync import delta_maps
from core.sync.delta_maps import DeltaMaps, TrackedMap, changes_of


def _save(store: DeltaMaps, maps: dict[str, Any]) -> None:
    changes = [line for name, m in maps.items() for line in changes_of(name, m, lambda v: v)]
    store.save(changes, lambda: maps)
    for tracked in maps.values():
        if isinstance(tracked, TrackedMap):
            tracked.saved()


def _store(tmp_path: Path) -> DeltaMaps:
    return DeltaMaps(tmp_path, tmp_path / "state", "files")


def test_what_was_saved_comes_back_with_each_change(tmp_path: Path) -> None:
    known: TrackedMap[str] = TrackedMap()
    known["a"] = "records/a.json"
    known["b"] = "records/b.json"
    _save(_store(tmp_path), {"known": known})
    assert (tmp_path / "state" / "files.json").is_file()
    known["c"] = "records/c.json"
    del known["a"]
    known.pop("missing", None)
    _save(store := _store(tmp_path), {"known": known})
    assert store.load() == {"known": {"b": "records/b.json", "c": "records/c.json"}}


def test_a_save_appends_only_what_changed(tmp_path: Path) -> None:
    blobs: TrackedMap[list[Any]] = TrackedMap({f"d/{n:04d}": ["0" * 64, n] for n in range(2000)})
    store = _store(tmp_path)
    _save(store, {"blobs": blobs})
    snapshot = (tmp_path / "state" / "files.json").read_bytes()
    blobs["d/0007"] = ["1" * 64, 7]
    _save(store, {"blobs": blobs})
    log = (tmp_path / "state" / f"files-{store.generation}.log").read_bytes()
    assert (tmp_path / "state" / "files.json").read_bytes() == snapshot
    assert log.count(b"\n") == 1 and b"d/0007" in log and len(log) < 200
    assert _store(tmp_path).load() == {"blobs": dict(blobs)}


def test_a_torn_last_line_is_ignored_and_cut_off_by_the_next_save(tmp_path: Path) -> None:
    known: TrackedMap[str] = TrackedMap({"a": "1"})
    store = _store(tmp_path)
    _save(store, {"known": known})
    known["b"] = "2"
    _save(store, {"known": known})
    log = tmp_path / "state" / f"files-{store.generation}.log"
    with log.open("ab") as handle:
        handle.write(b'["known","c","3')  # a write cut short
    again = _store(tmp_path)
    assert again.load() == {"known": {"a": "1", "b": "2"}}
    known = TrackedMap({"a": "1", "b": "2"})
    known["d"] = "4"
    _save(again, {"known": known})
    assert _store(tmp_path).load() == {"known": {"a": "1", "b": "2", "d": "4"}}
    assert b'"c"' not in log.read_bytes()


def test_a_failed_append_leaves_the_log_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    known: TrackedMap[str] = TrackedMap({"a": "1"})
    store = _store(tmp_path)
    _save(store, {"known": known})
    known["b"] = "2"
    real_pwrite = os.pwrite

    def full_disk(fd: int, data: bytes, offset: int) -> int:
        real_pwrite(fd, data[: len(data) // 2], offset)
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(delta_maps.os, "pwrite", full_disk)
    with pytest.raises(OSError):
        _save(store, {"known": known})
    monkeypatch.setattr(delta_maps.os, "pwrite", real_pwrite)
    assert _store(tmp_path).load() == {"known": {"a": "1"}}
    _save(store, {"known": known})  # the changes are still tracked: the next save writes them
    assert _store(tmp_path).load() == {"known": {"a": "1", "b": "2"}}


def test_a_log_larger_than_its_snapshot_is_folded_and_a_stale_log_never_replayed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(delta_maps, "FOLD_MIN", 64)
    known: TrackedMap[str] = TrackedMap({"a": "1"})
    store = _store(tmp_path)
    _save(store, {"known": known})
    first = store.generation
    for n in range(20):
        known[f"k{n}"] = str(n)
        _save(store, {"known": known})
    assert store.generation > first
    logs = sorted(p.name for p in (tmp_path / "state").glob("files-*.log"))
    assert logs in ([], [f"files-{store.generation}.log"])
    # a log of an older generation (a fold cut short before removing it) is never read
    (tmp_path / "state" / f"files-{first}.log").write_bytes(b'["known","a",null]\n')
    assert _store(tmp_path).load() == {"known": dict(known)}


def test_a_map_replaced_whole_is_saved_whole(tmp_path: Path) -> None:
    store = _store(tmp_path)
    _save(store, {"blobs": TrackedMap({"x": [1], "y": [2]})})
    _save(store, {"blobs": {"z": [3]}})
    assert _store(tmp_path).load() == {"blobs": {"z": [3]}}


_OPS = st.lists(
    st.tuples(
        st.sampled_from(["set", "del", "clear", "save"]),
        st.sampled_from([f"k{n}" for n in range(6)]),
        st.integers(0, 5),
    ),
    max_size=40,
)


@settings(max_examples=60, deadline=None)
@given(ops=_OPS, fold_min=st.sampled_from([0, 80, 1 << 20]))
def test_any_sequence_of_changes_and_saves_loads_as_the_map(
    tmp_path_factory: pytest.TempPathFactory, ops: list[tuple[str, str, int]], fold_min: int
) -> None:
    root = tmp_path_factory.mktemp("maps")
    original = delta_maps.FOLD_MIN
    delta_maps.FOLD_MIN = fold_min
    try:
        tracked: TrackedMap[int] = TrackedMap()
        saved: dict[str, int] = {}
        store = DeltaMaps(root, root / "state", "files")
        for op, key, value in ops:
            if op == "set":
                tracked[key] = value
            elif op == "del":
                tracked.pop(key, None)
            elif op == "clear":
                tracked.clear()
            else:
                _save(store, {"m": tracked})
                saved = dict(tracked)
                store = DeltaMaps(root, root / "state", "files")  # as the next process
                assert (store.load() or {}).get("m", {}) == saved
    finally:
        delta_maps.FOLD_MIN = original
