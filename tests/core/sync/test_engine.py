"""One sync's own decisions, through `SyncEngine`'s public calls, against bare repositories on
this machine (git is the engine's real collaborator; these run in well under a second each).

What is checked here is what the engine decides: when it refuses to set up, what a set-up cut
short leaves, that offline is a result and not an error, that a remote whose branch is gone is
reported as rolled back and gets the journal back, that a cancelled sync stops while it waits,
and how a failure is worded. Several machines exchanging decisions, encryption and hostile
remotes are tested in tests/integration/test_sync_*.py.
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest

from core.errors import (
    InvalidDecision,
    SyncAlreadyConfigured,
    SyncCancelled,
    SyncNotConfigured,
    SyncRemoteError,
)
from core.store.decisions import DecisionStore
from core.store.locking import locked
from core.store.temp_sweep import STALE_AFTER_SECONDS
from core.sync.engine import STAGING_PREFIX, WIPED_NAME, SyncEngine, describe_failure
from core.sync.report import OFFLINE, REFUSED, ROLLBACK, SYNCED
from tests.factories import make_record

BRANCH_REF = "refs/heads/main"


def bare_remote(path: Path) -> str:
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(path)], check=True)
    return f"file://{path}"


def remote_head(path: Path) -> str:
    found = subprocess.run(
        ["git", "--git-dir", str(path), "rev-parse", "--verify", "-q", BRANCH_REF],
        capture_output=True,
        text=True,
        check=False,
    )
    return found.stdout.strip()


def journal(root: Path, *ids: str) -> Path:
    store = DecisionStore(root)
    for record_id in ids:
        store.put(make_record(id=record_id, problem=f"Choose for {record_id}"))
    return root


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    path = tmp_path / "remote.git"
    bare_remote(path)
    return path


@pytest.fixture
def synced(tmp_path: Path, remote: Path) -> SyncEngine:
    """A journal of one decision that has synced with `remote`, unencrypted."""
    engine = SyncEngine(journal(tmp_path / "journal", "decision-1"))
    engine.init(f"file://{remote}", encrypt=False, name="laptop")
    return engine


def leftovers(engine: SyncEngine) -> list[str]:
    """What a set-up wrote in the journal folder: its working copy, or a staging folder."""
    copy = engine.files.working_copy
    return sorted(p.name for p in engine.root.iterdir() if p == copy or STAGING_PREFIX in p.name)


def test_a_journal_that_does_not_sync_says_how_to_start(tmp_path: Path) -> None:
    engine = SyncEngine(journal(tmp_path / "journal", "decision-1"))
    assert not engine.configured
    for call in (engine.config, engine.sync, lambda: engine.rename("desk")):
        with pytest.raises(SyncNotConfigured, match="sync init --remote URL"):
            call()


def test_init_pushes_the_journal_and_a_second_init_is_refused(
    synced: SyncEngine, remote: Path
) -> None:
    assert synced.configured
    assert remote_head(remote) != ""
    assert synced.config().machine_name == "laptop"
    with pytest.raises(SyncAlreadyConfigured, match="sync off"):
        synced.init(f"file://{remote}", encrypt=False)


def test_a_sync_with_nothing_new_pushes_nothing(synced: SyncEngine, remote: Path) -> None:
    head = remote_head(remote)
    report = synced.sync()
    assert (report.result, report.sent, report.pushed) == (SYNCED, 0, 0)
    assert remote_head(remote) == head


@pytest.mark.parametrize(
    ("remote_holds_a_journal", "complaint"),
    [
        (True, "already holds commits; use `sync join"),  # init
        (False, "holds no journal yet"),  # join
    ],
)
def test_a_set_up_the_remote_does_not_fit_is_refused_and_leaves_nothing_behind(
    remote: Path, tmp_path: Path, remote_holds_a_journal: bool, complaint: str
) -> None:
    url = f"file://{remote}"
    engine = SyncEngine(journal(tmp_path / "journal", "decision-1"))
    if remote_holds_a_journal:
        SyncEngine(journal(tmp_path / "first", "decision-2")).init(url, encrypt=False)
    with pytest.raises(SyncRemoteError, match=complaint):
        if remote_holds_a_journal:
            engine.init(url, encrypt=False)
        else:
            engine.join(url, key=None)
    assert not engine.configured
    assert leftovers(engine) == []


def test_join_brings_the_remote_journal_here(
    synced: SyncEngine, remote: Path, tmp_path: Path
) -> None:
    desk = SyncEngine(journal(tmp_path / "desk", "decision-desk"))
    report = desk.join(f"file://{remote}", key=None, name="desk")
    assert report.result == SYNCED and report.applied == 1 and report.sent == 1
    assert (report.pushed, report.waited) == (1, 0)  # its own commit waited for nothing
    assert DecisionStore(desk.root).get("decision-1").problem == "Choose for decision-1"
    assert synced.sync().applied == 1  # and the desk's decision reaches the laptop
    assert DecisionStore(synced.root).get("decision-desk").revision == 1


def test_a_stale_set_up_is_cleared_and_a_fresh_one_kept(remote: Path, tmp_path: Path) -> None:
    root = journal(tmp_path / "journal", "decision-1")
    stale, fresh = root / f"{STAGING_PREFIX}killed", root / f"{STAGING_PREFIX}running"
    stale.mkdir()
    fresh.mkdir()
    old = time.time() - STALE_AFTER_SECONDS - 60
    os.utime(stale, (old, old))
    SyncEngine(root).init(f"file://{remote}", encrypt=False)
    assert not stale.exists()
    assert fresh.is_dir()  # another set-up may still be writing it


def test_an_unreachable_remote_is_offline_and_the_commit_waits_for_the_next_sync(
    synced: SyncEngine, remote: Path, tmp_path: Path
) -> None:
    DecisionStore(synced.root).put(make_record(id="decision-2", problem="Pick the queue"))
    away = tmp_path / "away.git"
    remote.rename(away)
    report = synced.sync()
    assert report.result == OFFLINE
    assert report.detail != ""
    assert report.sent == 1 and report.pushed == 0
    away.rename(remote)
    back = synced.sync()
    assert (back.result, back.sent, back.pushed) == (SYNCED, 0, 1)


def test_a_remote_whose_branch_is_gone_is_reported_rolled_back_and_gets_the_journal_back(
    synced: SyncEngine, remote: Path
) -> None:
    shutil.rmtree(remote)
    bare_remote(remote)  # replaced by an empty repository
    report = synced.sync()
    assert report.result == REFUSED
    assert [(r.name, r.kind) for r in report.refused] == [(WIPED_NAME, ROLLBACK)]
    assert remote_head(remote) != ""  # this machine's journal was pushed to it again
    assert synced.sync().result == SYNCED  # once back, the next sync is a normal one


def test_a_git_killed_mid_write_does_not_stop_the_next_sync(synced: SyncEngine) -> None:
    git = synced.files.working_copy / ".git"
    (git / "index.lock").write_text("")
    (git / "refs" / "heads" / "main.lock").write_text("")
    DecisionStore(synced.root).put(make_record(id="decision-2", problem="Pick the queue"))
    report = synced.sync()
    assert (report.result, report.sent, report.pushed, report.waited) == (SYNCED, 1, 1, 0)
    assert not (git / "index.lock").exists()


def test_a_sync_cancelled_while_another_holds_the_lock_stops_at_once(
    synced: SyncEngine,
) -> None:
    errors: list[BaseException] = []

    def second_sync() -> None:
        try:
            synced.sync()
        except BaseException as exc:  # handed to the test's thread
            errors.append(exc)

    with locked(synced.root, synced.files.directory / "sync"):  # as another sync holds it
        worker = threading.Thread(target=second_sync)
        worker.start()
        synced.cancel()
        worker.join(timeout=10)
        assert not worker.is_alive(), "the cancelled sync still waits for the lock"
    assert len(errors) == 1 and isinstance(errors[0], SyncCancelled), errors
    assert "while waiting for another" in str(errors[0])


def test_rename_keeps_a_trimmed_name_and_refuses_an_empty_one(synced: SyncEngine) -> None:
    assert synced.rename("  desk at home ") == "desk at home"
    assert synced.config().machine_name == "desk at home"
    with pytest.raises(InvalidDecision, match="machine name must be 1 to"):
        synced.rename("   ")
    assert synced.config().machine_name == "desk at home"


def test_off_removes_the_working_copy_and_keeps_the_journal(
    synced: SyncEngine, remote: Path
) -> None:
    head = remote_head(remote)
    synced.off(forget_key=False)
    assert not synced.configured
    assert not synced.files.working_copy.exists()
    assert DecisionStore(synced.root).get("decision-1").revision == 1
    assert remote_head(remote) == head


def test_failures_are_described_in_one_plain_line() -> None:
    full = OSError(errno.ENOSPC, "No space left on device", "/j/records/a.json")
    assert describe_failure(full).startswith("cannot sync /j/records/a.json: the disk is full")
    assert describe_failure(RuntimeError("first line\nsecond line")) == "first line"
    assert describe_failure(RuntimeError()) == "RuntimeError"
