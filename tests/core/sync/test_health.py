"""What `doctor` says of sync: a sync that failed (a missing key included), one that stalls,
a remote whose journal branch is gone; never "healthy" while any of them holds."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from core.errors import INTERRUPTED_ENTRY, ROLLBACK_ENTRY, JournalError
from core.sync import health
from core.sync.engine import SyncEngine
from core.sync.report import STALLED_AFTER
from core.sync.state import RUNNING
from core.sync.status import sync_status


@pytest.fixture
def synced(tmp_path: Path) -> tuple[SyncEngine, Path, Path]:
    """A journal that synced once, encrypted with a key file, to a bare remote."""
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    root, key_file = tmp_path / "journal", tmp_path / "sync.key"
    engine = SyncEngine(root)
    engine.init(f"file://{remote}", encrypt=True, key_file=str(key_file))
    return SyncEngine(root), remote, key_file


def _entries(root: Path) -> list[tuple[str, str]]:
    return [(f.runbook, f.problem) for f in health.check_sync(root).findings]


def test_a_synced_journal_has_no_sync_finding(synced: tuple[SyncEngine, Path, Path]) -> None:
    engine, _, _ = synced
    found = health.check_sync(engine.root)
    assert found.findings == [] and found.remote_line == "Sync: the remote answers."


def test_a_sync_without_its_key_is_an_error_and_never_left_running(
    synced: tuple[SyncEngine, Path, Path],
) -> None:
    engine, _, key_file = synced
    key_file.unlink()
    with pytest.raises(JournalError):
        engine.sync()
    assert sync_status(engine)["state"] == "error"
    assert [anchor for anchor, _ in _entries(engine.root)] == [INTERRUPTED_ENTRY]


def test_a_sync_running_far_longer_than_any_can_is_stalled(
    synced: tuple[SyncEngine, Path, Path],
) -> None:
    engine, _, _ = synced
    engine.files.mark(RUNNING)  # this live process "syncs"
    assert sync_status(engine)["state"] == "syncing"
    assert _entries(engine.root) == []  # a sync that just started is no finding
    long_ago = time.time() - STALLED_AFTER - 120
    os.utime(engine.files.slot_path, (long_ago, long_ago))
    assert sync_status(engine)["state"] == "stalled"
    ((anchor, message),) = _entries(engine.root)
    assert anchor == INTERRUPTED_ENTRY and "stalled" in message, message


def test_a_remote_whose_branch_is_gone_is_a_rollback_finding(
    synced: tuple[SyncEngine, Path, Path],
) -> None:
    engine, remote, _ = synced
    subprocess.run(
        ["git", f"--git-dir={remote}", "update-ref", "-d", "refs/heads/main"], check=True
    )
    found = health.check_sync(engine.root)
    assert [(f.runbook, f.problem) for f in found.findings] == [
        (ROLLBACK_ENTRY, health.WIPED_FINDING)
    ]
    assert "holds no journal" in found.remote_line
    assert engine.sync().refused[0].kind == "rollback"  # said, and the journal pushed back
    assert health.check_sync(engine.root).findings[0].runbook == ROLLBACK_ENTRY
    engine.sync()
    assert health.check_sync(engine.root).findings == []
