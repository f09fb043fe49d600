"""Moving a damaged file aside keeps every byte inside the journal and refuses anything else."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from core.errors import UnsafePath
from core.gocompat.gotime import GoTime
from core.store.quarantine import move_aside, quarantine_target

WHEN = GoTime(1_760_000_000 * 1_000_000_000)


def _damaged(root: Path) -> Path:
    records = root / "records"
    records.mkdir(parents=True)
    path = records / "decision-broken.json"
    path.write_bytes(b"{not json")
    return path


def test_the_file_moves_into_a_stamped_private_quarantine_folder(tmp_path: Path) -> None:
    path = _damaged(tmp_path)
    moved = move_aside(tmp_path, path, WHEN)
    assert moved == tmp_path / "quarantine" / WHEN.compact_stamp() / "records" / path.name
    assert moved.read_bytes() == b"{not json" and not path.exists()
    if os.name == "posix":
        assert stat.S_IMODE((tmp_path / "quarantine").stat().st_mode) == 0o700
        assert stat.S_IMODE(moved.parent.stat().st_mode) == 0o700


def test_nothing_is_overwritten_and_nothing_outside_moves(tmp_path: Path) -> None:
    path = _damaged(tmp_path)
    target = quarantine_target(tmp_path, path, WHEN)
    target.parent.mkdir(parents=True)
    target.write_bytes(b"earlier")
    with pytest.raises(UnsafePath):
        move_aside(tmp_path, path, WHEN)
    assert path.exists() and target.read_bytes() == b"earlier"
    outside = tmp_path.parent / f"{tmp_path.name}-outside.json"
    outside.write_text("{}")
    with pytest.raises(UnsafePath):
        move_aside(tmp_path, outside, WHEN)
    with pytest.raises(UnsafePath):
        move_aside(tmp_path, tmp_path / "profile.json", WHEN)


def test_links_and_folders_are_refused(tmp_path: Path) -> None:
    path = _damaged(tmp_path)
    link = path.parent / "decision-link.json"
    link.symlink_to(path)
    with pytest.raises(UnsafePath):
        move_aside(tmp_path, link, WHEN)
    folder = path.parent / "decision-folder.json"
    folder.mkdir()
    with pytest.raises(UnsafePath):
        move_aside(tmp_path, folder, WHEN)
    with pytest.raises(FileNotFoundError):
        move_aside(tmp_path, path.parent / "decision-gone.json", WHEN)
