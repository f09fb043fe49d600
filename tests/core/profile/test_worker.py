"""The background rebuild worker: coalescing, never blocking a commit, cancellation, errors."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from core.errors import LockCancelled
from core.journal import Journal
from core.profile.model import ProfileStatus
from core.profile.store import CancelScope, ProfileStore, RebuildResult
from core.profile.worker import ProfileRebuildWorker
from core.store.locking import locked
from core.store.safefs import ensure_private_dir
from tests.factories import decision

ROOT = Path(__file__).resolve().parents[3]


class Recorder:
    """A ProfileObserver that keeps every state it is told about."""

    def __init__(self) -> None:
        self.states: list[ProfileStatus] = []

    def on_state_changed(self, status: ProfileStatus) -> None:
        self.states.append(status)


def eventually(check: Callable[[], bool], timeout: float = 5.0) -> bool:
    """Observers are told just after the worker turns idle, on the worker thread."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


@contextlib.contextmanager
def holding_profile_lock(journal: Journal) -> Iterator[None]:
    """Holds the profile lock as another thread of this process would."""
    ensure_private_dir(journal.profile.root, journal.profile.directory)
    with locked(journal.profile.root, journal.profile.path):
        yield


@pytest.fixture
def journal(tmp_path: Path) -> Iterator[Journal]:
    yield Journal(tmp_path / "journal")


@pytest.fixture
def worker(journal: Journal) -> Iterator[ProfileRebuildWorker]:
    worker = journal.start_profile_worker()
    yield worker
    assert worker.stop(timeout=5)


def test_many_requests_during_a_slow_rebuild_cause_exactly_one_more(journal: Journal) -> None:
    started, release = threading.Event(), threading.Event()
    calls: list[float] = []

    def slow(scope: CancelScope) -> None:
        calls.append(time.monotonic())
        started.set()
        release.wait(10)

    worker = ProfileRebuildWorker(journal.profile, rebuild=slow)
    worker.request_rebuild()
    assert started.wait(5)
    for _ in range(50):
        worker.request_rebuild()
    assert worker.status().state == "rebuilding"
    release.set()
    assert worker.wait_idle(5)
    assert len(calls) == 2 and worker.rebuilds_started == 2
    assert worker.stop()


def test_commit_triggers_a_rebuild_and_the_profile_catches_up(
    journal: Journal, worker: ProfileRebuildWorker
) -> None:
    recorder = Recorder()
    worker.add_observer(recorder)
    journal.store.put(decision(1, domains=()))
    journal.store.put(decision(2, domains=()))
    assert worker.wait_idle(10)
    assert worker.status().state == "current"
    assert len(journal.profile.load().rules) == 1
    assert recorder.states[0].state == "rebuilding"
    assert eventually(lambda: recorder.states[-1].state == "current")
    assert journal.profile.status().state == "current"


def test_mutation_does_not_wait_for_the_rebuild(
    journal: Journal, worker: ProfileRebuildWorker
) -> None:
    journal.store.put(decision(1))
    assert worker.wait_idle(10)
    with holding_profile_lock(journal):
        began = time.monotonic()
        journal.store.revise("decision-1", 1, lambda r: setattr(r, "tags", ["t"]))
        assert time.monotonic() - began < 2
        assert eventually(lambda: worker.rebuilds_started == 2)  # blocked on the lock meanwhile
        assert worker.status().state == "rebuilding"
        assert journal.profile.status().state == "stale"
    assert worker.wait_idle(10)
    assert worker.status().state == "current"


class Outcomes:
    """The real rebuild, and how each call of it ended: None when it finished, else what it
    raised. A cancelled rebuild raises `LockCancelled`; one that was only slow finishes."""

    def __init__(self, profiles: ProfileStore) -> None:
        self.profiles = profiles
        self.ended: list[BaseException | None] = []

    def rebuild(self, scope: CancelScope) -> RebuildResult:
        try:
            result = self.profiles.rebuild(cancel=scope, timeout=None)
        except BaseException as exc:
            self.ended.append(exc)
            raise
        self.ended.append(None)
        return result


