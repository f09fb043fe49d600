"""The safe record read: whole files up to the limit, never links, never special files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import core.store.safefs
from core.errors import NotFound, OversizedFile, UnsafePath
from core.store.safefs import read_regular_file


@settings(max_examples=60, deadline=None)
@given(size=st.integers(min_value=0, max_value=3 * 65536 + 7))
def test_reads_every_byte_up_to_the_limit(
    tmp_path_factory: pytest.TempPathFactory, size: int
) -> None:
    root = tmp_path_factory.mktemp("journal")
    path = root / "record.json"
    data = os.urandom(size)
    path.write_bytes(data)
    assert read_regular_file(root, path, size) == data
    if size:
        with pytest.raises(OversizedFile):
            read_regular_file(root, path, size - 1)


def _stat_says(monkeypatch: pytest.MonkeyPatch, size: int) -> None:
    """The file changes size between its stat and its read."""
    real_fstat = os.fstat

    class Stat:
        def __init__(self, info: os.stat_result) -> None:
            self.st_mode, self.st_size = info.st_mode, size

    monkeypatch.setattr(core.store.safefs.os, "fstat", lambda fd: Stat(real_fstat(fd)))


def test_a_file_that_grew_after_its_stat_is_read_in_full(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "record.json"
    path.write_bytes(b"x" * 200_000)
    _stat_says(monkeypatch, 10)
    assert read_regular_file(tmp_path, path, 1 << 20) == b"x" * 200_000
    with pytest.raises(OversizedFile):
        read_regular_file(tmp_path, path, 150_000)


def _counted_reads(monkeypatch: pytest.MonkeyPatch, most: int | None = None) -> list[int]:
    """Records each os.read's length; `most` makes every read short, as a network file may."""
    lengths: list[int] = []
    real_read = os.read

    def read(fd: int, wanted: int) -> bytes:
        chunk = real_read(fd, wanted if most is None else min(wanted, most))
        lengths.append(len(chunk))
        return chunk

    monkeypatch.setattr(core.store.safefs.os, "read", read)
    return lengths


def test_a_file_of_its_stat_size_is_read_in_one_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "record.json"
    path.write_bytes(b"y" * 5000)
    reads = _counted_reads(monkeypatch)
    assert read_regular_file(tmp_path, path, 1 << 20) == b"y" * 5000
    assert reads == [5000]


@pytest.mark.parametrize("size", [0, 1, 4096, 70_000])
def test_short_reads_and_a_shrunk_file_are_read_to_their_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: int
) -> None:
    path = tmp_path / "record.json"
    path.write_bytes(b"z" * size)
    reads = _counted_reads(monkeypatch, most=1000)
    assert read_regular_file(tmp_path, path, 1 << 20) == b"z" * size
    assert sum(reads) == size and reads[-1] in (0, size % 1000 or 1000)
    path.write_bytes(b"z" * 10)
    _stat_says(monkeypatch, 5000)
    assert read_regular_file(tmp_path, path, 1 << 20) == b"z" * 10


def test_links_special_files_and_missing_files_are_refused(tmp_path: Path) -> None:
    target = tmp_path / "target.json"
    target.write_bytes(b"{}")
    (tmp_path / "link.json").symlink_to(target)
    with pytest.raises(UnsafePath):
        read_regular_file(tmp_path, tmp_path / "link.json", 100, parents_checked=True)
    os.mkfifo(tmp_path / "pipe.json")
    with pytest.raises(UnsafePath):
        read_regular_file(tmp_path, tmp_path / "pipe.json", 100)
    with pytest.raises(NotFound):
        read_regular_file(tmp_path, tmp_path / "missing.json", 100)
