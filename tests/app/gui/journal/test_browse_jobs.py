"""The list's index work without a window: first pages, counts, snapshots, pages, catalog."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.gui.journal.browse_jobs import ScopeBrowser
from app.gui.journal.requests import (
    PAGE_SIZE,
    SCOPE_ALL,
    SCOPE_CURRENT,
    SORT_OLDEST,
    FilterState,
    ScopePage,
)
from core.index.snapshots import SnapshotCache
from core.journal import Journal
from tests.app.support.journal_support import PROJECT_A, PROJECT_B, make_journal, record

COUNT = PAGE_SIZE + 20


@pytest.fixture(scope="module")
def journal(tmp_path_factory: pytest.TempPathFactory) -> Journal:
    """Read by every test here, written by none (each writer makes its own)."""
    records = [record(n) for n in range(1, COUNT + 1)]
    records.append(record(COUNT + 1, project_id=PROJECT_B, project_alias="beta"))
    journal = make_journal(tmp_path_factory.mktemp("browse") / "journal", records)
    journal.index.read_changed_files()
    return journal


def _open(
    browser: ScopeBrowser, state: FilterState, kept: str = "", generation: int = 1
) -> tuple[list[ScopePage], object]:
    pages: list[ScopePage] = []
    browser.latest = generation
    count = browser.open_scope(generation, state, kept, pages.append)
    return pages, count


def test_the_first_page_comes_first_then_the_count_of_every_match(journal: Journal) -> None:
    browser = ScopeBrowser(journal.index)
    pages, count = _open(browser, FilterState(scope=SCOPE_ALL), kept="decision-test-0001")
    assert [len(page.rows) for page in pages] == [PAGE_SIZE]
    assert pages[0].rows[0].id == f"decision-test-{COUNT + 1:04d}"
    assert count is not None and count.total == COUNT + 1 and count.rows is None
    assert count.kept == "decision-test-0001" and count.kept_listed  # on a later page


@pytest.mark.parametrize("sort", ["", SORT_OLDEST])
def test_a_reload_can_ask_for_every_page_the_reader_had_loaded(journal: Journal, sort: str) -> None:
    browser = ScopeBrowser(journal.index)
    browser.latest = 1
    pages: list[ScopePage] = []
    state = FilterState(scope=SCOPE_ALL, **({"sort": sort} if sort else {}))
    count = browser.open_scope(1, state, "", pages.append, first_rows=2 * PAGE_SIZE)
    assert [len(page.rows) for page in pages] == [COUNT + 1]  # every match fits in two pages
    assert count is not None and count.total == COUNT + 1 and count.rows is None
    newest = f"decision-test-{COUNT + 1:04d}"
    assert pages[0].rows[0 if not sort else -1].id == newest


def test_the_count_says_when_the_decision_on_screen_is_outside_the_scope(
    journal: Journal,
) -> None:
    browser = ScopeBrowser(journal.index)
    beta = f"decision-test-{COUNT + 1:04d}"
    pages, count = _open(browser, FilterState(scope=SCOPE_CURRENT), kept=beta)
    assert pages[0].current_project == PROJECT_B  # the newest decision's project
    assert count is not None and count.kept_listed
    browser.forget_current_project()
    _pages, alpha = _open(browser, FilterState(scope=SCOPE_ALL, query="number 7 "), kept=beta)
    assert alpha is not None and not alpha.kept_listed and alpha.kept == beta


def test_a_superseded_scope_is_skipped_without_a_query(journal: Journal) -> None:
    browser = ScopeBrowser(journal.index)
    browser.latest = 2
    pages: list[ScopePage] = []
    assert browser.open_scope(1, FilterState(scope=SCOPE_ALL), "", pages.append) is None
    assert pages == []


def test_pages_follow_the_snapshot_and_a_vanished_one_answers_none(journal: Journal) -> None:
    browser = ScopeBrowser(journal.index)
    _pages, count = _open(browser, FilterState(scope=SCOPE_ALL))
    assert count is not None
    rows = browser.page(count.snapshot_id, PAGE_SIZE, PAGE_SIZE)
    assert rows is not None and [row.id for row in rows][:2] == [
        "decision-test-0021",
        "decision-test-0020",
    ]
    assert len(rows) == COUNT + 1 - PAGE_SIZE
    assert browser.page("no-such-snapshot", 0, PAGE_SIZE) is None


def test_an_expired_snapshot_answers_none(journal: Journal) -> None:
    now = [0.0]
    browser = ScopeBrowser(journal.index, SnapshotCache(ttl_seconds=10, clock=lambda: now[0]))
    _pages, count = _open(browser, FilterState(scope=SCOPE_ALL))
    assert count is not None
    now[0] = 11.0
    assert browser.page(count.snapshot_id, PAGE_SIZE, PAGE_SIZE) is None


def test_a_chosen_order_is_frozen_whole_before_its_first_page(journal: Journal) -> None:
    browser = ScopeBrowser(journal.index)
    pages, count = _open(browser, FilterState(scope=SCOPE_ALL, sort=SORT_OLDEST))
    assert pages[0].rows[0].id == "decision-test-0001"
    assert count is not None and count.total == COUNT + 1


def test_an_empty_scope_says_where_else_the_filter_finds_decisions(tmp_path: Path) -> None:
    journal = make_journal(tmp_path / "j", [record(1), record(2, project_id=PROJECT_B)])
    journal.index.read_changed_files()
    browser = ScopeBrowser(journal.index)
    state = FilterState(scope=SCOPE_CURRENT, query="number 1")
    pages, count = _open(browser, state)
    assert pages[0].rows == [] and pages[0].elsewhere == 1 and not pages[0].journal_empty
    assert count is not None and count.total == 0 and count.snapshot_id == ""
    empty = make_journal(tmp_path / "empty", [])
    pages, _count = _open(ScopeBrowser(empty.index), FilterState(scope=SCOPE_ALL))
    assert pages[0].journal_empty


def test_the_current_project_is_kept_until_forgotten(tmp_path: Path) -> None:
    journal = make_journal(tmp_path / "j", [record(1), record(2, project_id=PROJECT_B)])
    journal.index.read_changed_files()
    browser = ScopeBrowser(journal.index)
    assert browser.current_project() == PROJECT_B
    journal.store.put(record(3))  # a newer decision in alpha
    journal.index.read_changed_files()
    assert browser.current_project() == PROJECT_B
    browser.forget_current_project()
    assert browser.current_project() == PROJECT_A


def test_the_catalog_and_labels(journal: Journal) -> None:
    browser = ScopeBrowser(journal.index)
    catalog = browser.catalog("")
    assert {p.project_id for p in catalog.projects} == {PROJECT_A, PROJECT_B}
    assert catalog.waiting_project == catalog.current_project == PROJECT_B
    assert browser.catalog(PROJECT_A).waiting_project == PROJECT_A
    labels = browser.labels(["decision-test-0003", "decision-missing"])
    assert labels == {"decision-test-0003": "Choose the storage layout number 3"}
