"""A reload the reader did not ask for keeps their place: the pages they scrolled through,
the decision they selected and where the list was scrolled.

Why: a commit in this process (an answer recorded in the capture window, an import, a sync
applying changes) and F5 reload the list. They used to load only the first page again, so a
reader on page three was thrown back to the top with the selection gone from the list.
"""

from __future__ import annotations

import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint
from pytestqt.qtbot import QtBot

from app.gui.journal.list_place import ListPlace, rows_to_load
from app.gui.journal.requests import PAGE_SIZE
from app.gui.journal.window import JournalWindow
from core.journal import Journal
from core.store.decisions import DecisionStore
from tests.app.support.journal_support import make_journal, open_window, record, shut_down

pytestmark = [pytest.mark.qt_log_level_fail("WARNING")]
COUNT = 250
SELECTED = "decision-test-0100"
"""Row 150 of the newest-first list: on the second page."""


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("place") / "journal"
    make_journal(root, [record(n) for n in range(1, COUNT + 1)])
    return root


@pytest.fixture
def window(qtbot: QtBot, template: Path, tmp_path: Path) -> Iterator[JournalWindow]:
    shutil.copytree(template, tmp_path / "journal", symlinks=True)
    window = open_window(qtbot, Journal(tmp_path / "journal"), tmp_path / "settings.ini")
    window.resize(900, 600)
    yield window
    shut_down(qtbot, window)


def _top_row(window: JournalWindow) -> tuple[str, int]:
    """(the decision at the top of the list's viewport, its row's top edge in pixels)."""
    view = window.list_view
    index = view.indexAt(QPoint(4, 0))
    return str(index.data(window.model.DecisionIdRole)), view.visualRect(index).top()


def _scrolled_to_the_selected_decision(qtbot: QtBot, window: JournalWindow) -> tuple[str, int]:
    """Scrolls to the second page, selects `SELECTED`, puts it mid-list; the top row."""
    model, view = window.model, window.list_view

    def second_page_loaded() -> bool:
        if model.canFetchMore():
            model.fetchMore()
        return model.loaded > 2 * PAGE_SIZE - 1

    qtbot.waitUntil(second_page_loaded, timeout=5000)
    row = model.row_of(SELECTED)
    view.setCurrentIndex(model.index(row))
    qtbot.waitUntil(lambda: window.is_shown(SELECTED), timeout=5000)
    view.scrollTo(model.index(row - 3), view.ScrollHint.PositionAtTop)
    bar = view.verticalScrollBar()
    bar.setValue(bar.value() + 7)  # mid-row: the offset inside the top row is kept too
    top = _top_row(window)
    assert top[0] == f"decision-test-{COUNT - row + 3:04d}" and top[1] < 0
    return top


def _kept_its_place(window: JournalWindow, loaded: int, top: tuple[str, int]) -> None:
    model, view = window.model, window.list_view
    assert model.loaded >= loaded
    assert view.currentIndex().data(model.DecisionIdRole) == SELECTED
    assert window.is_shown(SELECTED)
    assert _top_row(window) == top


def test_a_commit_in_this_process_keeps_the_page_the_selection_and_the_scroll(
    qtbot: QtBot, window: JournalWindow
) -> None:
    top = _scrolled_to_the_selected_decision(qtbot, window)
    loaded = window.model.loaded
    store = window.bridge.journal.store  # the app's own store on a worker, as a capture is
    worker = threading.Thread(target=store.put, args=(record(COUNT + 1),))
    worker.start()
    worker.join()
    qtbot.waitUntil(lambda: window.model.total == COUNT + 1, timeout=5000)
    assert window.model.list_row(0).id == f"decision-test-{COUNT + 1:04d}"  # the new one, on top
    _kept_its_place(window, loaded + 1, top)


def test_f5_after_another_process_wrote_keeps_the_place_too(
    qtbot: QtBot, window: JournalWindow
) -> None:
    top = _scrolled_to_the_selected_decision(qtbot, window)
    loaded = window.model.loaded
    DecisionStore(window.bridge.journal.root).put(record(COUNT + 1))  # as a sync applies it
    with qtbot.waitSignal(window.scope_counted, timeout=5000):
        window.refresh_action.trigger()
    assert window.model.total == COUNT + 1
    _kept_its_place(window, loaded + 1, top)


def test_choosing_another_filter_still_starts_from_the_top(
    qtbot: QtBot, window: JournalWindow
) -> None:
    _scrolled_to_the_selected_decision(qtbot, window)
    with qtbot.waitSignal(window.scope_counted, timeout=5000):
        window.filter_bar.include_deleted.setChecked(True)
    assert window.model.loaded == PAGE_SIZE
    assert window.list_view.verticalScrollBar().value() == 0


@pytest.mark.parametrize(
    ("loaded", "wanted"), [(0, PAGE_SIZE), (1, PAGE_SIZE), (100, PAGE_SIZE), (101, 200), (250, 300)]
)
def test_a_reload_asks_for_every_page_that_was_loaded(loaded: int, wanted: int) -> None:
    assert rows_to_load(loaded) == wanted


def test_an_empty_place_restores_nothing() -> None:
    assert ListPlace().rows == PAGE_SIZE
