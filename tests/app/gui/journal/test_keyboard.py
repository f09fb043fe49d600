"""The journal window from the keyboard alone: Tab walks the filters row by row, through the
date fields (which used to keep Tab for themselves while they read "any"), to the list and the
decision's buttons, and comes back round; a date is still typed and changed with the keys."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QDate, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from tests.app.support.journal_support import make_journal, open_window, record, shut_down

pytestmark = [pytest.mark.qt_log_level_fail("WARNING")]


def _name(widget: QWidget | None) -> str:
    return widget.objectName() if widget is not None else ""


def test_tab_walks_every_filter_to_the_list_and_round_again(qtbot: QtBot, tmp_path: Path) -> None:
    journal = make_journal(tmp_path / "journal", [record(1), record(2)])
    window = open_window(qtbot, journal, tmp_path / "settings.ini")
    try:
        qtbot.waitUntil(lambda: window.record is not None, timeout=5000)
        window.activateWindow()
        qtbot.waitUntil(window.isActiveWindow)
        window.filter_bar.search.setFocus()
        qtbot.waitUntil(window.filter_bar.search.hasFocus)
        visited = []
        for _ in range(24):
            visited.append(_name(QApplication.focusWidget()))
            QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
        start = visited.index("search")
        assert visited[start : start + 11] == [
            "search",
            "date-from",
            "date-to",
            "include-deleted",
            "scope",
            "domain",
            "kind",
            "status",
            "risk",
            "sort",
            "decision-list",
        ]
        assert "inspector-edit" in visited
        assert visited.count("search") >= 2, "Tab comes back round to the search field"
    finally:
        shut_down(qtbot, window)


def test_a_date_is_still_typed_and_stepped_from_the_keyboard(qtbot: QtBot, tmp_path: Path) -> None:
    journal = make_journal(tmp_path / "journal", [record(1)])
    window = open_window(qtbot, journal, tmp_path / "settings.ini")
    try:
        edit = window.filter_bar.date_from
        edit.setDate(QDate(2025, 10, 9))
        edit.setFocus()
        qtbot.waitUntil(edit.hasFocus)
        QTest.keyClick(edit, Qt.Key.Key_Home)
        QTest.keyClick(edit, Qt.Key.Key_Up)
        assert edit.date() == QDate(2026, 10, 9)
        QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
        assert _name(QApplication.focusWidget()) == "date-to"
        QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_Backtab)
        assert _name(QApplication.focusWidget()) == "date-from"
    finally:
        shut_down(qtbot, window)
