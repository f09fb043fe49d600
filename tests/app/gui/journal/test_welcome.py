"""A journal with no decision at all opens on what to do first, not on a column of "—"."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from app.gui.journal.import_dialog import ImportDialog
from app.gui.journal.welcome import SETUP_CLIENTS, SETUP_COMMAND
from app.setup_clients import CLIENTS
from core.journal import Journal
from core.store.decisions import DecisionStore
from tests.app.support.journal_support import (
    make_journal,
    open_window,
    press,
    record,
    shut_down,
)

pytestmark = [pytest.mark.qt_log_level_fail("WARNING")]


def test_an_empty_journal_says_how_to_fill_it_and_imports_by_keyboard(
    qtbot: QtBot, tmp_path: Path
) -> None:
    window = open_window(qtbot, Journal(tmp_path / "journal"), tmp_path / "settings.ini")
    try:
        assert window.journal_stack.currentWidget() is window.welcome
        assert not window.splitter.isVisible() and not window.inspector.isVisible()
        assert window.welcome.command_label.text() == "decision-journal setup claude-code --write"
        window.activateWindow()
        qtbot.waitUntil(window.isActiveWindow)
        window.welcome.setFocus()
        press(window, Qt.Key.Key_Space)  # the page's one button has the keyboard
        qtbot.waitUntil(lambda: window.findChild(ImportDialog) is not None, timeout=5000)
        dialog = window.findChild(ImportDialog)
        assert dialog is not None
        dialog.reject()
        # the first decision replaces the page with the list, without a click
        worker = threading.Thread(target=window.bridge.journal.store.put, args=(record(1),))
        worker.start()
        worker.join()
        qtbot.waitUntil(lambda: window.journal_stack.currentWidget() is not window.welcome)
        qtbot.waitUntil(lambda: window.model.rowCount() == 1, timeout=2000)
        assert window.splitter.isVisible()
    finally:
        shut_down(qtbot, window)


def test_the_page_names_every_client_setup_configures() -> None:
    assert sorted(SETUP_CLIENTS) == sorted(CLIENTS)
    assert SETUP_COMMAND.split()[2] in CLIENTS


@pytest.mark.parametrize("deleted", [False, True])
def test_a_journal_with_decisions_never_shows_the_page(
    qtbot: QtBot, tmp_path: Path, deleted: bool
) -> None:
    """Only deleted ones, or none that the filter matches: the list and its empty state."""
    journal = make_journal(tmp_path / "journal", [record(1)])
    if deleted:
        DecisionStore(journal.root).soft_delete("decision-test-0001", 1)
    window = open_window(qtbot, journal, tmp_path / "settings.ini")
    try:
        window.filter_bar.search.setText("nothing matches this")
        window.filter_bar.flush()
        qtbot.waitUntil(lambda: window.model.rowCount() == 0, timeout=5000)
        qtbot.wait(200)
        assert window.journal_stack.currentWidget() is not window.welcome
        assert window.list_stack.currentWidget() is window.empty_page
    finally:
        shut_down(qtbot, window)
