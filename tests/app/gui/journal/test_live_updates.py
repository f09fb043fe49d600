"""The open window never goes stale: whoever commits a record, the list, its counts and the
scope menu show it within moments, and F5 reloads every time it is pressed.

Why these cases: the app's own commits (a capture answered in its window, an import, an edit)
update the index row in this process, so the reconcile that followed found nothing to read and
the window kept its old list ("3 of 3" long after a fourth decision was recorded); F5 only
reloaded when that reconcile counted a change.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from app.gui.journal.requests import SCOPE_ALL, SORT_NEWEST, FilterState
from app.gui.journal.window import JournalWindow
from core.store.decisions import DecisionStore, mark_deleted
from tests.app.support.journal_support import (
    make_journal,
    open_window,
    press,
    record,
    remember_filters,
    shut_down,
)

pytestmark = [pytest.mark.qt_log_level_fail("WARNING")]

SOON_MS = 2000
"""The longest a change may take to reach the list: "within a second or two"."""


@pytest.fixture
def window(qtbot: QtBot, tmp_path: Path) -> Iterator[JournalWindow]:
    journal = make_journal(tmp_path / "journal", [record(1), record(2), record(3)])
    window = open_window(qtbot, journal, tmp_path / "settings.ini")
    yield window
    shut_down(qtbot, window)


def _ids(window: JournalWindow) -> list[str]:
    model = window.model
    return [model.index(n, 0).data(model.DecisionIdRole) for n in range(model.rowCount())]


def _scope_texts(window: JournalWindow) -> list[str]:
    combo = window.filter_bar.scope
    return [combo.itemText(n) for n in range(combo.count())]


def _commit_in_a_worker(window: JournalWindow, number: int) -> None:
    """As the capture controller does: the app's own store, on a worker thread."""
    store = window.bridge.journal.store
    worker = threading.Thread(target=store.put, args=(record(number),))
    worker.start()
    worker.join()


def test_a_record_this_process_commits_shows_without_any_user_action(
    qtbot: QtBot, window: JournalWindow
) -> None:
    qtbot.waitUntil(lambda: any("(3)" in text for text in _scope_texts(window)), timeout=5000)
    assert window.caption.text() == "3 of 3 decisions loaded"
    _commit_in_a_worker(window, 4)
    qtbot.waitUntil(lambda: window.model.rowCount() == 4, timeout=SOON_MS)
    assert _ids(window)[0] == "decision-test-0004"
    qtbot.waitUntil(lambda: window.caption.text() == "4 of 4 decisions loaded", timeout=SOON_MS)
    qtbot.waitUntil(lambda: any("(4)" in text for text in _scope_texts(window)), timeout=SOON_MS)
    assert window.scope_total() == 4


def test_a_burst_of_commits_reloads_once_it_settles(qtbot: QtBot, window: JournalWindow) -> None:
    counted: list[int] = []
    window.scope_counted.connect(lambda: counted.append(window.model.total))
    for number in range(4, 9):
        _commit_in_a_worker(window, number)
    qtbot.waitUntil(lambda: window.model.total == 8, timeout=SOON_MS)
    qtbot.wait(500)
    assert counted == [8]


def test_the_decision_on_screen_stays_when_the_list_reloads_under_it(
    qtbot: QtBot, window: JournalWindow
) -> None:
    window.open_decision("decision-test-0001")
    qtbot.waitUntil(lambda: window.is_shown("decision-test-0001"), timeout=5000)
    _commit_in_a_worker(window, 4)
    qtbot.waitUntil(lambda: window.model.rowCount() == 4, timeout=SOON_MS)
    qtbot.wait(200)
    assert window.is_shown("decision-test-0001")
    assert window.list_view.currentIndex().data(window.model.DecisionIdRole) == (
        "decision-test-0001"
    )


def test_f5_reloads_every_time_it_is_pressed(qtbot: QtBot, window: JournalWindow) -> None:
    root = window.bridge.journal.root
    window.list_view.setFocus()
    for number in (4, 5, 6):
        # another process writes and tells nobody (a hook, a tool of the user's own)
        DecisionStore(root).put(record(number))
        with qtbot.waitSignal(window.scope_counted, timeout=SOON_MS):
            press(window, Qt.Key.Key_F5)
        # the count of the press before may land first on a busy machine; this press's follows
        qtbot.waitUntil(lambda: window.model.total == number, timeout=SOON_MS)  # noqa: B023
        assert _ids(window)[0] == f"decision-test-{number:04d}"
    for _ in range(3):  # nothing changed: F5 still reloads and says so
        with qtbot.waitSignal(window.scope_counted, timeout=SOON_MS):
            window.refresh_action.trigger()
        qtbot.waitUntil(lambda: window.statusBar().currentMessage() == "Refreshed.", timeout=1000)
    assert window.model.total == 6


def test_a_key_held_down_reloads_once(qtbot: QtBot, window: JournalWindow) -> None:
    counted: list[int] = []
    window.scope_counted.connect(lambda: counted.append(window.model.total))
    for _ in range(10):
        window.refresh_action.trigger()
    qtbot.waitUntil(lambda: bool(counted), timeout=SOON_MS)
    qtbot.wait(500)
    assert counted == [3]


def test_a_restore_under_newest_first_moves_the_decision_to_the_top(
    qtbot: QtBot, tmp_path: Path
) -> None:
    journal = make_journal(tmp_path / "journal", [record(1), record(2), record(3)])
    DecisionStore(journal.root).revise("decision-test-0001", 1, mark_deleted)
    settings = remember_filters(
        tmp_path / "settings.ini",
        journal,
        FilterState(scope=SCOPE_ALL, include_deleted=True, sort=SORT_NEWEST),
    )
    window = open_window(qtbot, journal, settings)
    try:
        assert _ids(window)[0] == "decision-test-0001"  # deleted last: the newest revision
        window.open_decision("decision-test-0002")
        qtbot.waitUntil(lambda: window.is_shown("decision-test-0002"), timeout=5000)
        window.bridge.soft_delete("decision-test-0002", 1)
        qtbot.waitUntil(lambda: _ids(window)[0] == "decision-test-0002", timeout=SOON_MS)
        window.bridge.restore("decision-test-0001", 2)
        qtbot.waitUntil(lambda: _ids(window)[0] == "decision-test-0001", timeout=SOON_MS)
        assert _ids(window) == ["decision-test-0001", "decision-test-0002", "decision-test-0003"]
        assert window.is_shown("decision-test-0002")
    finally:
        shut_down(qtbot, window)
