"""Quitting while a sync waits on the remote: the app stops it at once, nothing is half-applied,
and the next sync finishes what it started.

The remote is reached through a stand-in `ssh` (the working copy's `core.sshCommand`, as a
user's own would be) that runs git's remote side locally and hangs on a push while told to.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from app.sync_service import SyncService
from core.errors import SyncCancelled
from core.journal import Journal
from core.sync.engine import SyncEngine
from core.sync.gitrepo import GitRepo
from tests.app.support.sync_support import QUIET, WAIT_MS, CountingEngine, make_pair
from tests.app.support.teardown import settle
from tests.factories import make_record
from tests.integration.sync_machines import bare_remote

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore(r"No such signal QPlatformNativeInterface::systemTrayWindowChanged"),
]

QUIT_WITHIN_S = 2.0
FAKE_SSH = """#!/bin/sh
for last; do :; done
case "$last" in
  *receive-pack*)
    if [ -e {hang} ]; then
      echo $$ > {pid}
      sleep 60
    fi ;;
esac
exec sh -c "$last"
"""


def _hanging_remote(tmp_path: Path, journal: Journal, remote: Path) -> tuple[Path, Path]:
    """Points the journal's working copy at the remote through the stand-in ssh; returns the
    file that makes pushes hang while it exists and the file the hung ssh writes its pid to."""
    hang, pid = tmp_path / "hang", tmp_path / "ssh.pid"
    script = tmp_path / "fake-ssh"
    script.write_text(FAKE_SSH.format(hang=hang, pid=pid))
    script.chmod(0o700)
    repo = GitRepo(journal.root / "sync")
    repo.run("config", "core.sshCommand", str(script))
    repo.run("remote", "set-url", "origin", f"ssh://127.0.0.1{remote}")
    hang.touch()
    return hang, pid


def _alive(pid: int) -> bool:
    """Whether the process runs (a zombie waiting for a parent to reap it has ended)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    return "\nState:\tZ" not in status


def test_quit_during_a_push_stops_the_sync_at_once_and_the_next_sync_pushes(
    qtbot: QtBot, tmp_path: Path
) -> None:
    pair = make_pair(tmp_path)
    laptop, desk, remote = pair.laptop, pair.desk, pair.remote
    hang, pid_file = _hanging_remote(tmp_path, laptop, remote)
    state_file = laptop.root / "sync/.git/decision-journal/state.json"
    before = json.loads(state_file.read_text())

    service = SyncService(laptop.root, timing=QUIET, engine=CountingEngine(laptop.root))
    laptop.store.add_listener(service.listener)
    try:
        service.start()
        qtbot.waitUntil(lambda: service.configured, timeout=WAIT_MS)
        laptop.store.put(make_record(id="decision-laptop-2", problem="Choose the queue"))
        qtbot.waitUntil(pid_file.exists, timeout=WAIT_MS)
        qtbot.waitUntil(lambda: bool(pid_file.read_text().strip()), timeout=WAIT_MS)
        ssh_pid = int(pid_file.read_text())
        assert service.schedule.running
        began = time.monotonic()
        service.stop()
        took = time.monotonic() - began
    finally:
        service.stop()
        service.deleteLater()
        settle(qtbot)
    assert took < QUIT_WITHIN_S, f"quit waited {took:.1f} s for the sync"
    assert not _alive(ssh_pid), "the hung ssh outlived the cancelled push"
    after = json.loads(state_file.read_text())
    assert (after["last_result"], after["last_error"]) == (before["last_result"], "")
    laptop_git = laptop.root / "sync" / ".git"
    assert [*laptop_git.glob("*.lock"), *laptop_git.glob("refs/**/*.lock")] == []

    hang.unlink()
    report = SyncEngine(laptop.root).sync()
    assert report.result == "synced"
    SyncEngine(desk.root).sync()
    assert desk.store.get("decision-laptop-2").problem == "Choose the queue"


def test_a_cancelled_engine_starts_no_further_git(tmp_path: Path) -> None:
    _, url = bare_remote(tmp_path)
    journal = Journal(tmp_path / "journal")
    journal.store.put(make_record(id="decision-one-1", problem="Pick the cache policy"))
    engine = SyncEngine(journal.root)
    engine.init(url, encrypt=False)
    engine.cancel()
    state_file = journal.root / "sync/.git/decision-journal/state.json"
    before = state_file.read_bytes()
    with pytest.raises(SyncCancelled, match="cancelled"):
        engine.sync()
    assert state_file.read_bytes() == before
