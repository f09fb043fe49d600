"""The safe record read: whole files up to the limit, never links, never special files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import core.safefs
from core.errors import NotFound, OversizedFile, UnsafePath
from core.safefs import read_regular_file


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


def test_a_file_that_grew_after_its_stat_is_read_in_full(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "record.json"
    path.write_bytes(b"x" * 200_000)
    real_fstat = os.fstat

    class Shrunk:
        def __init__(self, info: os.stat_result) -> None:
            self.st_mode, self.st_size = info.st_mode, 10

    monkeypatch.setattr(core.safefs.os, "fstat", lambda fd: Shrunk(real_fstat(fd)))
    assert read_regular_file(tmp_path, path, 1 << 20) == b"x" * 200_000
    with pytest.raises(OversizedFile):
        read_regular_file(tmp_path, path, 150_000)


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
