"""Stale temporary files of killed writers are removed when the journal is opened and by
`doctor --repair`: only names of ours, only older than a few minutes, only with a free lock."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from core.doctor import check_journal, repair_journal
from core.record.models import DecisionRecord
from core.store.decisions import DecisionStore
from core.store.locking import locked
from core.store.temp_sweep import (
    OPEN_SWEEP_INTERVAL_SECONDS,
    STALE_AFTER_SECONDS,
    SWEEP_STAMP,
    sweep_on_open,
    sweep_tree,
    temp_target,
)
from tests.factories import make_record

RECORD = "decision-test-1"
OLD = STALE_AFTER_SECONDS + 60


@pytest.fixture
def store(tmp_path: Path) -> DecisionStore:
    store = DecisionStore(tmp_path / "journal")
    store.put(make_record())
    (store.root / "cache").mkdir(mode=0o700, exist_ok=True)
    return store


def _temp(directory: Path, name: str, *, age: float = OLD) -> Path:
    path = directory / name
    path.write_bytes(b'{"half": "written')
    path.chmod(0o600)
    moment = time.time() - age
    os.utime(path, (moment, moment))
    return path


def _reopen(store: DecisionStore) -> DecisionStore:
    (store.root / SWEEP_STAMP).unlink(missing_ok=True)
    return DecisionStore(store.root)


def test_the_names_of_our_temp_files_are_recognised() -> None:
    assert temp_target(".decision-1.json.tmp-0123456789ab") == "decision-1.json"
    assert temp_target(".profile.json.tmp-abcdefabcdef") == "profile.json"
    for name in (
        "decision-1.json",
        "decision-1.json.tmp-0123456789ab",  # no leading dot
        ".decision-1.json.tmp-0123",  # short token
        ".decision-1.json.tmp-0123456789AB",  # not our hex
        ".decision-1.json.tmp-0123456789abc",
        ".hidden-notes",
    ):
        assert temp_target(name) is None, name


def test_opening_the_journal_removes_stale_temp_files(store: DecisionStore) -> None:
    stale = [
        _temp(store.records_dir, f".{RECORD}.json.tmp-0123456789ab"),
        _temp(store.records_dir, ".decision-gone.json.tmp-abcdefabcdef"),
        _temp(store.root / "cache", ".profile-facts.msgpack.tmp-00ff00ff00ff"),
    ]
    young = _temp(store.records_dir, f".{RECORD}.json.tmp-111111111111", age=10)
    not_ours = _temp(store.records_dir, f".{RECORD}.json.tmp-xyz")
    _reopen(store)
    assert [p.exists() for p in stale] == [False, False, False]
    assert young.exists() and not_ours.exists()
    assert DecisionStore(store.root).get(RECORD).revision == 1


def test_a_temp_file_whose_lock_is_held_is_kept(store: DecisionStore) -> None:
    temp = _temp(store.records_dir, f".{RECORD}.json.tmp-0123456789ab")
    with locked(store.root, store.record_path(RECORD)):
        _reopen(store)
        assert temp.exists()
    _reopen(store)
    assert not temp.exists()


def test_the_sweep_at_open_runs_at_most_once_per_interval(store: DecisionStore) -> None:
    now = time.time()
    assert sweep_on_open(store.root, now=now).removed == []
    temp = _temp(store.records_dir, f".{RECORD}.json.tmp-0123456789ab")
    assert sweep_on_open(store.root, now=now + 1).removed == []  # the stamp is fresh
    assert temp.exists()
    report = sweep_on_open(store.root, now=now + OPEN_SWEEP_INTERVAL_SECONDS + 1)
    assert report.removed == [str(temp)]


def test_a_history_folder_is_swept_by_the_next_edit_under_its_lock(store: DecisionStore) -> None:
    store.revise(RECORD, 1, _reason)
    history = store.history_dir / RECORD
    temp = _temp(history, ".revision-000002.json.tmp-0123456789ab")
    young = _temp(history, ".revision-000002.json.sha256.tmp-0123456789ab", age=5)
    _reopen(store)
    assert temp.exists()  # history folders are not scanned on open
    assert store.history(RECORD)[-1].revision == 2  # temp files are not history
    store.revise(RECORD, 2, _reason)
    assert not temp.exists() and young.exists()


def test_doctor_repair_sweeps_every_folder_and_reports_what_it_kept(
    store: DecisionStore,
) -> None:
    store.revise(RECORD, 1, _reason)
    stale = _temp(store.history_dir / RECORD, ".revision-000001.json.tmp-0123456789ab")
    young = _temp(store.records_dir, f".{RECORD}.json.tmp-0123456789ab", age=5)
    assert [f.runbook for f in check_journal(store)] == ["temp-file", "temp-file"]
    report = repair_journal(store)
    assert report.removed_temps == [str(stale)]
    assert report.kept_temps == [str(young)]
    assert not stale.exists() and young.exists()


def _reason(record: DecisionRecord) -> None:
    record.selection_reason_raw = f"reason written at {time.time_ns()}"


WRITER = textwrap.dedent(
    """
    import os, sys, time
    from pathlib import Path
    import core.store.safefs
    from core.store.decisions import DecisionStore

    def stuck(*args, **kwargs):
        print("temp written", flush=True)
        time.sleep(3600)

    core.store.safefs.os.replace = stuck
    store = DecisionStore(Path(sys.argv[1]))
    def mutate(record):
        record.selection_reason_raw = "a reason the writer never finished saving"
    store.revise("decision-test-1", 1, mutate)
    """
)


def test_a_writer_killed_mid_write_leaves_a_temp_file_that_is_removed_later(
    store: DecisionStore,
) -> None:
    with subprocess.Popen(
        [sys.executable, "-c", WRITER, str(store.root)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[3])},
    ) as writer:
        try:
            assert writer.stdout is not None and writer.stdout.readline() == "temp written\n"
            history = store.history_dir / RECORD
            [temp] = [p for p in history.iterdir() if temp_target(p.name)]
            moment = time.time() - OLD
            os.utime(temp, (moment, moment))
            assert sweep_tree(store.root).kept == [str(temp)]  # its writer holds the lock
        finally:
            writer.send_signal(signal.SIGKILL)
            writer.wait(timeout=10)
    report = repair_journal(store)
    assert report.removed_temps == [str(temp)]
    assert report.health.findings == []
    assert store.revise(RECORD, 1, _reason).revision == 2
