"""Paging over snapshots: 100 rows at a time, lazily, and a clean reload when a snapshot expires."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

import app.gui.journal.scope_pane
from app.gui.journal.decision_list_model import EXPIRED_NOTICE
from app.gui.journal.requests import PAGE_SIZE, SORT_OLDEST
from app.gui.journal.window import JournalWindow
from core.bulk.parallel_read import CHUNK
from core.index.snapshots import SnapshotCache
from core.journal import Journal
from tests.app.support.journal_support import (
    make_journal,
    open_window,
    record,
    settings_at,
    shut_down,
)

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
]
COUNT = 250


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The 250 record files, written once per module; each test pages over its own copy."""
    root = tmp_path_factory.mktemp("paging") / "journal"
    make_journal(root, [record(n) for n in range(1, COUNT + 1)])
    return root


@pytest.fixture
def journal(template: Path, tmp_path: Path) -> Journal:
    shutil.copytree(template, tmp_path / "journal", symlinks=True)
    return Journal(tmp_path / "journal")


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def window(
    qtbot: QtBot, journal: Journal, tmp_path: Path, clock: FakeClock
) -> Iterator[JournalWindow]:
    snapshots = SnapshotCache(clock=clock, ttl_seconds=900)
    window = open_window(qtbot, journal, tmp_path / "settings.ini", snapshots=snapshots)
    yield window
    shut_down(qtbot, window)


def _fetch_next_page(qtbot: QtBot, window: JournalWindow) -> None:
    model = window.model
    # Paging starts once the snapshot's count has arrived, after the first page.
    qtbot.waitUntil(model.canFetchMore, timeout=5000)
    before = model.loaded
    model.fetchMore()
    qtbot.waitUntil(lambda: model.loaded > before, timeout=5000)


def test_first_page_is_100_of_all_newest_first(window: JournalWindow) -> None:
    model = window.model
    assert model.loaded == PAGE_SIZE
    assert model.total == COUNT
    assert window.caption.text() == f"100 of {COUNT} decisions loaded"
    assert model.list_row(0).id == f"decision-test-{COUNT:04d}"
    assert model.list_row(99).id == f"decision-test-{COUNT - 99:04d}"


def test_model_passes_the_model_tester_while_paging(
    qtmodeltester: ModelTester, qtbot: QtBot, window: JournalWindow
) -> None:
    model = window.model
    qtmodeltester.check(model)  # the tester asks for more rows itself, and so may the view
    qtbot.waitUntil(lambda: not model.fetching, timeout=5000)
    if model.canFetchMore():
        _fetch_next_page(qtbot, window)
    assert model.loaded > PAGE_SIZE
    qtmodeltester.check(model)
    qtbot.waitUntil(lambda: not window.model.fetching, timeout=5000)


def test_scrolling_to_the_end_fetches_every_page(qtbot: QtBot, window: JournalWindow) -> None:
    view = window.list_view

    def scrolled_to_the_end() -> bool:
        view.scrollToBottom()
        return window.model.loaded == COUNT

    qtbot.waitUntil(scrolled_to_the_end, timeout=5000)
    assert window.caption.text() == f"{COUNT} of {COUNT} decisions loaded"
    ids = [window.model.list_row(n).id for n in range(COUNT)]
    assert len(set(ids)) == COUNT
    assert not window.model.canFetchMore()


def test_new_captures_do_not_shift_a_frozen_snapshot(
    qtbot: QtBot, window: JournalWindow, journal: Journal
) -> None:
    from tests.app.support.journal_support import write_records

    write_records(journal, [record(COUNT + 1, problem="A brand new fork")])
    _fetch_next_page(qtbot, window)
    assert window.model.list_row(PAGE_SIZE).id == f"decision-test-{COUNT - PAGE_SIZE:04d}"
    assert window.model.total == COUNT


