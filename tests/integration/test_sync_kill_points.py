"""kill -9 of a sync at many random points: after each kill the journal is whole (the store's
strict read passes, every history chain is complete), nothing it held is lost or taken back,
`sync status` never says "synced" for the cut-short sync, and the next sync completes.

Each sync runs in a forked child (no interpreter start, so fifty kills stay quick) that is
SIGKILLed after a random delay within the time a whole sync takes; the kills land in export,
commit, fetch, screening, apply and push alike. When a sync finishes before its kill, the other
machine makes more changes, so every round has work to cut short.
"""

from __future__ import annotations

import os
import random
import signal
import time
from pathlib import Path

from core.store.decisions import DecisionStore
from core.sync.engine import SyncEngine
from core.sync.status import sync_status
from tests.integration.sync_machines import Machine, assert_kernforge_valid, bare_remote

KILLS = 50


def _fork_sync(root: Path) -> int:
    pid = os.fork()
    if pid == 0:  # the child: one sync, then out without running any of pytest's cleanup
        code = 0
        try:
            SyncEngine(root).sync()
        except BaseException:
            code = 1
        os._exit(code)
    return pid


def _timed_sync(root: Path) -> float:
    started = time.monotonic()
    pid = _fork_sync(root)
    os.waitpid(pid, 0)
    return time.monotonic() - started


def _kill_after(root: Path, delay: float) -> bool:
    """Starts a sync and SIGKILLs it after delay; True when the kill cut it short."""
    pid = _fork_sync(root)
    time.sleep(delay)
    finished, _ = os.waitpid(pid, os.WNOHANG)
    if finished:
        return False
    os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    return os.WIFSIGNALED(status)


def _revisions(machine: Machine) -> dict[str, int]:
    return {r.id: r.revision for r in DecisionStore(machine.root).list_with_issues().records}


def _more_work(laptop: Machine, round_number: int) -> None:
    for n in range(6):
        laptop.put(f"decision-r{round_number:03d}-{n}", f"Round {round_number} decision {n}")
    laptop.edit("decision-seed-1", f"edited in round {round_number}")
    SyncEngine(laptop.root).sync()


def test_fifty_kill_9_points_leave_the_journal_whole_and_the_next_sync_completes(
    tmp_path: Path,
) -> None:
    _, url = bare_remote(tmp_path)
    laptop, desk = Machine.make(tmp_path, "laptop"), Machine.make(tmp_path, "desk")
    laptop.put("decision-seed-1", "The first decision")
    laptop.init(url)
    desk.join(url, laptop.pairing())
    rng = random.Random(20261201)
    _more_work(laptop, 0)
    span = max(_timed_sync(desk.root), 0.3)
    kills, rounds, early, seen = 0, 0, 0, _revisions(desk)
    while kills < KILLS:
        rounds += 1
        assert rounds < KILLS * 4, f"only {kills} kills landed in {rounds} rounds"
        desk.put(f"decision-desk-{rounds:03d}", f"Written on the desk in round {rounds}")
        if rounds % 3 == 1:
            _more_work(laptop, rounds)
        if not _kill_after(desk.root, rng.uniform(0.0, span)):
            continue
        kills += 1
        assert_kernforge_valid(desk)
        now = _revisions(desk)
        assert all(now.get(i, 0) >= r for i, r in seen.items()), "a kill lost or took back"
        seen = now
        engine = SyncEngine(desk.root)
        slot = engine.files.slot()
        started = slot is not None and slot.result == "running"
        early += not started  # killed before the sync's first step: it changed nothing
        assert not started or sync_status(engine)["state"] == "error", slot
    assert early <= KILLS // 5, f"{early} of {KILLS} kills landed before the sync began"
    report = SyncEngine(desk.root).sync()
    assert report.result == "synced", [r.line() for r in report.refused]
    assert sync_status(SyncEngine(desk.root))["state"] == "synced"
    other = SyncEngine(laptop.root).sync()
    assert other.result == "synced", [r.line() for r in other.refused]
    assert assert_kernforge_valid(laptop) == assert_kernforge_valid(desk)
    assert set(_revisions(laptop)) == set(_revisions(desk))
