"""The profile panel's Mode tab through the real journal window and its bridge: a kind's
record, and its mode changed only after a confirmation."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QLabel, QMessageBox
from pytestqt.qtbot import QtBot

from app.gui.journal.window import JournalWindow
from core.capture.machine import Recorded
from core.decider.modes import ModeBook
from core.journal import Journal
from tests.app.support.journal_support import open_window, shut_down
from tests.core.decider.support import KIND, database_proposal
from tests.core.decider.support import Journal as AnsweringJournal

pytestmark = [pytest.mark.qt_log_level_fail("WARNING")]


@pytest.fixture
def window(qtbot: QtBot, tmp_path: Path) -> Iterator[JournalWindow]:
    answered = AnsweringJournal(tmp_path / "journal")
    answered.answer_many(12)
    window = open_window(qtbot, Journal(answered.root), tmp_path / "settings.ini")
    window.tabs.setCurrentWidget(window.profile_panel)
    qtbot.waitUntil(lambda: window.profile_panel.rules.rowCount() > 0, timeout=5000)
    yield window
    shut_down(qtbot, window)


def answer_dialogs(
    monkeypatch: pytest.MonkeyPatch, button: QMessageBox.StandardButton
) -> list[str]:
    asked: list[str] = []

    def question(_parent: object, _title: str, text: str, *_args: object) -> object:
        asked.append(text)
        return button

    monkeypatch.setattr(QMessageBox, "question", question)
    return asked


def test_the_mode_tab_shows_the_record_and_changes_only_when_confirmed(
    qtbot: QtBot, window: JournalWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    panel = window.profile_panel
    page = panel.modes
    panel.table.selectRow(0)
    panel.detail_tabs.setCurrentWidget(page)
    qtbot.waitUntil(lambda: "10 scored (100% agreement)" in page.summary.text(), timeout=5000)
    assert "“database-engine” decisions are asked (ask)." in page.summary.text()
    assert "Auto is recommended." in page.summary.text()
    assert page.auto_button.isEnabled() and not page.ask_button.isEnabled()

    declined = answer_dialogs(monkeypatch, QMessageBox.StandardButton.Cancel)
    QTest.mouseClick(page.auto_button, Qt.MouseButton.LeftButton)
    assert declined and "agreed with you in 10 of 10" in declined[0]
    qtbot.wait(200)
    assert ModeBook(window.bridge.journal.root).mode_of(KIND) == "ask"

    answer_dialogs(monkeypatch, QMessageBox.StandardButton.Yes)
    QTest.mouseClick(page.auto_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(
        lambda: "answered from your profile (auto)" in page.summary.text(), timeout=5000
    )
    assert ModeBook(window.bridge.journal.root).mode_of(KIND) == "auto"
    assert page.ask_button.isEnabled() and not page.auto_button.isEnabled()

    answer_dialogs(monkeypatch, QMessageBox.StandardButton.Yes)
    QTest.mouseClick(page.ask_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "are asked (ask)" in page.summary.text(), timeout=5000)
    assert ModeBook(window.bridge.journal.root).mode_of(KIND) == "ask"


def test_auto_is_not_offered_before_it_is_recommended(qtbot: QtBot, tmp_path: Path) -> None:
    answered = AnsweringJournal(tmp_path / "journal")
    answered.answer_many(5)
    window = open_window(qtbot, Journal(answered.root), tmp_path / "settings.ini")
    try:
        window.tabs.setCurrentWidget(window.profile_panel)
        qtbot.waitUntil(lambda: window.profile_panel.rules.rowCount() > 0, timeout=5000)
        page = window.profile_panel.modes
        window.profile_panel.table.selectRow(0)
        qtbot.waitUntil(lambda: "3 scored" in page.summary.text(), timeout=5000)
        assert "Not yet: 3 scored predictions; auto needs at least 10." in page.summary.text()
        assert not page.auto_button.isEnabled()
        assert "auto needs at least 10" in page.auto_button.toolTip()
    finally:
        shut_down(qtbot, window)


def test_an_automatic_answer_is_marked_in_the_journal_window(qtbot: QtBot, tmp_path: Path) -> None:
    answered = AnsweringJournal(tmp_path / "journal")
    answered.answer_many(12)
    answered.decider.set_mode(KIND, "auto")
    outcome = answered.present(database_proposal(99))
    assert isinstance(outcome, Recorded)
    window = open_window(qtbot, Journal(answered.root), tmp_path / "settings.ini")
    try:
        window.open_decision(outcome.record.id)
        qtbot.waitUntil(lambda: window.is_shown(outcome.record.id), timeout=5000)
        badges = window.inspector.badges_label.text()
        assert badges.endswith("·  answered by your profile")
        texts = [label.text() for label in window.findChildren(QLabel)]
        assert any(t.startswith("Answered by your preference profile, not asked") for t in texts)
        person = next(r for r in answered.store.list() if r.id != outcome.record.id)
        window.open_decision(person.id)
        qtbot.waitUntil(lambda: window.is_shown(person.id), timeout=5000)
        assert "answered by your profile" not in window.inspector.badges_label.text()
    finally:
        shut_down(qtbot, window)
