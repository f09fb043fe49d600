"""The remote's history has one commit per real change: idle syncs add nothing, a change made on
one side reaches the other as a fast-forward, and only changes on both sides make a merge."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.integration.sync_machines import (
    Machine,
    assert_kernforge_valid,
    remote_commits,
    synced_pair,
)


@pytest.fixture
def pair(tmp_path: Path) -> tuple[Machine, Machine, Path]:
    return synced_pair(tmp_path)


def _rev(git_dir: Path, ref: str) -> str:
    return subprocess.run(
        ["git", f"--git-dir={git_dir}", "rev-parse", ref],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


def test_idle_syncs_commit_and_push_nothing(pair: tuple[Machine, Machine, Path]) -> None:
    laptop, desk, remote = pair
    before = remote_commits(remote)
    for machine in (laptop, desk, laptop, desk):
        machine.ok("sync", "now")
    assert remote_commits(remote) == before
    for machine in (laptop, desk):
        assert _rev(machine.root / "sync" / ".git", "HEAD") == _rev(remote, "main")


def test_a_one_sided_change_is_a_fast_forward(pair: tuple[Machine, Machine, Path]) -> None:
    laptop, desk, remote = pair
    before = remote_commits(remote)
    laptop.edit("decision-desk-1", "laptop's reason")
    laptop.ok("sync", "now")
    desk.ok("sync", "now")
    laptop.ok("sync", "now")
    after = remote_commits(remote)
    assert len(after) == len(before) + 1
    assert len(after[0]) == 1, after[0]  # one parent: no merge commit
    assert desk.store.get("decision-desk-1").selection_reason_raw == "laptop's reason"
    desk.edit("decision-laptop-1", "desk's reason")
    desk.ok("sync", "now")
    laptop.ok("sync", "now")
    desk.ok("sync", "now")
    assert [len(parents) for parents in remote_commits(remote)[:2]] == [1, 1]
    assert laptop.store.get("decision-laptop-1").selection_reason_raw == "desk's reason"
    for machine in (laptop, desk):
        assert_kernforge_valid(machine)


def test_changes_on_both_sides_make_one_merge_then_settle(
    pair: tuple[Machine, Machine, Path],
) -> None:
    laptop, desk, remote = pair
    laptop.edit("decision-desk-1", "laptop's reason")
    desk.edit("decision-laptop-1", "desk's reason")
    laptop.ok("sync", "now")
    desk.ok("sync", "now")
    merged = remote_commits(remote)
    assert len(merged[0]) == 2  # the desk's merge of both sides
    for machine in (laptop, desk, laptop, desk):
        machine.ok("sync", "now")
    assert remote_commits(remote) == merged
    assert laptop.store.get("decision-laptop-1").selection_reason_raw == "desk's reason"


def _import_row(machine: Machine, folder: Path, n: int) -> None:
    log = folder / f"decisions-{n}.md"
    log.write_text(
        "# Decisions\n\n| Date | Decision | Reason |\n|---|---|---|\n"
        f"| 2026-11-{10 + n:02d} | Use cache layer {n} | measured it, round {n} |\n"
    )
    machine.ok("import", str(log), "--from", "decisions-md")


def test_receiving_a_longer_log_pushes_nothing_back(
    pair: tuple[Machine, Machine, Path], tmp_path: Path
) -> None:
    """The import ledger grows on one machine; the other, whose copy is a prefix of it, takes
    the remote's file as it is and has nothing to push."""
    laptop, desk, remote = pair
    _import_row(laptop, tmp_path, 1)
    laptop.ok("sync", "now")
    desk.ok("sync", "now")
    _import_row(laptop, tmp_path, 2)
    laptop.ok("sync", "now")
    before = remote_commits(remote)
    desk.ok("sync", "now")
    laptop.ok("sync", "now")
    assert remote_commits(remote) == before