def test_expired_snapshot_reloads_the_pages_read_so_far_with_a_notice(
    qtbot: QtBot, window: JournalWindow, clock: FakeClock
) -> None:
    """A new snapshot, from the top, with as many rows as the reader had scrolled through."""
    _fetch_next_page(qtbot, window)
    assert window.model.loaded == 2 * PAGE_SIZE
    clock.now += 901
    with qtbot.waitSignal(window.scope_counted, timeout=5000):
        window.model.fetchMore()
    assert window.notice.isVisible()
    assert window.notice.text() == EXPIRED_NOTICE
    assert window.model.loaded == 2 * PAGE_SIZE
    assert window.caption.text() == f"200 of {COUNT} decisions loaded"
    _fetch_next_page(qtbot, window)  # paging goes on in the new snapshot
    assert window.model.list_row(2 * PAGE_SIZE).id == f"decision-test-{COUNT - 200:04d}"


def test_evicted_snapshot_reloads_too(qtbot: QtBot, journal: Journal, tmp_path: Path) -> None:
    cache = SnapshotCache(max_snapshots=1)
    window = open_window(qtbot, journal, tmp_path / "settings.ini", snapshots=cache)
    try:
        cache.create("someone else", ["decision-test-0001"])  # evicts the window's snapshot
        with qtbot.waitSignal(window.scope_counted, timeout=5000):
            window.model.fetchMore()
        assert window.notice.text() == EXPIRED_NOTICE
    finally:
        shut_down(qtbot, window)


def test_a_large_first_build_shows_its_progress_in_the_caption(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(app.gui.journal.scope_pane, "INDEXING_NOTICE_MIN", 100)
    journal = make_journal(tmp_path / "journal", [record(n) for n in range(1, 301)])
    window = JournalWindow(journal, settings=settings_at(tmp_path / "settings.ini"))
    seen: list[str] = []
    window.bridge.index_progressed.connect(lambda *_: seen.append(window.caption.text()))
    with qtbot.waitSignal(window.scope_counted, timeout=10_000):
        window.present()
    qtbot.waitUntil(lambda: window.caption.text() == "100 of 300 decisions loaded", timeout=5000)
    assert seen == [
        f"Reading the journal: {CHUNK} of 300 decisions…",
        "Reading the journal: 300 of 300 decisions…",
    ]
    shut_down(qtbot, window)


def test_a_chosen_order_pages_through_every_match(qtbot: QtBot, window: JournalWindow) -> None:
    sort = window.filter_bar.sort
    with qtbot.waitSignal(window.scope_counted, timeout=5000):
        sort.setCurrentIndex(sort.findData(SORT_OLDEST))
        sort.activated.emit(sort.currentIndex())
    assert window.model.list_row(0).id == "decision-test-0001"
    while window.model.loaded < COUNT:
        _fetch_next_page(qtbot, window)
    ids = [window.model.list_row(n).id for n in range(COUNT)]
    assert ids == [f"decision-test-{n:04d}" for n in range(1, COUNT + 1)]


def test_a_row_deleted_here_does_not_shift_the_next_page(
    qtbot: QtBot, window: JournalWindow, journal: Journal
) -> None:
    qtbot.waitUntil(lambda: window.record is not None, timeout=5000)
    # The reload the commit schedules would rebuild the list from a new snapshot; held back,
    # the next page is asked of the old one, which still holds the deleted row.
    window.change_timer.setInterval(60_000)
    with qtbot.waitSignal(window.bridge.mutation_finished, timeout=10_000):
        window.bridge.soft_delete(f"decision-test-{COUNT:04d}", 1)
    assert window.model.loaded == PAGE_SIZE - 1 and window.model.total == COUNT - 1
    assert window.caption.text() == f"99 of {COUNT - 1} decisions loaded"
    _fetch_next_page(qtbot, window)
    ids = [window.model.list_row(n).id for n in range(window.model.loaded)]
    assert ids == [f"decision-test-{n:04d}" for n in range(COUNT - 1, COUNT - 200, -1)]
    assert len(set(ids)) == len(ids)
