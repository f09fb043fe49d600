"""The "Current project" scope stays one project while the window is open: a change elsewhere
(another agent's answer, a CLI edit, a soft-delete here) never swaps the list or its label, and
an emptied project offers the others in one click. Reopening the window looks again."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QMessageBox, QPushButton
from pytestqt.qtbot import QtBot

from app.gui.journal.requests import SCOPE_CURRENT
from app.gui.journal.window import JournalWindow
from core.journal import Journal
from tests.app.support.journal_support import (
    PROJECT_B,
    make_journal,
    open_window,
    record,
    shut_down,
)

pytestmark = [pytest.mark.qt_log_level_fail("WARNING")]
BETA = {"project_id": PROJECT_B, "project_alias": "beta", "workspace": "/src/beta"}


def listed(window: JournalWindow) -> list[str]:
    return [window.model.list_row(n).id for n in range(window.model.rowCount())]


def shown(window: JournalWindow) -> str:
    """The decision in the detail pane, "" when none (or a deleted one) is shown."""
    record = window.record
    return record.id if record is not None and not record.is_deleted else ""


def scope_label(window: JournalWindow) -> str:
    return window.filter_bar.scope.itemText(0)


@pytest.fixture
def journal(tmp_path: Path) -> Journal:
    return make_journal(tmp_path / "journal", [record(1, **BETA), record(2), record(3)])


@pytest.fixture
def window(qtbot: QtBot, journal: Journal, tmp_path: Path) -> Iterator[JournalWindow]:
    """A window opened on "Current: alpha", the project of the newest decision."""
    window = open_window(qtbot, journal, tmp_path / "settings.ini")
    assert window.filter_bar.state.scope == SCOPE_CURRENT
    qtbot.waitUntil(lambda: scope_label(window) == "Current: alpha", timeout=5000)
    assert listed(window) == ["decision-test-0003", "decision-test-0002"]
    yield window
    shut_down(qtbot, window)


def _answer_in_beta(journal: Journal) -> None:
    """Another process revises beta's decision: beta now has the newest one."""
    journal.store.revise("decision-test-0001", 1, lambda r: setattr(r, "tags", ["later"]))


def _soft_delete_shown(qtbot: QtBot, window: JournalWindow) -> None:
    window.dialogs.delete_current()
    box = window.findChild(QMessageBox, "confirm-box")
    assert box is not None
    qtbot.waitUntil(box.isVisible)
    button = next(b for b in box.findChildren(QPushButton) if b.text() == "Soft-delete")
    with qtbot.waitSignal(window.bridge.mutation_finished, timeout=10_000):
        button.click()


def test_an_answer_in_another_project_keeps_the_list_and_its_label(
    qtbot: QtBot, window: JournalWindow, journal: Journal
) -> None:
    _answer_in_beta(journal)
    with qtbot.waitSignals([window.bridge.catalog_loaded, window.scope_counted], timeout=10_000):
        window.bridge.load_catalog()  # what a reconcile that found the change does
        window.reload_scope()
    assert listed(window) == ["decision-test-0003", "decision-test-0002"]
    assert scope_label(window) == "Current: alpha"


def test_deleting_the_projects_last_decisions_offers_the_other_projects(
    qtbot: QtBot, window: JournalWindow
) -> None:
    qtbot.waitUntil(lambda: shown(window) == "decision-test-0003", timeout=5000)
    _soft_delete_shown(qtbot, window)
    qtbot.waitUntil(lambda: shown(window) == "decision-test-0002", timeout=5000)
    with qtbot.waitSignal(window.bridge.catalog_loaded, timeout=10_000):
        _soft_delete_shown(qtbot, window)
    assert window.list_stack.currentWidget() is window.empty_page
    qtbot.waitUntil(window.elsewhere_button.isVisible, timeout=5000)
    assert window.elsewhere_button.text() == "Show 1 decision in other projects"
    assert scope_label(window) == "Current: alpha"


def test_reopening_the_window_looks_for_the_current_project_again(
    qtbot: QtBot, window: JournalWindow, journal: Journal
) -> None:
    _answer_in_beta(journal)
    window.close()
    with qtbot.waitSignal(window.scope_counted, timeout=10_000):
        window.present()
    qtbot.waitUntil(lambda: scope_label(window) == "Current: beta", timeout=5000)
    assert listed(window) == ["decision-test-0001"]
