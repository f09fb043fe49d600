"""Soft delete and restore from the keyboard, with confirmation, and the revision history."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMessageBox
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from app.gui.journal.decision_dialogs import DELETE_QUESTION, RESTORE_QUESTION
from app.gui.journal.history_view import HistoryDialog, diff_records, flatten
from app.gui.journal.window import JournalWindow
from core.journal import Journal
from tests.app.support.journal_support import (
    answer,
    confirmation,
    make_journal,
    open_window,
    press,
    record,
    shut_down,
)

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
]
CTRL = Qt.KeyboardModifier.ControlModifier


@pytest.fixture
def journal(tmp_path: Path) -> Journal:
    return make_journal(tmp_path / "journal", [record(1), record(2), record(3)])


@pytest.fixture
def window(qtbot: QtBot, journal: Journal, tmp_path: Path) -> Iterator[JournalWindow]:
    window = open_window(qtbot, journal, tmp_path / "settings.ini")
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    qtbot.waitUntil(lambda: window.record is not None, timeout=5000)
    yield window
    shut_down(qtbot, window)


def test_arrows_move_and_enter_opens_the_decision(qtbot: QtBot, window: JournalWindow) -> None:
    window.list_view.setFocus()
    assert window.record is not None and window.record.id == "decision-test-0003"
    press(window.list_view, Qt.Key.Key_Down)
    qtbot.waitUntil(lambda: window.record is not None and window.record.id == "decision-test-0002")
    press(window.list_view, Qt.Key.Key_Return)
    qtbot.waitUntil(window.inspector.scroll_area.hasFocus)


def test_delete_asks_first_and_cancel_keeps_the_decision(
    qtbot: QtBot, window: JournalWindow, journal: Journal
) -> None:
    window.list_view.setFocus()
    press(window.list_view, Qt.Key.Key_Delete)
    box = confirmation(qtbot, window)
    assert box.text() == DELETE_QUESTION.format(problem="Choose the storage layout number 3")
    assert "Restore brings it back" in box.informativeText()
    assert box.defaultButton() is box.button(QMessageBox.StandardButton.Cancel)
    press(box, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not box.isVisible())
    assert journal.store.get("decision-test-0003").revision == 1


def test_delete_hides_the_row_and_restore_brings_it_back(
    qtbot: QtBot, window: JournalWindow, journal: Journal
) -> None:
    window.list_view.setFocus()
    press(window.list_view, Qt.Key.Key_Delete)
    answer(qtbot, window, confirmation(qtbot, window), "Soft-delete")
    deleted = journal.store.get("decision-test-0003")
    assert deleted.is_deleted and deleted.revision == 2
    assert window.statusBar().currentMessage() == (
        "Soft-deleted “Choose the storage layout number 3” (revision 2)."
    )
    assert [window.model.list_row(n).id for n in range(window.model.rowCount())] == [
        "decision-test-0002",
        "decision-test-0001",
    ]
    assert window.caption.text() == "2 of 2 decisions loaded"
    qtbot.waitUntil(lambda: window.record is not None and window.record.id == "decision-test-0002")
    assert window.list_view.currentIndex().row() == 0

    with qtbot.waitSignal(window.scope_counted, timeout=5000):
        window.filter_bar.include_deleted.setChecked(True)
    row = window.model.row_of("decision-test-0003")
    assert window.model.list_row(row).deleted
    window.list_view.setCurrentIndex(window.model.index(row))
    qtbot.waitUntil(lambda: window.record is not None and window.record.id == deleted.id)
    assert window.inspector.restore_button.isVisible()
    assert window.inspector.fork.tree is not None and window.inspector.fork.tree.deleted
    assert window.restore_action.isEnabled() and not window.delete_action.isEnabled()

    window.activateWindow()  # offscreen does not hand activation back when a dialog closes
    qtbot.waitUntil(window.isActiveWindow)
    press(window, Qt.Key.Key_R, CTRL)
    box = confirmation(qtbot, window)
    assert box.text() == RESTORE_QUESTION.format(problem="Choose the storage layout number 3")
    answer(qtbot, window, box, "Restore")
    restored = journal.store.get("decision-test-0003")
    assert not restored.is_deleted and restored.revision == 3
    assert [r.status for r in journal.store.history(restored.id)] == [
        "completed",
        "deleted",
        "corrected",
    ]
    window.reload_scope()
    qtbot.waitUntil(lambda: window.model.rowCount() == 3, timeout=5000)


def test_deleting_the_last_row_shows_the_empty_state(qtbot: QtBot, tmp_path: Path) -> None:
    journal = make_journal(tmp_path / "single", [record(7)])
    window = open_window(qtbot, journal, tmp_path / "single.ini")
    try:
        qtbot.waitUntil(lambda: window.record is not None, timeout=5000)
        window.dialogs.delete_current()
        with qtbot.waitSignal(window.scope_counted, timeout=5000):
            answer(qtbot, window, confirmation(qtbot, window), "Soft-delete")
            assert window.list_stack.currentWidget() is window.empty_page
        assert window.model.rowCount() == 0
        assert window.list_stack.currentWidget() is window.empty_page
        assert not window.elsewhere_button.isVisible()
        assert window.record is None
        assert window.caption.text() == "0 of 0 decisions loaded"
    finally:
        shut_down(qtbot, window)


def test_deleted_decisions_leave_the_default_scope(
    qtbot: QtBot, window: JournalWindow, journal: Journal
) -> None:
    journal.store.soft_delete("decision-test-0002", 1)
    with qtbot.waitSignal(window.scope_counted, timeout=5000):
        window.reload_scope()
    assert [window.model.list_row(n).id for n in range(window.model.rowCount())] == [
        "decision-test-0003",
        "decision-test-0001",
    ]
    with qtbot.waitSignal(window.scope_counted, timeout=5000):
        window.filter_bar.include_deleted.setChecked(True)
    assert window.model.rowCount() == 3


def test_history_lists_revisions_and_diffs_two(
    qtmodeltester: ModelTester, qtbot: QtBot, window: JournalWindow, journal: Journal
) -> None:
    store = journal.store
    store.revise("decision-test-0003", 1, lambda r: setattr(r, "tags", ["layout", "second"]))
    store.soft_delete("decision-test-0003", 2)
    window.bridge.load_record("decision-test-0003")
    qtbot.waitUntil(lambda: window.record is not None and window.record.revision == 3)
    press(window, Qt.Key.Key_H, CTRL)
    dialog = window.findChild(HistoryDialog)
    assert dialog is not None
    qtbot.waitUntil(lambda: dialog.revisions.rowCount() == 3, timeout=5000)
    qtmodeltester.check(dialog.revisions)
    qtmodeltester.check(dialog.diff)
    fields = {change.field for change in dialog.diff.changes()}
    assert "status" in fields and "deleted_at" in fields and "tags" not in fields
    dialog.compare(1, 2)
    changes = {c.field: (c.before, c.after) for c in dialog.diff.changes()}
    assert changes["tags"] == ("layout", "layout, second")
    assert changes["revision"] == ("1", "2")
    assert dialog.diff.headerData(1, Qt.Orientation.Horizontal) == "Revision 1"
    dialog.show_unchanged.setChecked(True)
    assert any(not change.changed for change in dialog.diff.changes())
    press(dialog, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not dialog.isVisible())
    assert QApplication.activeModalWidget() is None


def test_diff_keys_options_by_id() -> None:
    before = record(1)
    after = record(1, selected_option_id="sqlite")
    assert "options[sqlite].label" in flatten(after.to_go_dict())
    changes = {c.field: c for c in diff_records(before, after) if c.changed}
    assert changes["selected_option_id"].after == "sqlite"
