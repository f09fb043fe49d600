"""The questions window's keyboard contract, driven through real widgets and real key events.

Keys go to the widget that has focus, as they would from a keyboard, so the window's shortcuts
and a text field's own claim on printable keys are both exercised.
"""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QInputMethodEvent, QPalette
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QCheckBox,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QRadioButton,
    QWidget,
)
from pytestqt.qtbot import QtBot

from app.gui.questions.question_panel import QuestionPanel
from app.gui.questions.window import SCREEN_SHARE, QuestionsWindow, questions_title
from app.gui.widgets import screen_fit
from app.gui.widgets.byte_counter import ByteCounter
from app.gui.widgets.screen_fit import TITLE_BAR_ALLOWANCE
from app.gui.widgets.window_behaviour import KEY_GUARD_NOTE
from core.ipc.questions import QuestionsAskParams

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore(
        r"This plugin does not support propagateSizeHints\(\)",
        r"This plugin does not support raise\(\)",
    ),
]

KEY = Qt.Key
MOD = Qt.KeyboardModifier
DB = "Which database should the cache use?"
SIGNALS = "Which signals should the worker emit?"


def make_params(*, single_only: bool = False) -> QuestionsAskParams:
    questions: list[dict[str, Any]] = [
        {
            "question": DB,
            "header": "Cache DB",
            "options": [
                {"label": "SQLite", "description": "Embedded, no server to run"},
                {"label": "Redis", "description": "A separate service with TTLs"},
            ],
            "multi_select": False,
        },
        {
            "question": SIGNALS,
            "header": "Signals",
            "options": [
                {"label": "Logging", "description": "Structured logs"},
                {"label": "Metrics", "description": "<b>Prometheus</b> counters"},
                {"label": "Tracing", "description": "OpenTelemetry spans"},
            ],
            "multi_select": True,
        },
    ]
    return QuestionsAskParams.model_validate(
        {
            "questions": questions[:1] if single_only else questions,
            "workspace": "/home/dev/repo",
            "session_id": "claude-session-1",
            "agent": "claude-code",
        }
    )


@pytest.fixture
def window(qtbot: QtBot) -> QuestionsWindow:
    return open_window(qtbot, make_params())


def open_window(qtbot: QtBot, params: QuestionsAskParams) -> QuestionsWindow:
    shown = QuestionsWindow(params)
    qtbot.addWidget(shown)
    shown.present()
    qtbot.waitExposed(shown)
    qtbot.waitUntil(shown.isActiveWindow)
    qtbot.waitUntil(lambda: not shown.key_guard.is_quiet())  # keys right away are ignored
    return shown


def press(key: Qt.Key, modifier: Qt.KeyboardModifier = MOD.NoModifier) -> None:
    target = QApplication.focusWidget()
    assert target is not None, "no widget has keyboard focus"
    QTest.keyClick(target, key, modifier)


def type_text(text: str) -> None:
    target = QApplication.focusWidget()
    assert target is not None, "no widget has keyboard focus"
    QTest.keyClicks(target, text)


def commit_text(text: str) -> None:
    """Text as an input method (a Korean IME) commits it."""
    target = QApplication.focusWidget()
    assert target is not None, "no widget has keyboard focus"
    event = QInputMethodEvent("", [])
    event.setCommitString(text)
    QApplication.sendEvent(target, event)


def panel(window: QuestionsWindow, number: int) -> QuestionPanel:
    found = window.findChild(QuestionPanel, f"question-{number}")
    assert found is not None
    return found


def child(parent: QWidget, kind: type[Any], name: str) -> Any:
    found = parent.findChild(kind, name)
    assert found is not None, name
    return found


def option(window: QuestionsWindow, question: int, name: str) -> QAbstractButton:
    found: QAbstractButton = child(panel(window, question), QAbstractButton, f"option-{name}")
    return found


