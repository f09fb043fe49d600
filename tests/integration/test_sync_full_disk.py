"""A disk that fills up while sync receives or joins: nothing half-applied is reported as done,
`sync status` says the sync failed (never "synced"), the journal stays whole, and once there is
room the next sync completes.

The journal lives on a small tmpfs mounted for the test (`tests.core.support.safefs_tmpfs`; CI
runs as root); the test is skipped, saying why, only where mounting is not allowed.
"""

from __future__ import annotations

import errno
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.errors import JournalError
from core.store.decisions import DecisionStore
from core.sync.engine import SyncEngine
from core.sync.keystore import KeyLocation, load_key
from core.sync.status import sync_status
from tests.core.support.safefs_tmpfs import mounted_tmpfs, resize
from tests.factories import make_record
from tests.integration.sync_machines import Machine, assert_kernforge_valid, bare_remote

RECORDS = 400


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    with mounted_tmpfs(tmp_path, "4m") as mount_point:
        yield mount_point


def _is_disk_full(error: BaseException) -> bool:
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, OSError) and seen.errno == errno.ENOSPC:
            return True
        if "space" in str(seen).lower() or "disk" in str(seen).lower():
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def test_a_disk_that_fills_while_receiving_reports_a_failure_and_resumes(
    tmp_path: Path, small_disk: Path
) -> None:
    _, url = bare_remote(tmp_path)
    laptop = Machine.make(tmp_path, "laptop")
    laptop.put("decision-seed-1", "The first decision")
    key_file = tmp_path / "laptop.key"
    SyncEngine(laptop.root).init(url, encrypt=True, key_file=str(key_file))
    key = load_key(KeyLocation("file", "", str(key_file)))
    desk_root = small_disk / "journal"
    SyncEngine(desk_root).join(url, key=key, key_file=str(tmp_path / "desk.key"))
    assert sync_status(SyncEngine(desk_root))["state"] == "synced"
    store = DecisionStore(laptop.root)
    for n in range(RECORDS):
        store.put(make_record(id=f"decision-bulk-{n:04d}", problem=f"Bulk decision {n}"))
    SyncEngine(laptop.root).sync()

    with pytest.raises((JournalError, OSError)) as caught:
        SyncEngine(desk_root).sync()
    assert _is_disk_full(caught.value), caught.value
    report = getattr(caught.value, "report", None)
    assert report is None or report.applied == 0  # nothing is reported as done
    status = sync_status(SyncEngine(desk_root))
    assert status["state"] == "error", status
    assert "stopped part-way" in status["last_error"], status
    assert "nothing was changed" not in str(caught.value)
    desk = Machine(desk_root, tmp_path / "desk.key")
    assert_kernforge_valid(desk)
    doctor = desk.run("doctor", "--json")
    assert doctor.returncode == 6, doctor.stderr
    entries = {f["runbook"] for f in json.loads(doctor.stdout)["findings"]}
    assert {"disk-full", "sync-interrupted"} <= entries, doctor.stdout

    resize(small_disk, "64m")
    report = SyncEngine(desk_root).sync()
    assert report.result == "synced"
    assert sync_status(SyncEngine(desk_root))["state"] == "synced"
    assert len(DecisionStore(desk_root).list_with_issues().records) == RECORDS + 1
    assert_kernforge_valid(desk)


def test_a_join_onto_a_full_disk_sets_nothing_half_up(tmp_path: Path, small_disk: Path) -> None:
    _, url = bare_remote(tmp_path)
    laptop = Machine.make(tmp_path, "laptop")
    store = DecisionStore(laptop.root)
    for n in range(RECORDS):
        store.put(make_record(id=f"decision-bulk-{n:04d}", problem=f"Bulk decision {n}"))
    key_file = tmp_path / "laptop.key"
    SyncEngine(laptop.root).init(url, encrypt=True, key_file=str(key_file))
    key = load_key(KeyLocation("file", "", str(key_file)))
    desk_root = small_disk / "journal"
    desk_key = tmp_path / "desk.key"

    with pytest.raises((JournalError, OSError)) as caught:
        SyncEngine(desk_root).join(url, key=key, key_file=str(desk_key))
    assert _is_disk_full(caught.value), caught.value
    engine = SyncEngine(desk_root)
    leftovers = list(desk_root.glob(".sync-setup.tmp-*"))
    if engine.configured:  # set up whole, its first sync cut short: told as a failure
        assert sync_status(engine)["state"] == "error"
    else:
        assert not (desk_root / "sync").exists() and leftovers == []
    if (desk_root / "records").is_dir():
        assert_kernforge_valid(Machine(desk_root, desk_key))

    resize(small_disk, "64m")
    if engine.configured:
        assert SyncEngine(desk_root).sync().result == "synced"
    else:
        SyncEngine(desk_root).join(url, key=key, key_file=str(desk_key))
    assert sync_status(SyncEngine(desk_root))["state"] == "synced"
    assert len(DecisionStore(desk_root).list_with_issues().records) == RECORDS
