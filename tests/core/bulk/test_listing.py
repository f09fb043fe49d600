"""The one walk of `records/` (`record_stats`) and the store's listing with the collector paused."""

from __future__ import annotations

import gc
import os
from pathlib import Path

import pytest

import core.bulk.gc_pause
from core.bulk.listing import list_records, list_with_issues, record_stats
from core.errors import JournalDamaged
from core.record.filters import ListFilter
from core.store.decisions import DecisionStore
from tests.factories import decision

ODD_NAMES = (".hidden.json", "a.JSON", "b.json.lock", "c.tmp", ".decision-1.json.tmp-x")


@pytest.fixture
def store(tmp_path: Path) -> DecisionStore:
    store = DecisionStore(tmp_path / "journal")
    store.put(decision(1))
    store.put(decision(2))
    return store


def test_the_walk_selects_the_same_files_as_the_store(store: DecisionStore) -> None:
    for name in ODD_NAMES:
        (store.records_dir / name).write_text("{}")
    stats = record_stats(store.records_dir)
    assert set(stats) == {p.name for p in store.record_files()}
    for name, info in stats.items():
        assert info is not None
        assert info.st_ino == os.lstat(store.records_dir / name).st_ino


def test_a_journal_without_records_has_no_files(tmp_path: Path) -> None:
    assert record_stats(tmp_path / "missing" / "records") == {}


def test_the_listing_is_the_stores_with_the_collector_paused(
    store: DecisionStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[bool] = []
    plain = DecisionStore.list_with_issues

    def watching(self: DecisionStore, flt: ListFilter | None = None) -> object:
        seen.append(gc.isenabled())
        return plain(self, flt)

    gc.enable()
    monkeypatch.setattr(DecisionStore, "list_with_issues", watching)
    listed = list_with_issues(store, ListFilter(include_deleted=True))
    assert seen == [False] and gc.isenabled()
    assert listed == plain(store, ListFilter(include_deleted=True))
    assert [r.id for r in list_records(store)] == ["decision-2", "decision-1"]
    assert core.bulk.gc_pause._pause.holders == 0


def test_list_records_fails_closed_like_the_store(store: DecisionStore) -> None:
    (store.records_dir / "decision-3.json").write_text('{"schema_version": 1')
    assert len(list_with_issues(store).issues) == 1
    with pytest.raises(JournalDamaged, match="1 unreadable record"):
        list_records(store)
