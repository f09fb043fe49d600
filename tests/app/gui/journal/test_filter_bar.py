"""Scope and filters, driven through the real filter bar: keys into the search box, combo keys."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QDate, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QComboBox
from pytestqt.qtbot import QtBot

from app.gui.journal.decision_list_model import EMPTY_TEXT
from app.gui.journal.requests import SCOPE_ALL, SCOPE_PROJECT, FilterState
from app.gui.journal.window import JournalWindow
from core.gocompat.gotime import GoTime
from core.journal import Journal
from tests.app.support.journal_support import (
    BASE_NS,
    MINUTE_NS,
    PROJECT_A,
    PROJECT_B,
    make_journal,
    open_window,
    record,
    remember_filters,
    shut_down,
)

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
]
DAY_NS = 24 * 60 * MINUTE_NS


def _records() -> list:  # type: ignore[type-arg]
    beta = {"project_id": PROJECT_B, "project_alias": "beta", "workspace": "/src/beta"}
    return [
        record(1, problem="Pick a cache eviction policy", decision_kind="cache_policy"),
        record(2, problem="Choose the retry schedule", risk_level="high", domains=["http"]),
        record(3, problem="Where do drafts live", **beta),
        record(4, problem="Name the socket file", decision_kind="naming", **beta),
        record(5, problem="Deleted fork about caching", status="deleted"),
        record(
            6,
            problem="Rotate the notes file",
            updated_at=GoTime(BASE_NS + 3 * DAY_NS),
            created_at=GoTime(BASE_NS + 3 * DAY_NS),
        ),
    ]


@pytest.fixture
def journal(tmp_path: Path) -> Journal:
    return make_journal(tmp_path / "journal", _records())


@pytest.fixture
def settings_file(tmp_path: Path, journal: Journal) -> Path:
    return remember_filters(tmp_path / "settings.ini", journal, FilterState(scope=SCOPE_ALL))


@pytest.fixture
def window(qtbot: QtBot, journal: Journal, settings_file: Path) -> Iterator[JournalWindow]:
    window = open_window(qtbot, journal, settings_file)
    qtbot.waitUntil(lambda: window.filter_bar.scope.count() > 2, timeout=5000)
    yield window
    shut_down(qtbot, window)


def problems(window: JournalWindow) -> list[str]:
    return [window.model.list_row(n).problem for n in range(window.model.rowCount())]


def choose(qtbot: QtBot, window: JournalWindow, combo: QComboBox, value: str) -> None:
    """Moves a closed combo box with arrow keys until it shows `value`; each move applies."""
    combo.setFocus()
    qtbot.waitUntil(combo.hasFocus)
    target = combo.findData(value)
    assert target >= 0, (value, [combo.itemData(i) for i in range(combo.count())])
    key = Qt.Key.Key_Down if target > combo.currentIndex() else Qt.Key.Key_Up
    while combo.currentIndex() != target:
        with qtbot.waitSignal(window.scope_counted, timeout=5000):
            QTest.keyClick(combo, key)


def test_all_projects_newest_first_without_deleted(window: JournalWindow) -> None:
    assert problems(window) == [
        "Rotate the notes file",
        "Name the socket file",
        "Where do drafts live",
        "Choose the retry schedule",
        "Pick a cache eviction policy",
    ]
    assert window.caption.text() == "5 of 5 decisions loaded"


def test_search_is_debounced_and_word_wise(qtbot: QtBot, window: JournalWindow) -> None:
    QTest.keyClick(window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    assert QApplication.focusWidget() is window.filter_bar.search
    with qtbot.waitSignal(window.scope_counted, timeout=5000):
        QTest.keyClicks(window.filter_bar.search, "cach")
    assert problems(window) == ["Pick a cache eviction policy"]
    window.filter_bar.include_deleted.setChecked(True)
    qtbot.waitUntil(lambda: len(problems(window)) == 2, timeout=5000)
    assert problems(window) == ["Deleted fork about caching", "Pick a cache eviction policy"]


def test_kind_domain_risk_and_status_filters(qtbot: QtBot, window: JournalWindow) -> None:
    bar = window.filter_bar
    choose(qtbot, window, bar.kind, "naming")
    assert problems(window) == ["Name the socket file"]
    choose(qtbot, window, bar.kind, "")
    choose(qtbot, window, bar.domain, "http")
    assert problems(window) == ["Choose the retry schedule"]
    choose(qtbot, window, bar.domain, "")
    choose(qtbot, window, bar.risk, "high")
    assert problems(window) == ["Choose the retry schedule"]
    choose(qtbot, window, bar.risk, "")
    choose(qtbot, window, bar.status, "deleted")
    assert problems(window) == ["Deleted fork about caching"]


def test_scope_current_all_and_one_project(qtbot: QtBot, window: JournalWindow) -> None:
    bar = window.filter_bar
    choose(qtbot, window, bar.scope, PROJECT_B)
    assert problems(window) == ["Name the socket file", "Where do drafts live"]
    assert "beta" in bar.scope.currentText()
    choose(qtbot, window, bar.scope, "current")
    assert bar.state.scope == "current"
    assert window.model.list_row(0).project_id == PROJECT_A  # the newest active decision's
    assert "alpha" in bar.scope.itemText(0)
    assert len(problems(window)) == 3


def test_date_range_is_inclusive_of_whole_days(qtbot: QtBot, window: JournalWindow) -> None:
    bar = window.filter_bar
    day = GoTime(BASE_NS + 3 * DAY_NS).to_datetime().astimezone().date()
    qday = QDate(day.year, day.month, day.day)
    with qtbot.waitSignal(window.scope_counted, timeout=5000):
        bar.date_from.setDate(qday)
    assert problems(window) == ["Rotate the notes file"]
    with qtbot.waitSignal(window.scope_counted, timeout=5000):
        bar.date_to.setDate(qday)
    assert problems(window) == ["Rotate the notes file"]
    with qtbot.waitSignal(window.scope_counted, timeout=5000):
        bar.date_from.setDate(qday.addDays(-10))
    with qtbot.waitSignal(window.scope_counted, timeout=5000):
        bar.date_to.setDate(qday.addDays(-1))
    assert "Rotate the notes file" not in problems(window)
    assert len(problems(window)) == 4


def test_empty_scope_says_so(qtbot: QtBot, window: JournalWindow) -> None:
    with qtbot.waitSignal(window.scope_counted, timeout=5000):
        QTest.keyClicks(window.filter_bar.search, "zeppelin")
    assert window.list_stack.currentWidget() is window.empty_page
    assert window.empty_label.text() == EMPTY_TEXT
    assert not window.elsewhere_button.isVisible()  # already every project
    assert window.caption.text() == "0 of 0 decisions loaded"


def test_filters_and_geometry_are_remembered(
    qtbot: QtBot, journal: Journal, settings_file: Path
) -> None:
    first = open_window(qtbot, journal, settings_file)
    try:
        qtbot.waitUntil(lambda: first.filter_bar.scope.count() > 2, timeout=5000)
        choose(qtbot, first, first.filter_bar.scope, PROJECT_B)
        first.filter_bar.include_deleted.setChecked(True)
        first.resize(1000, 620)
    finally:
        shut_down(qtbot, first)
    second = open_window(qtbot, journal, settings_file)
    try:
        state = second.filter_bar.state
        assert state.scope == SCOPE_PROJECT and state.project_id == PROJECT_B
        assert state.include_deleted
        assert second.filter_bar.include_deleted.isChecked()
        assert abs(second.width() - 1000) <= 4 and abs(second.height() - 620) <= 4
        assert problems(second) == ["Name the socket file", "Where do drafts live"]
    finally:
        shut_down(qtbot, second)


def test_filter_state_survives_bad_settings() -> None:
    assert FilterState.from_settings("garbage") == FilterState()
    state = FilterState.from_settings({"scope": "nowhere", "include_deleted": "true", "x": 1})
    assert state.scope == "current" and state.include_deleted
    flt = FilterState(status="deleted").to_index_filter("project-1")
    assert flt.include_deleted and flt.project_id == "project-1"