def other(window: QuestionsWindow, question: int) -> QLineEdit:
    found: QLineEdit = child(panel(window, question), QLineEdit, "other-text")
    return found


def reason(window: QuestionsWindow, question: int) -> QPlainTextEdit:
    found: QPlainTextEdit = child(panel(window, question), QPlainTextEdit, "reason-text")
    return found


def counter(window: QuestionsWindow, question: int, name: str) -> ByteCounter:
    found: ByteCounter = child(panel(window, question), ByteCounter, name)
    return found


def message(window: QuestionsWindow) -> str:
    found: QLabel = child(window, QLabel, "message")
    return found.text()


def checked(window: QuestionsWindow, question: int) -> list[str]:
    """Which buttons of a question are checked: "1" to "4", or "other"."""
    buttons = panel(window, question).findChildren(QAbstractButton)
    return [b.objectName().removeprefix("option-") for b in buttons if b.isChecked()]


def next_question(window: QuestionsWindow) -> None:
    """Tab past this question's options, Other and reason: three stops per question."""
    for _ in range(3):
        press(KEY.Key_Tab)


# --- what is shown ---------------------------------------------------------------------------


def test_title_is_question_and_the_start_of_the_first_question(window: QuestionsWindow) -> None:
    assert window.windowTitle() == f"Question: {DB}"
    long = questions_title("Should we " + "really " * 20 + "migrate?")
    assert long.startswith("Question: Should we really")
    assert long.endswith("…")
    assert len(long) <= len("Question: ") + 60


def test_every_question_is_shown_with_header_text_and_options(window: QuestionsWindow) -> None:
    texts = [label.text() for label in window.findChildren(QLabel) if label.isVisible()]
    for expected in (
        "Question 1 · Cache DB",
        DB,
        "Question 2 · Signals",
        SIGNALS,
        "SQLite",
        "Embedded, no server to run",
        "<b>Prometheus</b> counters",
        "Why? (optional)",
        "Asked by claude-code · session claude-session-1 · /home/dev/repo",
        f"Press 1–2 to choose one, O to type your own. {KEY_GUARD_NOTE}",  # said once
        "Press 1–3 to toggle any, O to type your own.",
    ):
        assert expected in texts, expected
    for label in window.findChildren(QLabel):
        if label.text() and not isinstance(label, ByteCounter):
            assert label.textFormat() == Qt.TextFormat.PlainText, label.text()


def test_single_select_uses_radios_multi_select_uses_checkboxes(window: QuestionsWindow) -> None:
    assert len(panel(window, 1).findChildren(QRadioButton)) == 3  # two options and Other
    assert not panel(window, 1).findChildren(QCheckBox)
    assert len(panel(window, 2).findChildren(QCheckBox)) == 4
    assert not panel(window, 2).findChildren(QRadioButton)


def test_nothing_is_preselected_and_the_first_option_has_focus(window: QuestionsWindow) -> None:
    assert not any(b.isChecked() for b in window.findChildren(QAbstractButton))
    assert all(edit.text() == "" for edit in window.findChildren(QLineEdit))
    assert option(window, 1, "1").hasFocus()
    assert counter(window, 1, "other-bytes").text() == "0 / 1,024 bytes"
    assert counter(window, 2, "reason-bytes").text() == "0 / 4,096 bytes"


def test_buttons_are_never_default(window: QuestionsWindow) -> None:
    for button in window.findChildren(QPushButton):
        assert not button.isDefault() and not button.autoDefault()


def test_dark_scheme_gives_a_dark_palette(qtbot: QtBot) -> None:
    dark = QuestionsWindow(make_params(), color_scheme=Qt.ColorScheme.Dark)
    qtbot.addWidget(dark)
    background = dark.palette().color(QPalette.ColorRole.Window)
    text = dark.palette().color(QPalette.ColorRole.WindowText)
    assert background.lightness() < text.lightness()


# --- choosing from the keyboard --------------------------------------------------------------


