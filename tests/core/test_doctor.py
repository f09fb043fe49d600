"""The health check: every record read strictly once, every history chain that exists verified."""

from __future__ import annotations

from pathlib import Path

import pytest

import core.parallel_read
from core import limits
from core.doctor import check_journal
from core.store import DecisionStore
from tests.core.test_profile_derive import decision


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
    history = DecisionStore.history

    def counted(self: DecisionStore, record_id: str) -> list[object]:
        checked.append(record_id)
        return list(history(self, record_id))

    monkeypatch.setattr(DecisionStore, "history", counted)
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
    monkeypatch.setattr(core.parallel_read, "PARALLEL_MIN_FILES", 1)
    monkeypatch.setenv(core.parallel_read.WORKERS_ENV, "2")
    assert check_journal(store) == alone
    assert [Path(f.path).name for f in alone if f.runbook == "unreadable-record"] == [
        "decision-broken.json"
    ]
