"""A sync killed part-way leaves a consistent working copy and journal, and the next one finishes.

The kill lands after the merge was recorded and while remote files are being applied: the
hardest place, since the journal then holds part of what arrived.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from core.sync import workcopy
from core.sync.engine import SyncEngine
from tests.integration.sync_machines import (
    ROOT,
    Machine,
    assert_kernforge_valid,
    bare_remote,
    cli_env,
)


class Killed(BaseException):
    """Stands for the process dying: nothing after it runs, no handler catches it."""


def _two_machines(tmp_path: Path, records: int) -> tuple[Machine, Machine]:
    _, url = bare_remote(tmp_path)
    laptop, desk = Machine.make(tmp_path, "laptop"), Machine.make(tmp_path, "desk")
    laptop.put("decision-seed-1", "The first decision")
    laptop.init(url)
    desk.join(url, laptop.pairing())
    for n in range(records):
        laptop.put(f"decision-batch-{n:04d}", f"Batch decision {n}")
    laptop.edit("decision-seed-1", "edited before the batch went out")
    laptop.ok("sync", "now")
    desk.put("decision-desk-only", "Written on the desk meanwhile")
    return laptop, desk


def _converged(laptop: Machine, desk: Machine) -> None:
    laptop.ok("sync", "now")
    assert assert_kernforge_valid(laptop) == assert_kernforge_valid(desk)
    status = json.loads(desk.ok("sync", "status", "--json"))
    assert status["state"] == "synced", status
    assert status["pending_commits"] == 0


def test_a_merge_interrupted_while_applying_is_redone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    laptop, desk = _two_machines(tmp_path, 12)
    applied = []
    original = workcopy.WorkingCopy.apply_unit

    def dies_on_the_fifth(self: workcopy.WorkingCopy, *args: object, **kw: object) -> None:
        if len(applied) == 4:
            raise Killed
        applied.append(args)
        original(self, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(workcopy.WorkingCopy, "apply_unit", dies_on_the_fifth)
    with pytest.raises(Killed):
        SyncEngine(desk.root).sync()
    monkeypatch.setattr(workcopy.WorkingCopy, "apply_unit", original)
    state = json.loads((desk.root / "sync/.git/decision-journal/state.json").read_text())
    assert state["merging"]
    assert len(desk.store.list_with_issues().records) < 14  # part of it arrived
    assert_kernforge_valid(desk)
    desk.ok("sync", "now")
    records = {r.id for r in desk.store.list_with_issues().records}
    assert len(records) == 14 and "decision-desk-only" in records
    assert desk.store.get("decision-seed-1").revision == 2
    _converged(laptop, desk)


def test_a_sync_killed_with_sigkill_mid_merge_resumes(tmp_path: Path) -> None:
    laptop, desk = _two_machines(tmp_path, 300)
    state_file = desk.root / "sync/.git/decision-journal/state.json"
    process = subprocess.Popen(
        [sys.executable, "-m", "app.cli.main", "--journal", str(desk.root), "sync", "now"],
        cwd=ROOT,
        env=cli_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        if (
            state_file.exists()
            and '"merging":"' in state_file.read_text()
            and '"merging":""' not in state_file.read_text()
        ):
            time.sleep(0.2)
            os.kill(process.pid, signal.SIGKILL)
            break
        time.sleep(0.01)
    process.wait(timeout=30)
    assert process.returncode == -signal.SIGKILL, "the sync finished before it could be killed"
    assert_kernforge_valid(desk)
    desk.ok("sync", "now")
    assert len(desk.store.list_with_issues().records) == 302
    _converged(laptop, desk)
