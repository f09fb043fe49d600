"""The health check: every record read strictly once, every history chain that exists verified."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import core.bulk.parallel_read
from core import limits
from core.doctor import (
    CAPTURE_DIRS,
    Finding,
    check_journal,
    probe_capture_writes,
    write_findings,
)
from core.store.decisions import DecisionStore, HistoryCheck
from tests.factories import decision


@pytest.fixture
def store(tmp_path: Path) -> DecisionStore:
    store = DecisionStore(tmp_path / "journal")
    for number in range(1, 4):
        store.put(decision(number))
    for _ in range(2):  # decision-2 reaches revision 3, with revisions 1 and 2 in history
        current = store.get("decision-2")
        store.revise("decision-2", current.revision, lambda r: setattr(r, "tags", ["edited"]))
    return store


def _checked_histories(store: DecisionStore, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    checked: list[str] = []
    check_history = DecisionStore.check_history

    def counted(self: DecisionStore, record_id: str, *, seal: bool = False) -> HistoryCheck:
        checked.append(record_id)
        return check_history(self, record_id, seal=seal)

    monkeypatch.setattr(DecisionStore, "check_history", counted)
    return checked


def test_a_healthy_journal_checks_only_the_chains_that_exist(
    store: DecisionStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    checked = _checked_histories(store, monkeypatch)
    assert check_journal(store) == []
    assert checked == ["decision-2"]  # first revisions without history: nothing to chain


def test_a_missing_history_revision_is_found(store: DecisionStore) -> None:
    (store.history_dir / "decision-2" / "revision-000002.json").unlink()
    [finding] = check_journal(store)
    assert finding.runbook == "broken-history-chain"
    assert "missing revision 2" in finding.problem


def test_a_later_revision_without_any_history_is_found(store: DecisionStore) -> None:
    for path in (store.history_dir / "decision-2").iterdir():
        path.unlink()
    (store.history_dir / "decision-2").rmdir()
    [finding] = check_journal(store)
    assert "missing revision 1" in finding.problem


def test_history_of_a_record_whose_file_is_gone_is_still_checked(
    store: DecisionStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    (store.records_dir / "decision-2.json").unlink()
    checked = _checked_histories(store, monkeypatch)
    check_journal(store)
    assert checked == ["decision-2"]


def test_unreadable_records_are_found_with_their_runbook_entries(
    store: DecisionStore, tmp_path: Path
) -> None:
    records = store.records_dir
    (records / "decision-broken.json").write_text('{"schema_version": 1')
    (records / "decision-huge.json").write_bytes(b" " * (limits.RECORD_FILE_MAX + 1))
    outside = tmp_path / "elsewhere.json"
    outside.write_bytes((records / "decision-1.json").read_bytes())
    (records / "decision-linked.json").symlink_to(outside)
    found = {Path(f.path).name: f.runbook for f in check_journal(store) if "records" in f.path}
    assert found == {
        "decision-broken.json": "unreadable-record",
        "decision-huge.json": "record-over-size-cap",
        "decision-linked.json": "symlink-or-special-file",
    }


def test_records_are_checked_by_the_reading_processes_of_a_large_journal(
    store: DecisionStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same findings when the files are spread over worker processes."""
    (store.records_dir / "decision-broken.json").write_text("{")
    alone = check_journal(store)
    monkeypatch.setattr(core.bulk.parallel_read, "PARALLEL_MIN_FILES", 1)
    monkeypatch.setenv(core.bulk.parallel_read.WORKERS_ENV, "2")
    assert check_journal(store) == alone
    assert [Path(f.path).name for f in alone if f.runbook == "unreadable-record"] == [
        "decision-broken.json"
    ]


def test_capture_writes_are_probed_in_every_folder(store: DecisionStore) -> None:
    (store.root / "pending").mkdir(mode=0o700)
    (store.root / "cache").mkdir(mode=0o700, exist_ok=True)
    probes = probe_capture_writes(store.root)
    assert [Path(p.directory).name for p in probes] == list(CAPTURE_DIRS)
    assert all(p.ok and p.exists and p.probed == p.directory for p in probes)
    assert write_findings(probes) == []
    assert sorted(os.listdir(store.root / "pending")) == []  # the probe file is gone


def test_folders_not_created_yet_are_probed_in_the_nearest_existing_one(tmp_path: Path) -> None:
    root = tmp_path / "fresh" / "journal"
    probes = probe_capture_writes(root)
    assert all(p.ok and not p.exists and p.probed == str(tmp_path) for p in probes)
    assert not (tmp_path / "fresh").exists()  # the check creates nothing


def test_a_folder_that_cannot_be_written_is_a_finding(
    store: DecisionStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_open = os.open
    records = str(store.records_dir)

    def refuse(path: object, *args: object, **kwargs: object) -> int:
        if str(path).startswith(records + os.sep):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", refuse)
    probes = probe_capture_writes(store.root)
    [finding] = write_findings(probes)
    assert finding.path == records
    assert finding.problem == "capture cannot write here: Permission denied"
    assert finding.runbook == "journal-not-writable"


def test_a_file_where_the_records_folder_belongs_is_reported_not_raised(tmp_path: Path) -> None:
    store = DecisionStore(tmp_path / "journal")
    store.root.mkdir(mode=0o700)
    store.records_dir.write_text("")
    store.records_dir.chmod(0o600)
    assert check_journal(store) == [
        Finding(str(store.records_dir), "is not a directory", "symlink-or-special-file")
    ]
    [probe] = [p for p in probe_capture_writes(store.root) if not p.ok]
    assert probe.directory == str(store.records_dir) and "is not a directory" in probe.error
