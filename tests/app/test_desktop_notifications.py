"""Notifications with an "Overrule" button, over a private session bus and a stand-in service
that records every Notify and presses buttons as a person would; and the fallbacks when the
service shows no buttons or is not there."""

from __future__ import annotations

import json
import string
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pytestqt.qtbot import QtBot

from app.desktop_notifications import (
    DesktopNotifier,
    capabilities_of,
    gvariant_string,
    notification_id,
    notify_arguments,
)
from app.tray import AUTOMATIC_ACTIONS, Notified, TrayController
from tests.app.support.fake_notification_service import invoke
from tests.app.support.session_bus import fake_service, private_session_bus


@pytest.fixture
def session_bus() -> Iterator[str]:
    with private_session_bus() as address:
        yield address


def _lines(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


def _calls(path: Path) -> list[dict[str, Any]]:
    return [line for line in _lines(path) if "closed" not in line]


def _ready_notifier(qtbot: QtBot, address: str) -> DesktopNotifier:
    notifier = DesktopNotifier(bus_address=address)
    notifier.probe()
    qtbot.waitUntil(lambda: notifier._capabilities is not None, timeout=10_000)
    return notifier


def test_the_call_carries_the_actions_and_stays_until_answered() -> None:
    args = notify_arguments("Answered", "Postgres", AUTOMATIC_ACTIONS)
    assert args[-3] == "['overrule', 'Overrule', 'default', 'Open']"
    assert args[-1] == "0"
    assert notify_arguments("Told", "x")[-3:] == [
        "[]",
        "{'desktop-entry': <'decision-journal'>, 'urgency': <byte 1>}",
        "8000",
    ]


@pytest.mark.parametrize(
    ("output", "number"),
    [("(uint32 7,)\n", 7), ("(12,)", 12), ("", None), ("Error: no such service", None)],
)
def test_the_id_is_read_from_the_reply(output: str, number: int | None) -> None:
    assert notification_id(output) == number


def test_capabilities_are_read_from_the_reply() -> None:
    assert capabilities_of("(['actions', 'body', 'body-markup'],)\n") == {
        "actions",
        "body",
        "body-markup",
    }
    assert capabilities_of("") == frozenset()


def test_overrule_on_the_notification_asks_for_that_decision(
    qtbot: QtBot, tmp_path: Path, session_bus: str
) -> None:
    calls = tmp_path / "calls.jsonl"
    with fake_service(session_bus, calls) as ready:
        assert ready == "ready"
        notifier = _ready_notifier(qtbot, session_bus)
        assert notifier.supports_actions()
        tray = TrayController(autostart_enabled=False, notifier=notifier)
        assert tray.answered_for_you("decision-auto", "Postgres") is Notified.ACTIONS
        qtbot.waitUntil(lambda: len(_calls(calls)) == 1 and bool(notifier.sent()), timeout=10_000)
        [call] = _calls(calls)
        assert call["signature"] == "susssasa{sv}i"
        assert call["actions"] == ["overrule", "Overrule", "default", "Open"]
        assert call["plain"][3] == "Answered from your usual choice"
        assert notifier.sent() == {call["id"]: "decision-auto"}
        # the tray menu still offers it, for a desktop whose notifications vanish
        assert any(a.text().startswith("Overrule") for a in tray.waiting_actions)

        with qtbot.waitSignal(tray.overrule_requested, timeout=10_000) as pressed:
            invoke(session_bus, call["id"], "overrule")
        assert pressed.args == ["decision-auto"]
        qtbot.waitUntil(lambda: not notifier.sent(), timeout=10_000)  # closed: forgotten


def test_open_on_the_notification_shows_the_decision(
    qtbot: QtBot, tmp_path: Path, session_bus: str
) -> None:
    calls = tmp_path / "calls.jsonl"
    with fake_service(session_bus, calls):
        tray = TrayController(autostart_enabled=False, notifier=_ready_notifier(qtbot, session_bus))
        tray.answered_for_you("decision-auto", "Postgres")
        qtbot.waitUntil(lambda: bool(tray.notifier.sent()), timeout=10_000)
        [call] = _calls(calls)
        with qtbot.waitSignal(tray.automatic_opened, timeout=10_000) as opened:
            invoke(session_bus, call["id"], "default")
        assert opened.args == ["decision-auto"]


def test_a_button_of_a_notification_we_did_not_send_is_ignored(
    qtbot: QtBot, tmp_path: Path, session_bus: str
) -> None:
    with fake_service(session_bus, tmp_path / "calls.jsonl"):
        notifier = _ready_notifier(qtbot, session_bus)
        tray = TrayController(autostart_enabled=False, notifier=notifier)
        tray.answered_for_you("decision-auto", "Postgres")
        qtbot.waitUntil(lambda: bool(notifier.sent()), timeout=10_000)
        [ours] = notifier.sent()
        with qtbot.assertNotEmitted(tray.overrule_requested, wait=1500):
            invoke(session_bus, ours + 100, "overrule")


def test_a_service_without_buttons_gets_the_tray_menu_text(
    qtbot: QtBot, tmp_path: Path, session_bus: str
) -> None:
    calls = tmp_path / "calls.jsonl"
    with fake_service(session_bus, calls, capabilities="body"):
        notifier = _ready_notifier(qtbot, session_bus)
        assert not notifier.supports_actions()
        tray = TrayController(autostart_enabled=False, notifier=notifier)
        assert tray.answered_for_you("decision-auto", "Postgres") is Notified.DESKTOP
        qtbot.waitUntil(lambda: len(_calls(calls)) == 1, timeout=10_000)
    [call] = _calls(calls)
    assert call["actions"] == []
    assert "pick “Overrule” in the Decision Journal tray menu" in call["plain"][4]
    [item] = [a for a in tray.waiting_actions if a.text().startswith("Overrule")]
    with qtbot.waitSignal(tray.overrule_requested) as picked:
        item.trigger()
    assert picked.args == ["decision-auto"]


def test_without_a_service_a_click_on_the_balloon_overrules(qtbot: QtBot) -> None:
    tray = TrayController(
        autostart_enabled=False, notifier=DesktopNotifier(gdbus="", available=False)
    )
    tray.show()
    told = tray.answered_for_you("decision-auto", "Postgres")
    tray.hide()
    if told is not Notified.BALLOON:
        pytest.skip("this platform shows no tray balloons (the menu item is the way)")
    with qtbot.waitSignal(tray.overrule_requested) as clicked:
        tray.icon.messageClicked.emit()
    assert clicked.args == ["decision-auto"]


def test_quitting_withdraws_the_notifications_with_buttons(
    qtbot: QtBot, tmp_path: Path, session_bus: str
) -> None:
    calls = tmp_path / "calls.jsonl"
    with fake_service(session_bus, calls):
        notifier = _ready_notifier(qtbot, session_bus)
        tray = TrayController(autostart_enabled=False, notifier=notifier)
        tray.answered_for_you("decision-auto", "Postgres")
        qtbot.waitUntil(lambda: bool(notifier.sent()), timeout=10_000)
        [number] = notifier.sent()
        notifier.close_all()
        assert notifier.sent() == {}
        qtbot.waitUntil(lambda: {"closed": number} in _lines(calls), timeout=10_000)


_capability = st.text(alphabet=string.ascii_letters + string.digits + "-_.", min_size=1)


@given(st.lists(_capability, max_size=8), st.integers(0, 2**32 - 1))
def test_replies_as_gdbus_prints_them_are_read_back(names: list[str], number: int) -> None:
    printed = "([" + ", ".join(gvariant_string(n) for n in names) + "],)\n"
    assert capabilities_of(printed) == frozenset(names)
    assert notification_id(f"(uint32 {number},)\n") == number
