"""The tray through its actions and signals, as the style guide asks."""

from __future__ import annotations

from PySide6.QtWidgets import QSystemTrayIcon
from pytestqt.qtbot import QtBot

from app.tray import TrayController, WaitingItem

WAITING = [
    WaitingItem("decision-a", "Pick the cache eviction policy", "shop", "choice"),
    WaitingItem("decision-b", "Choose the storage layout & format", "", "rationale"),
]


def test_waiting_decisions_are_listed_and_open_on_click(qtbot: QtBot) -> None:
    tray = TrayController(autostart_enabled=False)
    tray.set_waiting(WAITING)
    assert tray.waiting_header.text() == "Waiting for you (2)"
    labels = [action.text() for action in tray.waiting_actions]
    assert labels == ["shop: Pick the cache eviction policy", "Choose the storage layout && format"]
    assert "2 decision(s) waiting" in tray.icon.toolTip()
    with qtbot.waitSignal(tray.decision_requested) as picked:
        tray.waiting_actions[1].trigger()
    assert picked.args == ["decision-b"]
    with qtbot.waitSignal(tray.decision_requested) as clicked:
        tray.icon.activated.emit(QSystemTrayIcon.ActivationReason.Trigger)
    assert clicked.args == ["decision-a"]


def test_click_without_waiting_opens_the_journal(qtbot: QtBot) -> None:
    tray = TrayController(autostart_enabled=True)
    tray.set_waiting([])
    assert tray.waiting_header.text() == "No decisions waiting"
    assert tray.autostart_action.isChecked()
    with qtbot.waitSignal(tray.journal_requested):
        tray.icon.activated.emit(QSystemTrayIcon.ActivationReason.Trigger)
    with qtbot.waitSignal(tray.quit_requested):
        tray.quit_action.trigger()
