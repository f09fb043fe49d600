"""The choice page's "Your usual choice" line: evidence only, driven with real key events."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QLabel, QRadioButton, QToolButton
from pytestqt.qtbot import QtBot

from app.gui.capture.choice_page import RECOMMENDED_TEXT, USUAL_TEXT, UsualChoiceLine
from app.gui.capture.window import CaptureWindow
from core.decider.service import UsualChoice
from tests.app.support.capture_support import make_request, message, open_window, radios

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore(
        r"This plugin does not support propagateSizeHints\(\)",
        r"This plugin does not support raise\(\)",
        r"This plugin does not support lower\(\)",
    ),
]

USUAL = UsualChoice(
    option_id="sqlite",
    option_label="Single SQLite database",
    support=9,
    total=10,
    rule_id="preference-4f2a9c1e",
    examples=("Store the crash reports", "Keep the sync state"),
)


def press(key: Qt.Key) -> None:
    target = QApplication.focusWidget()
    assert target is not None
    QTest.keyClick(target, key)


def usual_line(window: CaptureWindow) -> UsualChoiceLine:
    found = window.findChild(UsualChoiceLine)
    assert found is not None
    return found


def test_the_line_says_what_you_usually_choose_and_selects_nothing(qtbot: QtBot) -> None:
    window = open_window(qtbot, make_request(usual_choice=USUAL))
    line = usual_line(window)
    assert line.isVisible()
    assert line.line.text() == (
        f"{USUAL_TEXT}: You chose Single SQLite database in 9 of 10 similar decisions "
        "(rule preference-4f2a9c1e)."
    )
    assert not any(r.isChecked() for r in radios(window))
    chosen: list[tuple[str, str]] = []
    window.choice_made.connect(lambda option, custom: chosen.append((option, custom)))
    press(Qt.Key.Key_Return)  # Enter never accepts: nothing is chosen yet
    qtbot.wait(50)
    assert chosen == [] and not any(r.isChecked() for r in radios(window))
    assert message(window).startswith("Choose an approach first")
    # the agent's recommendation keeps its own badge, on its own card, and the usual
    # choice marks no card
    badges = [b for b in window.findChildren(QLabel) if b.text() == RECOMMENDED_TEXT]
    assert len(badges) == 1
    press(Qt.Key.Key_1)
    press(Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: chosen == [("per-repository", "")])


def test_examples_are_one_click_away_and_take_no_keys(qtbot: QtBot) -> None:
    window = open_window(qtbot, make_request(usual_choice=USUAL))
    line = usual_line(window)
    toggle = line.findChild(QToolButton)
    assert toggle is not None and toggle.focusPolicy() == Qt.FocusPolicy.ClickFocus
    assert not line.examples.isVisible()
    QTest.mouseClick(toggle, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(line.examples.isVisible)
    assert "Store the crash reports" in line.examples.text()
    assert toggle.text() == "Hide &examples"
    focused = QApplication.focusWidget()
    assert isinstance(focused, QRadioButton | QToolButton)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    press(Qt.Key.Key_E)  # the keyboard's way: E hides and shows them, and selects nothing
    qtbot.waitUntil(lambda: not line.examples.isVisible())
    press(Qt.Key.Key_E)
    qtbot.waitUntil(line.examples.isVisible)
    assert not any(r.isChecked() for r in radios(window))


def test_without_a_rule_or_with_the_setting_off_there_is_no_line(qtbot: QtBot) -> None:
    window = open_window(qtbot, make_request())
    assert window.findChild(UsualChoiceLine) is None
