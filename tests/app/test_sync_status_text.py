"""Sync's state in words: the tray menu and tooltip, and the journal window's status bar."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QApplication, QMessageBox
from pytestqt.qtbot import QtBot

from app.gui.journal.sync_status import SyncStatusButton, show_runbook_entry
from app.main_app import TrayApp
from app.tray import TrayController, WaitingItem
from core.journal import Journal
from core.sync.engine import SyncEngine
from core.sync.indicator import CONFLICT, ERROR, OFFLINE, PENDING, SYNCED, SyncView
from core.sync.schedule import SyncTiming
from tests.app.support.journal_support import make_journal, record, redirected_settings
from tests.app.support.teardown import close_app
from tests.integration.sync_machines import bare_remote

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore(
        r"No such signal QPlatformNativeInterface::systemTrayWindowChanged",
    ),
]

TODAY = datetime.now().astimezone()
AT_1405 = TODAY.replace(hour=14, minute=5, second=0, microsecond=0)
AT_1407 = TODAY.replace(hour=14, minute=7, second=0, microsecond=0)
SYNCED_VIEW = SyncView(state=SYNCED, last_synced=AT_1405)
OFFLINE_VIEW = SyncView(
    state=OFFLINE,
    last_synced=AT_1405,
    retry_at=AT_1407,
    entry="sync-offline",
    detail="Could not resolve host: git.example.com",
    pending_commits=1,
)
CONFLICT_VIEW = SyncView(
    state=CONFLICT, conflicts=("decision-b", "decision-c"), entry="sync-conflict"
)
ERROR_VIEW = SyncView(
    state=ERROR, entry="sync-auth-failed", detail="git fetch failed: Permission denied"
)


def test_the_tray_shows_nothing_about_sync_while_it_is_off(qtbot: QtBot) -> None:
    tray = TrayController(autostart_enabled=False)
    texts = [action.text() for action in tray.menu.actions()]
    assert "Sync now" not in texts and tray.sync_state_action not in tray.menu.actions()
    assert tray.icon.toolTip() == "Decision Journal"
    tray.set_sync_view(SyncView())
    assert tray.sync_now_action not in tray.menu.actions()


def test_the_tray_menu_and_tooltip_say_when_it_last_synced(qtbot: QtBot) -> None:
    tray = TrayController(autostart_enabled=False, journal_name="~/work-journal")
    tray.set_waiting([WaitingItem("decision-a", "Pick a cache", "shop", "choice")])
    tray.set_sync_view(SYNCED_VIEW)
    actions = tray.menu.actions()
    assert tray.sync_state_action.text() == "Synced 14:05"
    assert not tray.sync_state_action.isEnabled()
    assert actions.index(tray.sync_state_action) < actions.index(tray.sync_now_action)
    assert actions.index(tray.sync_now_action) < actions.index(tray.open_journal_action)
    assert tray.icon.toolTip() == (
        "Decision Journal — ~/work-journal: 1 decision waiting\nSynced 14:05"
    )
    with qtbot.waitSignal(tray.sync_requested):
        tray.sync_now_action.trigger()


def test_the_tray_says_when_an_offline_sync_retries(qtbot: QtBot) -> None:
    tray = TrayController(autostart_enabled=False)
    tray.set_sync_view(OFFLINE_VIEW)
    assert tray.sync_state_action.text() == "Offline, will retry at 14:07"
    assert tray.icon.toolTip() == "Decision Journal\nOffline, will retry at 14:07"
    assert "Could not resolve host" in tray.sync_state_action.toolTip()


def test_a_conflict_in_the_tray_opens_the_first_conflicted_decision(qtbot: QtBot) -> None:
    tray = TrayController(autostart_enabled=False)
    tray.set_sync_view(CONFLICT_VIEW)
    assert tray.sync_state_action.text() == "2 sync conflicts…"
    assert tray.sync_state_action.isEnabled()
    with qtbot.waitSignal(tray.conflicts_requested) as opened:
        tray.sync_state_action.trigger()
    assert opened.args == ["decision-b"]


def test_an_error_in_the_tray_names_and_opens_its_runbook_entry(qtbot: QtBot) -> None:
    tray = TrayController(autostart_enabled=False)
    tray.set_sync_view(ERROR_VIEW)
    assert tray.sync_state_action.text() == "Sync error: sync-auth-failed…"
    assert tray.icon.toolTip() == "Decision Journal\nSync error: sync-auth-failed"
    with qtbot.waitSignal(tray.sync_help_requested) as helped:
        tray.sync_state_action.trigger()
    assert helped.args == ["sync-auth-failed"]


def test_the_status_bar_button_follows_the_state(qtbot: QtBot) -> None:
    button = SyncStatusButton()
    qtbot.addWidget(button)
    button.set_view(SyncView())
    assert button.isHidden()
    button.set_view(SyncView(state=PENDING, pending_commits=2))
    assert not button.isHidden()
    assert button.text() == "Changes not yet synced"
    assert "2 local commits not yet on the remote." in button.toolTip()
    with qtbot.waitSignal(button.sync_requested):
        button.click()
    button.set_view(CONFLICT_VIEW)
    assert button.text() == "2 sync conflicts"
    with qtbot.waitSignal(button.conflicts_requested) as opened:
        button.click()
    assert opened.args == ["decision-b"]
    button.set_view(ERROR_VIEW)
    assert button.text() == "Sync error: sync-auth-failed"
    assert button.toolTip().endswith(
        "Runbook: decision-journal help runbook sync-auth-failed\nClick to read what to do."
    )
    with qtbot.waitSignal(button.help_requested) as helped:
        button.click()
    assert helped.args == ["sync-auth-failed"]


def test_the_runbook_entry_opens_without_blocking(qtbot: QtBot) -> None:
    box = show_runbook_entry(None, "sync-offline")
    try:
        assert box.isVisible() and not box.isModal()
        assert "**Why:** the remote could not be reached" in " ".join(box.text().split())
        assert "decision-journal help runbook sync-offline" in box.informativeText()
    finally:
        box.close()


def test_the_runbook_entry_says_first_what_happened_as_written(qtbot: QtBot) -> None:
    detail = "key file /home/me/*old*/__sync__ [1](x).key does not exist"
    box = show_runbook_entry(None, "sync-key-unavailable", detail)
    try:
        shown = QTextDocument()
        shown.setMarkdown(box.text())
        first, rest = shown.toPlainText().split("\n", 1)
        assert first == f"What happened: {detail}"
        assert rest.lstrip().startswith("sync-key-unavailable")
    finally:
        box.close()


def test_a_sync_error_picked_in_the_tray_shows_its_own_message(
    qtbot: QtBot, tmp_path: Path
) -> None:
    journal = make_journal(tmp_path / "journal", [record(1)])
    _, url = bare_remote(tmp_path)
    key_file = tmp_path / "sync.key"
    SyncEngine(journal.root).init(url, encrypt=True, key_file=str(key_file))
    key_file.unlink()
    timing = SyncTiming(debounce=0.2, max_delay=1, start_delay=0, poll=3600, retry_first=30)
    with redirected_settings(tmp_path / "settings"):
        app = TrayApp(journal, tray_available=True, sync_timing=timing)
        boxes: list[QMessageBox] = []
        try:
            assert app.start()
            assert app.tray is not None
            qtbot.waitUntil(lambda: app.sync.view.state == ERROR, timeout=20_000)
            app.tray.sync_state_action.trigger()
            boxes = [
                w for w in QApplication.topLevelWidgets()
                if isinstance(w, QMessageBox) and w.objectName() == "sync-runbook"
            ]  # fmt: skip
            texts = [box.text() for box in boxes if box.isVisible()]
        finally:
            for box in boxes:
                box.close()
            close_app(qtbot, app)
    assert len(texts) == 1
    shown = QTextDocument()
    shown.setMarkdown(texts[0])
    assert f"What happened: key file {key_file} does not exist" in shown.toPlainText()


def test_the_journal_window_status_bar_shows_the_apps_sync(qtbot: QtBot, tmp_path: Path) -> None:
    journal = make_journal(tmp_path / "journal", [record(1)])
    _, url = bare_remote(tmp_path)
    SyncEngine(journal.root).init(url, encrypt=False)
    timing = SyncTiming(debounce=0.2, max_delay=1, start_delay=0, poll=3600, retry_first=0.3)
    with redirected_settings(tmp_path / "settings"):
        app = TrayApp(journal, tray_available=True, sync_timing=timing)
        try:
            assert app.start()
            assert app.tray is not None
            qtbot.waitUntil(lambda: app.sync.view.state == SYNCED, timeout=20_000)
            app.tray.open_journal_action.trigger()
            window = app.journal_window
            assert window is not None
            qtbot.waitUntil(window.isVisible)
            button = window.statusBar().findChild(SyncStatusButton, "status-sync")
            assert button is not None and button.isVisible()
            qtbot.waitUntil(lambda: button.text().startswith("Synced "), timeout=20_000)
            assert app.tray.sync_state_action.text() == button.text()
            assert app.tray.icon.toolTip().endswith(f"/journal\n{button.text()}")
            journal.store.put(record(2))
            qtbot.waitUntil(lambda: button.text() == "Changes not yet synced", timeout=5000)
            qtbot.waitUntil(lambda: button.text().startswith("Synced "), timeout=20_000)
            _open_conflict(qtbot, app, journal)
        finally:
            close_app(qtbot, app)


def _open_conflict(qtbot: QtBot, app: TrayApp, journal: Journal) -> None:
    """A click on a conflict opens the decision's history in the journal window."""
    assert app.tray is not None and app.journal_window is not None
    app.tray.conflicts_requested.emit(record(1).id)
    dialogs = app.journal_window.dialogs
    qtbot.waitUntil(lambda: dialogs.history is not None and dialogs.history.isVisible())
    assert dialogs.history is not None and dialogs.history.decision_id == record(1).id
    dialogs.history.close()
    assert not any(
        isinstance(w, QMessageBox) and w.isVisible() for w in QApplication.topLevelWidgets()
    )
