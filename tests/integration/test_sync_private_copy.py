"""The sync working copy is private whatever the umask, and `doctor` agrees after a sync.

Git writes its files with the user's umask (0644 under the usual 022); the working copy is set
up with `core.sharedRepository=0600`, a copy set up before that is made private by its next
sync, and `doctor` reports a `sync/` others can read once, not once per file inside it.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.doctor import SYNC_DIR
from core.sync.state import WORKING_COPY
from tests.integration.sync_machines import Machine, synced_pair


@pytest.fixture(autouse=True)
def usual_umask() -> Iterator[None]:
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def _open_entries(folder: Path) -> list[str]:
    found = []
    for directory, dirnames, filenames in os.walk(folder):
        for name in [*dirnames, *filenames, ""]:
            path = Path(directory) / name
            if not path.is_symlink() and stat.S_IMODE(path.lstat().st_mode) & 0o077:
                found.append(str(path))
    return found


def _doctor(machine: Machine) -> tuple[int, list[dict[str, str]]]:
    result = machine.run("doctor", "--json")
    return result.returncode, json.loads(result.stdout)["findings"]


@pytest.fixture
def pair(tmp_path: Path) -> tuple[Machine, Machine]:
    laptop, desk, _ = synced_pair(tmp_path)
    return laptop, desk


def test_doctor_finds_a_synced_journal_healthy(pair: tuple[Machine, Machine]) -> None:
    assert SYNC_DIR == WORKING_COPY
    for machine in pair:
        assert _open_entries(machine.root / "sync") == []
        assert _doctor(machine) == (0, [])


def test_a_sync_folder_others_can_read_is_one_finding(pair: tuple[Machine, Machine]) -> None:
    laptop, _ = pair
    (laptop.root / "sync").chmod(0o755)
    code, findings = _doctor(laptop)
    assert code == 6
    assert [(f["path"], f["runbook"]) for f in findings] == [
        (str(laptop.root / "sync"), "permissions-too-open")
    ]


def test_a_copy_set_up_before_the_setting_is_made_private_by_its_next_sync(
    pair: tuple[Machine, Machine],
) -> None:
    laptop, desk = pair
    copy = laptop.root / "sync"
    subprocess.run(["git", "-C", str(copy), "config", "--unset", "core.sharedRepository"])
    for directory, _, filenames in os.walk(copy):
        os.chmod(directory, 0o755)
        for name in filenames:
            os.chmod(Path(directory) / name, 0o644)
    assert len(_open_entries(copy)) > 20
    desk.edit("decision-laptop-1", "desk's reason")
    desk.ok("sync", "now")
    laptop.ok("sync", "now")  # fetches new objects, as git writes them after the repair
    assert _open_entries(copy) == []
    assert _doctor(laptop) == (0, [])
    assert laptop.store.get("decision-laptop-1").selection_reason_raw == "desk's reason"
