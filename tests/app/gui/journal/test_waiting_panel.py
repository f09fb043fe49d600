"""The Waiting tab (pending decisions, agent notes) and how the tray app opens the window."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from app.gui.journal.window import JournalWindow
from app.main_app import TrayApp
from core.agents.notes import AgentNote, NoteStore
from core.capture.machine import CaptureService
from core.journal import Journal
from core.record.identity import project_identity
from tests.app.support.journal_support import (
    make_journal,
    open_window,
    press,
    record,
    redirected_settings,
    shut_down,
)
from tests.factories import proposal_dict

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore(
        # The offscreen platform has no tray host to watch.
        r"No such signal QPlatformNativeInterface::systemTrayWindowChanged",
    ),
]
WORKSPACE = "/home/user/src/alpha"


@pytest.fixture
def journal(tmp_path: Path) -> Journal:
    identity = project_identity(WORKSPACE)
    journal = make_journal(
        tmp_path / "journal",
        [record(1, project_id=identity.project_id, workspace=identity.workspace)],
    )
    CaptureService(journal.store, journal.pending).begin(
        proposal_dict(problem="Should exports include deleted decisions?"),
        workspace=WORKSPACE,
        session_id="session-waiting",
        agent="Codex",
    )
    notes = NoteStore(journal.root)
    notes.append(workspace=WORKSPACE, decision="Kept the TTL at 15 minutes", why="reference")
    notes.append(workspace=WORKSPACE, decision="Used QSettings", why="platform conventions")
    return journal


@pytest.fixture
def window(qtbot: QtBot, journal: Journal, tmp_path: Path) -> Iterator[JournalWindow]:
    window = open_window(qtbot, journal, tmp_path / "settings.ini")
    window.tabs.setCurrentWidget(window.waiting_panel)
    yield window
    shut_down(qtbot, window)


def test_pending_decisions_are_listed_and_answered_through_a_signal(
    qtmodeltester: ModelTester, qtbot: QtBot, window: JournalWindow
) -> None:
    panel = window.waiting_panel
    qtbot.waitUntil(lambda: panel.pending.rowCount() == 1, timeout=5000)
    qtmodeltester.check(panel.pending)
    assert window.tabs.tabText(2) == "&Waiting (1)"
    assert panel.pending.index(0).data().startswith("Should exports include deleted decisions?")
    assert "choose an approach" in panel.pending.index(0).data()
    decision_id = panel.pending.index(0).data(Qt.ItemDataRole.ToolTipRole)
    with qtbot.waitSignal(window.answer_requested, timeout=2000) as signal:
        panel.pending_view.setFocus()
        press(panel.pending_view, Qt.Key.Key_Return)
    assert signal.args == [decision_id]


def test_agent_notes_timeline_of_the_current_project(
    qtmodeltester: ModelTester, qtbot: QtBot, window: JournalWindow
) -> None:
    panel = window.waiting_panel
    qtbot.waitUntil(lambda: panel.notes.rowCount() == 2, timeout=5000)
    qtmodeltester.check(panel.notes)
    newest = panel.notes.index(0).data()
    assert "Used QSettings" in newest and "Why: platform conventions" in newest
    assert panel.current_project() == project_identity(WORKSPACE).project_id


def test_tray_app_opens_the_window_and_routes_answers(
    qtbot: QtBot, journal: Journal, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    answered: list[str] = []
    with redirected_settings(tmp_path / "settings"):
        app = TrayApp(journal, tray_available=True)
        monkeypatch.setattr(app.controller, "open_pending", answered.append)
        app._create_tray()
        try:
            assert app.tray is not None
            assert app.tray.open_journal_action.isVisible()
            assert app.tray.rebuild_action.isVisible()
            app.tray.open_journal_action.trigger()
            window = app.journal_window
            assert window is not None
            qtbot.waitUntil(window.isVisible)
            qtbot.waitUntil(lambda: window.waiting_panel.pending.rowCount() == 1, timeout=5000)
            window.waiting_panel.answer_button.click()
            assert len(answered) == 1
            window.close()
            app.controller.journal_requested.emit()  # `decision-journal app --show`, forwarded
            assert app.journal_window is window and window.isVisible()
            with qtbot.waitSignal(window.bridge.profile_state_changed, timeout=10_000):
                app.tray.rebuild_action.trigger()
        finally:
            if app.journal_window is not None:
                shut_down(qtbot, app.journal_window)
            app.workers.wait_idle()
            app.profile_worker.stop()
            app.server.close()
            if app.tray is not None:
                app.tray.hide()
            app.deleteLater()


def test_agent_text_in_waiting_items_and_notes_shows_its_control_characters_as_codes(
    qtbot: QtBot, window: JournalWindow
) -> None:
    panel = window.waiting_panel
    panel.set_pending([{"decision_id": "d-1", "problem": "Pick \x1b]0;PWNED\x07 \u202eevil"}])
    assert panel.pending.index(0).data().startswith("Pick \\u001b]0;PWNED\\u0007 \\u202eevil\n")
    note = AgentNote(
        id="n-1",
        created_at="2026-12-01T10:00:00Z",
        project_id="p",
        project_alias="alpha",
        workspace=WORKSPACE,
        session_id="s",
        agent="Codex",
        goal="",
        decision="Kept \u202eLTT\u202c",
        why="see \x1b[2K",
        evidence="\x9b31m",
    )
    panel.set_notes([note])
    shown = panel.notes.index(0).data()
    assert "Kept \\u202eLTT\\u202c" in shown and "Why: see \\u001b[2K" in shown
    assert panel.notes.index(0).data(Qt.ItemDataRole.ToolTipRole) == "\\u009b31m"