@pytest.mark.parametrize("key", [KEY.Key_1, KEY.Key_2])
def test_digits_select_in_the_focused_single_select_question(
    window: QuestionsWindow, key: Qt.Key
) -> None:
    press(key)
    number = str(key.value - KEY.Key_0.value)
    assert checked(window, 1) == [number]
    assert option(window, 1, number).hasFocus()
    press(KEY.Key_2 if key == KEY.Key_1 else KEY.Key_1)
    assert len(checked(window, 1)) == 1
    assert checked(window, 2) == []


def test_digit_past_the_last_option_does_nothing(window: QuestionsWindow) -> None:
    press(KEY.Key_3)
    press(KEY.Key_4)
    assert checked(window, 1) == [] and checked(window, 2) == []


def test_digits_toggle_checkboxes_of_a_multi_select_question(window: QuestionsWindow) -> None:
    next_question(window)
    assert option(window, 2, "1").hasFocus()
    press(KEY.Key_1)
    press(KEY.Key_3)
    assert checked(window, 2) == ["1", "3"]
    press(KEY.Key_1)
    assert checked(window, 2) == ["3"]
    press(KEY.Key_2, MOD.KeypadModifier)
    assert checked(window, 2) == ["2", "3"]
    assert checked(window, 1) == []


def test_tab_moves_question_by_question_and_back(window: QuestionsWindow) -> None:
    press(KEY.Key_Tab)
    assert other(window, 1).hasFocus()
    press(KEY.Key_Tab)
    assert reason(window, 1).hasFocus()
    press(KEY.Key_Tab)
    assert option(window, 2, "1").hasFocus()
    press(KEY.Key_Backtab, MOD.ShiftModifier)
    assert reason(window, 1).hasFocus()
    type_text("a")
    press(KEY.Key_Tab)
    assert "\t" not in reason(window, 1).toPlainText()
    assert option(window, 2, "1").hasFocus()


def test_o_focuses_other_of_the_focused_question_and_digits_stay_text(
    window: QuestionsWindow,
) -> None:
    next_question(window)
    press(KEY.Key_O)
    assert other(window, 2).hasFocus()
    type_text("Use 2 of them")
    assert other(window, 2).text() == "Use 2 of them"
    assert checked(window, 2) == ["other"]
    assert counter(window, 2, "other-bytes").text() == "13 / 1,024 bytes"
    assert other(window, 1).text() == ""


def test_typing_other_in_a_single_select_question_replaces_the_option(
    window: QuestionsWindow,
) -> None:
    press(KEY.Key_1)
    press(KEY.Key_Tab)
    type_text("Postgres")
    assert checked(window, 1) == ["other"]
    press(KEY.Key_Backtab, MOD.ShiftModifier)
    assert option(window, 1, "other").hasFocus()
    press(KEY.Key_2)
    assert checked(window, 1) == ["2"]
    assert window.answers()[0].other == ""


def test_erasing_multi_select_other_unchecks_it(window: QuestionsWindow) -> None:
    next_question(window)
    press(KEY.Key_O)
    type_text("x")
    press(KEY.Key_Backspace)
    assert checked(window, 2) == []


def test_clicking_an_option_row_chooses_it(window: QuestionsWindow) -> None:
    row = option(window, 2, "2").parentWidget()
    assert row is not None
    QTest.mouseClick(row, Qt.MouseButton.LeftButton)
    assert checked(window, 2) == ["2"]


# --- sending ---------------------------------------------------------------------------------


