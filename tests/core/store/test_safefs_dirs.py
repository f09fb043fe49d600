"""`ensure_private_dir` on a fresh account: missing parents created 0700, existing ones kept."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from core.errors import UnsafePath
from core.store.safefs import ensure_private_dir


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_every_missing_parent_is_created_private(tmp_path: Path) -> None:
    tmp_path.chmod(0o755)
    root = tmp_path / "new" / "a" / "b"
    ensure_private_dir(root, root / "pending")
    for folder in (tmp_path / "new", tmp_path / "new" / "a", root, root / "pending"):
        assert _mode(folder) == 0o700, folder
    assert _mode(tmp_path) == 0o755  # existed before: the user's, not ours


def test_existing_parents_keep_their_mode(tmp_path: Path) -> None:
    share = tmp_path / ".local" / "share"
    share.mkdir(parents=True)
    share.chmod(0o755)
    root = share / "decision-journal"
    ensure_private_dir(root, root / "records")
    assert _mode(share) == 0o755
    assert _mode(root) == 0o700 and _mode(root / "records") == 0o700


def test_a_file_in_place_of_a_parent_is_refused(tmp_path: Path) -> None:
    (tmp_path / "blocker").write_text("")
    root = tmp_path / "blocker" / "journal"
    with pytest.raises(UnsafePath, match="not a directory"):
        ensure_private_dir(root, root / "pending")


def test_a_dangling_link_in_place_of_a_parent_is_refused(tmp_path: Path) -> None:
    (tmp_path / "gone").symlink_to(tmp_path / "nowhere")
    root = tmp_path / "gone" / "journal"
    with pytest.raises(UnsafePath, match="not a directory"):
        ensure_private_dir(root, root)
    assert not (tmp_path / "nowhere").exists()


def test_a_linked_parent_that_exists_is_followed(tmp_path: Path) -> None:
    """An existing home reached through a link (a /home on another disk) still works."""
    (tmp_path / "real").mkdir()
    (tmp_path / "home").symlink_to(tmp_path / "real")
    root = tmp_path / "home" / "share" / "journal"
    ensure_private_dir(root, root)
    assert (tmp_path / "real" / "share" / "journal").is_dir()