def test_stop_cancels_a_rebuild_blocked_on_the_lock_and_nothing_is_written(
    journal: Journal,
) -> None:
    outcomes = Outcomes(journal.profile)
    worker = ProfileRebuildWorker(journal.profile, rebuild=outcomes.rebuild)
    journal.store.put(decision(1))
    with holding_profile_lock(journal):
        worker.request_rebuild()
        assert eventually(lambda: worker.rebuilds_started == 1)  # running: waits for the lock
        began = time.monotonic()
        assert worker.stop(timeout=1)  # and its thread has ended: nothing of it runs any more
        assert time.monotonic() - began < 1
    assert len(outcomes.ended) == 1 and isinstance(outcomes.ended[0], LockCancelled)
    assert not journal.profile.path.exists()
    worker.request_rebuild()  # ignored after stop
    assert not worker.busy and worker.rebuilds_started == 1


def test_stop_is_prompt_while_another_process_holds_the_lock(journal: Journal) -> None:
    journal.store.put(decision(1))
    journal.profile.directory.mkdir(mode=0o700)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(
                """
                import sys, time
                from pathlib import Path
                from core.store.locking import locked
                root = Path(sys.argv[1])
                with locked(root, root / "profiles" / "profile.json"):
                    print("held", flush=True)
                    time.sleep(30)
                """
            ),
            str(journal.profile.root),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        outcomes = Outcomes(journal.profile)
        worker = ProfileRebuildWorker(journal.profile, rebuild=outcomes.rebuild)
        worker.request_rebuild()
        assert eventually(lambda: worker.rebuilds_started == 1)  # running: waits for the lock
        assert worker.status().state == "rebuilding"
        began = time.monotonic()
        assert worker.stop(timeout=1)
        assert time.monotonic() - began < 1
        assert len(outcomes.ended) == 1 and isinstance(outcomes.ended[0], LockCancelled)
    finally:
        holder.kill()
        holder.communicate()
    assert not journal.profile.path.exists()


def test_failed_rebuild_keeps_the_last_good_profile_and_reports(
    journal: Journal, worker: ProfileRebuildWorker
) -> None:
    recorder = Recorder()
    worker.add_observer(recorder)
    journal.store.put(decision(1, domains=()))
    journal.store.put(decision(2, domains=()))
    assert worker.wait_idle(10)
    good = journal.profile.path.read_bytes()
    record_file = journal.store.records_dir / "decision-2.json"
    healthy = record_file.read_bytes()
    record_file.write_bytes(b"{not json")
    worker.request_rebuild()
    assert worker.wait_idle(10)
    status = worker.status()
    assert status.state == "error"
    assert "unreadable-record" in status.error and "decision-2.json" in status.error
    assert eventually(lambda: recorder.states[-1].state == "error")
    assert journal.profile.path.read_bytes() == good
    record_file.write_bytes(healthy)
    worker.request_rebuild()
    assert worker.wait_idle(10)
    assert worker.status() == journal.profile.status()
    assert worker.status().state == "current"


def test_an_error_is_cleared_when_another_process_repairs_the_profile(journal: Journal) -> None:
    def failing(scope: CancelScope) -> None:
        raise OSError("disk full")

    worker = ProfileRebuildWorker(journal.profile, rebuild=failing)
    journal.store.put(decision(1))
    worker.request_rebuild()
    assert worker.wait_idle(5)
    assert worker.status().state == "error" and "disk full" in worker.status().error
    ProfileStore(journal.profile.root, journal.store).rebuild()
    assert worker.status().state == "current"
    assert worker.stop()


def test_a_broken_observer_does_not_stop_rebuilds(journal: Journal) -> None:
    class Broken:
        def on_state_changed(self, status: ProfileStatus) -> None:
            raise RuntimeError("observer bug")

    worker = ProfileRebuildWorker(journal.profile)
    worker.add_observer(Broken())
    journal.store.put(decision(1))
    worker.request_rebuild()
    assert worker.wait_idle(10)
    assert journal.profile.load().revision == 1
    assert worker.stop()