def test_ctrl_return_is_blocked_until_every_question_is_answered(
    qtbot: QtBot, window: QuestionsWindow
) -> None:
    with qtbot.assertNotEmitted(window.answered), qtbot.assertNotEmitted(window.dismissed):
        press(KEY.Key_Return, MOD.ControlModifier)
        assert message(window) == "Cache DB: press 1–2 to choose, or O to type your own"
        assert option(window, 1, "1").hasFocus()
        press(KEY.Key_O)
        type_text("   ")
        press(KEY.Key_Return, MOD.ControlModifier)
        assert message(window) == "Cache DB: type your answer under Other, or press 1–2"
        assert other(window, 1).hasFocus()
        press(KEY.Key_Backtab, MOD.ShiftModifier)
        press(KEY.Key_2)
        press(KEY.Key_Return, MOD.ControlModifier)
        assert message(window) == "Signals: press 1–3 to choose, or O to type your own"
        assert option(window, 2, "1").hasFocus()
    assert window.isVisible()


def test_a_hint_goes_once_its_question_is_answered(qtbot: QtBot, window: QuestionsWindow) -> None:
    press(KEY.Key_Return, MOD.ControlModifier)
    assert message(window) == "Cache DB: press 1–2 to choose, or O to type your own"
    press(KEY.Key_2)
    assert message(window) == ""
    press(KEY.Key_Return, MOD.ControlModifier)
    hint = message(window)
    assert hint.startswith("Signals:")
    option(window, 1, "1").click()  # another change to the first question: the gap remains
    assert message(window) == hint
    press(KEY.Key_1)
    assert message(window) == ""


def test_exact_answers_payload(qtbot: QtBot, window: QuestionsWindow) -> None:
    press(KEY.Key_O)
    type_text("  Postgres ")
    press(KEY.Key_Tab)
    type_text("we already run it")
    press(KEY.Key_Tab)
    press(KEY.Key_3)
    press(KEY.Key_1)
    with qtbot.waitSignal(window.answered) as blocker:
        press(KEY.Key_Return, MOD.ControlModifier)
    assert [answer.model_dump() for answer in blocker.args[0]] == [
        {"question": DB, "labels": [], "other": "Postgres", "reason": "we already run it"},
        {"question": SIGNALS, "labels": ["Logging", "Tracing"], "other": "", "reason": ""},
    ]
    assert not window.isVisible()


def test_multi_select_labels_and_other_together(qtbot: QtBot, window: QuestionsWindow) -> None:
    press(KEY.Key_1)
    next_question(window)
    press(KEY.Key_2)
    press(KEY.Key_O)
    type_text("Profiling")
    with qtbot.waitSignal(window.answered) as blocker:
        press(KEY.Key_Enter, MOD.ControlModifier | MOD.KeypadModifier)
    assert [(a.labels, a.other, a.reason) for a in blocker.args[0]] == [
        (["SQLite"], "", ""),
        (["Metrics"], "Profiling", ""),
    ]


def test_other_text_naming_an_option_is_that_option(qtbot: QtBot, window: QuestionsWindow) -> None:
    press(KEY.Key_O)
    type_text(" redis ")
    press(KEY.Key_Tab)
    press(KEY.Key_Tab)
    press(KEY.Key_3)
    press(KEY.Key_O)
    type_text("TRACING")
    with qtbot.waitSignal(window.answered) as blocker:
        press(KEY.Key_Return, MOD.ControlModifier)
    assert [(a.labels, a.other) for a in blocker.args[0]] == [(["Redis"], ""), (["Tracing"], "")]


def test_over_limit_other_and_reason_block_sending(qtbot: QtBot) -> None:
    window = open_window(qtbot, make_params(single_only=True))
    press(KEY.Key_O)
    commit_text("가" * 341 + "é")  # 1,025 bytes
    assert counter(window, 1, "other-bytes").is_over
    press(KEY.Key_Tab)
    commit_text("가" * 1366)  # 4,098 bytes
    assert (
        counter(window, 1, "reason-bytes").text().endswith("4,098 / 4,096 bytes — too long</span>")
    )
    with qtbot.assertNotEmitted(window.answered):
        press(KEY.Key_Return, MOD.ControlModifier)
        assert message(window) == "Cache DB: Other is too long (1,025 / 1,024 bytes)"
        assert other(window, 1).hasFocus()
        press(KEY.Key_Backspace)
        press(KEY.Key_Return, MOD.ControlModifier)
        assert message(window) == "Cache DB: the reason is too long (4,098 / 4,096 bytes)"
        assert reason(window, 1).hasFocus()
    press(KEY.Key_Backspace)
    with qtbot.waitSignal(window.answered) as blocker:
        press(KEY.Key_Return, MOD.ControlModifier)
    (answer,) = blocker.args[0]
    assert (answer.other, len(answer.reason)) == ("가" * 341, 1365)


