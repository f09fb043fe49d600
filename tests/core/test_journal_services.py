"""The journal's services are made on first use, in any order, and still work together."""

from __future__ import annotations

from pathlib import Path

from core.index.query import IndexFilter
from core.journal import Journal
from tests.factories import decision


def test_an_index_opened_before_the_store_hears_the_store_s_commits(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "journal")
    assert journal.index.query_ids(IndexFilter()) == []
    before = journal.index.generation
    journal.store.put(decision(1))
    assert journal.index.generation == before + 1  # told by the commit, before any reconcile
    assert journal.index.query_ids(IndexFilter()) == [decision(1).id]


def test_an_index_opened_after_the_store_hears_its_commits_and_scans_through_it(
    tmp_path: Path,
) -> None:
    journal = Journal(tmp_path / "journal")
    journal.store.put(decision(1))
    assert journal.index.store is journal.store
    before = journal.index.generation
    journal.store.put(decision(2))
    assert journal.index.generation == before + 1
    assert journal.index.query_ids(IndexFilter()) == [decision(2).id, decision(1).id]
