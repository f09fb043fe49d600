"""The tray through its actions and signals, as the style guide asks."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSize
from PySide6.QtGui import QIcon, QImage
from PySide6.QtWidgets import QApplication, QSystemTrayIcon, QWidget
from pytestqt.qtbot import QtBot

from app import autostart
from app.desktop_notifications import DesktopNotifier
from app.gui.widgets.icons import badge_text, tray_icon
from app.main_app import journal_name
from app.tray import Notified, TrayController, WaitingItem
from core.store.location import default_journal_dir
from tests.app.support.session_bus import fake_service, private_session_bus

ROOT = Path(__file__).resolve().parents[2]

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
    assert tray.icon.toolTip() == "Decision Journal: 2 decisions waiting"
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


# The icon, the tooltip and notifications


def test_the_tooltip_names_a_journal_that_is_not_the_default(qtbot: QtBot) -> None:
    tray = TrayController(autostart_enabled=False, journal_name="~/work/journal")
    assert tray.icon.toolTip() == "Decision Journal — ~/work/journal"
    tray.set_waiting(WAITING[:1])
    assert tray.icon.toolTip() == "Decision Journal — ~/work/journal: 1 decision waiting"
    default = TrayController(autostart_enabled=False)
    assert default.icon.toolTip() == "Decision Journal"


def test_journal_name_is_empty_for_the_default_journal(tmp_path: Path) -> None:
    assert journal_name(default_journal_dir()) == ""
    assert journal_name(Path.home() / "work" / "journal") == "~/work/journal"
    assert journal_name(tmp_path) == str(tmp_path)


@pytest.mark.parametrize(("count", "text"), [(0, ""), (1, "1"), (9, "9"), (10, "9+"), (250, "9+")])
def test_badge_text(count: int, text: str) -> None:
    assert badge_text(count) == text


def _pixels(icon: QIcon, size: int, ratio: float) -> QImage:
    return icon.pixmap(QSize(size, size), ratio).toImage()


def test_the_icon_shows_the_count_and_is_rendered_at_the_device_ratio(qtbot: QtBot) -> None:
    one, two = tray_icon(1, (1.0, 2.0)), tray_icon(2, (1.0, 2.0))
    idle = tray_icon(0, (1.0, 2.0))
    sharp = one.pixmap(QSize(22, 22), 2.0)
    assert sharp.devicePixelRatio() == 2.0
    assert sharp.size() == QSize(44, 44)
    assert _pixels(one, 22, 2.0) != _pixels(two, 22, 2.0)
    assert _pixels(one, 22, 2.0) != _pixels(idle, 22, 2.0)
    corner = _pixels(one, 32, 1.0).pixelColor(24, 24)
    assert corner.red() > 150 and corner.blue() < 80  # the badge sits at the lower right


def test_the_tray_icon_changes_with_the_count(qtbot: QtBot) -> None:
    tray = TrayController(autostart_enabled=False)
    before = _pixels(tray.icon.icon(), 32, 1.0)
    tray.set_waiting(WAITING)
    after = _pixels(tray.icon.icon(), 32, 1.0)
    assert before != after


def test_no_notification_over_a_window_in_use(qtbot: QtBot) -> None:
    notifier = DesktopNotifier(gdbus="/bin/true", available=True)
    tray = TrayController(autostart_enabled=False, notifier=notifier)
    window = QWidget()
    qtbot.addWidget(window)
    window.show()
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    assert tray.notify("Decision needed", "Pick one") is Notified.SKIPPED
    window.close()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is None)
    assert tray.notify("Decision needed", "Pick one") is Notified.DESKTOP


def test_without_a_notification_service_the_balloon_is_the_fallback(qtbot: QtBot) -> None:
    tray = TrayController(
        autostart_enabled=False, notifier=DesktopNotifier(gdbus="", available=False)
    )
    tray.show()
    can_balloon = QSystemTrayIcon.supportsMessages() and tray.icon.isVisible()
    got = tray.notify("Decision needed", "Pick one")
    tray.hide()
    assert got is (Notified.BALLOON if can_balloon else Notified.SKIPPED)


@pytest.fixture
def session_bus() -> Iterator[str]:
    with private_session_bus() as address:
        yield address


def test_notifications_go_through_the_freedesktop_service(
    qtbot: QtBot, tmp_path: Path, session_bus: str
) -> None:
    calls = tmp_path / "calls.jsonl"
    gdbus = shutil.which("gdbus")
    assert gdbus is not None
    wrapper = tmp_path / "gdbus-on-private-bus"
    wrapper.write_text(f'#!/bin/sh\nDBUS_SESSION_BUS_ADDRESS="{session_bus}" exec {gdbus} "$@"\n')
    wrapper.chmod(0o700)
    with fake_service(session_bus, calls) as ready:
        assert ready == "ready"
        notifier = DesktopNotifier(gdbus=str(wrapper), available=True)
        tray = TrayController(autostart_enabled=False, notifier=notifier, journal_name="~/b")
        assert tray.notify("Decision needed in shop", "Pick <one> & 'go'") is Notified.DESKTOP
        qtbot.waitUntil(lambda: calls.exists() and calls.read_text().strip() != "", timeout=10_000)
    (call,) = [json.loads(line) for line in calls.read_text().splitlines()]
    assert call["signature"] == "susssasa{sv}i"
    assert call["plain"] == [
        "Decision Journal",
        0,
        "decision-journal",
        "Decision needed in shop (~/b)",
        "Pick &lt;one&gt; &amp; 'go'",
        8000,
    ]


def test_the_service_is_found_on_the_session_bus(tmp_path: Path, session_bus: str) -> None:
    """Only the check itself: whether the bus has the service, asked over QtDBus."""
    env = {**os.environ, "DBUS_SESSION_BUS_ADDRESS": session_bus, "PYTHONPATH": str(ROOT)}
    probe = [
        sys.executable,
        "-c",
        "from app.desktop_notifications import service_running as s; print(s())",
    ]
    before = subprocess.run(probe, env=env, cwd=ROOT, capture_output=True, text=True, check=False)
    assert before.stdout.strip() == "False", before.stderr
    with fake_service(session_bus, tmp_path / "calls.jsonl") as ready:
        assert ready == "ready"
        after = subprocess.run(probe, env=env, cwd=ROOT, capture_output=True, text=True)
    assert after.stdout.strip() == "True", after.stderr


# Start at login


def test_autostart_keeps_the_journal_and_each_journal_has_its_own_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    work, home = tmp_path / "work journal", tmp_path / "home"
    autostart.set_enabled(True, journal_root=work)
    autostart.set_enabled(True, journal_root=home)
    assert autostart.is_enabled(work) and autostart.is_enabled(home)
    assert not autostart.is_enabled(None)
    entries = sorted((tmp_path / "config" / "autostart").glob("*.desktop"))
    assert len(entries) == 2
    text = autostart.linux_entry_path(work).read_text()
    assert autostart.entry_command(text)[-3:] == ["--journal", str(work), "app"]
    assert "StartupWMClass=decision-journal\n" in text
    assert "Name=Decision Journal (work journal)\n" in text
    autostart.set_enabled(False, journal_root=work)
    assert not autostart.is_enabled(work) and autostart.is_enabled(home)


def test_autostart_for_the_default_journal_needs_no_journal_option(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    autostart.set_enabled(True, journal_root=default_journal_dir())
    path = tmp_path / "config" / "autostart" / "decision-journal.desktop"
    command = autostart.entry_command(path.read_text())
    assert "--journal" not in command and command[-1] == "app"
    assert autostart.is_enabled(None)


def test_an_awkward_journal_path_survives_the_exec_line(tmp_path: Path) -> None:
    odd = tmp_path / 'a "quoted" $HOME `x` \\ 100% journal'
    command = autostart.launch_command(odd)
    text = autostart._desktop_entry(command, odd)
    assert autostart.entry_command(text) == command


def test_an_automatic_answer_is_told_and_offered_to_overrule(qtbot: QtBot) -> None:
    notifier = DesktopNotifier(gdbus="/bin/true", available=True)
    tray = TrayController(autostart_enabled=False, notifier=notifier)
    assert tray.answered_for_you("decision-auto", "Postgres") is Notified.DESKTOP
    [action] = [a for a in tray.waiting_actions if a.text().startswith("Overrule")]
    assert action.text() == "Overrule “Postgres” (answered for you)…"
    with qtbot.waitSignal(tray.overrule_requested) as picked:
        action.trigger()
    assert picked.args == ["decision-auto"]


def test_the_usual_choice_setting_is_a_checkable_menu_item(qtbot: QtBot) -> None:
    tray = TrayController(autostart_enabled=False, usual_choice_enabled=True)
    assert tray.usual_choice_action in tray.menu.actions()
    assert tray.usual_choice_action.isChecked()
    with qtbot.waitSignal(tray.usual_choice_toggled) as toggled:
        tray.usual_choice_action.trigger()
    assert toggled.args == [False]