def test_send_button_sends_and_a_second_send_does_nothing(
    qtbot: QtBot, window: QuestionsWindow
) -> None:
    sent: list[object] = []
    dismissed: list[bool] = []
    window.answered.connect(sent.append)
    window.dismissed.connect(lambda: dismissed.append(True))
    press(KEY.Key_2)
    next_question(window)
    press(KEY.Key_2)
    QTest.mouseClick(child(window, QPushButton, "send-button"), Qt.MouseButton.LeftButton)
    window.try_send()
    window.close()
    assert len(sent) == 1 and dismissed == []


# --- dismissing ------------------------------------------------------------------------------


def test_escape_dismisses_once(qtbot: QtBot, window: QuestionsWindow) -> None:
    dismissed: list[bool] = []
    window.dismissed.connect(lambda: dismissed.append(True))
    press(KEY.Key_1)
    with qtbot.assertNotEmitted(window.answered):
        press(KEY.Key_Escape)
    assert dismissed == [True]
    assert not window.isVisible()
    window.close()
    window.try_send()
    assert dismissed == [True]


def test_escape_from_a_text_field_dismisses_too(qtbot: QtBot, window: QuestionsWindow) -> None:
    press(KEY.Key_Tab)
    press(KEY.Key_Tab)
    type_text("half a reason")
    with qtbot.waitSignal(window.dismissed):
        press(KEY.Key_Escape)


def test_closing_the_window_dismisses_once(window: QuestionsWindow) -> None:
    dismissed: list[bool] = []
    window.dismissed.connect(lambda: dismissed.append(True))
    assert window.close()
    window.close()
    assert dismissed == [True]


def test_dismiss_button_dismisses(qtbot: QtBot, window: QuestionsWindow) -> None:
    with qtbot.waitSignal(window.dismissed):
        QTest.mouseClick(child(window, QPushButton, "dismiss-button"), Qt.MouseButton.LeftButton)


def test_withdraw_closes_without_dismissing(qtbot: QtBot, window: QuestionsWindow) -> None:
    with qtbot.assertNotEmitted(window.dismissed), qtbot.assertNotEmitted(window.answered):
        window.withdraw()
        window.close()
    assert not window.isVisible()


def test_the_window_fits_a_small_screens_free_area_with_send_on_it(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Four questions want more height than a 1024 by 600 netbook has under its panel: the
    window asks the shared screen rule (title bar included), so Send stays on the screen."""
    laptop = QRect(0, 27, 1024, 573)
    monkeypatch.setattr(screen_fit, "free_area", lambda _window: laptop)
    params = make_params()
    many = params.model_copy(update={"questions": params.questions * 2})
    shown = open_window(qtbot, many)
    assert shown.height() <= int((laptop.height() - TITLE_BAR_ALLOWANCE) * SCREEN_SHARE)
    assert shown.width() <= laptop.width() * SCREEN_SHARE
    send = shown.findChild(QPushButton, "send-button")
    assert send is not None
    assert shown.rect().contains(send.mapTo(shown, send.rect().bottomRight()))


def test_the_title_holds_no_secret_any_x_client_could_read() -> None:
    token = "AKIA" + "GEX5GM4LJWRUNO3T"
    assert token not in questions_title(f"Which token {token} should the deploy use?")
