"""The capture window's keyboard contract, driven through real widgets and real key events.

Keys go to the widget that has focus, as they would from a keyboard, so window shortcuts and
the focused widget's own claims on keys (a line edit keeps digits) are both exercised. Keys and
clicks use QTest directly: it is what qtbot.keyClick wraps, and it is fully typed.
Korean text arrives as an input-method commit, which is how an IME delivers it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QInputMethodEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (
    QApplication,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QRadioButton,
    QWidget,
)
from pytestqt.qtbot import QtBot

from app.gui.capture.window import CaptureWindow
from app.gui.widgets.byte_counter import ByteCounter
from core.capture.drafts import Draft
from core.record.controls import control_problem
from core.record.models import ProposalOption
from tests.app.support.capture_support import (
    OPTIONS,
    PROBLEM,
    activate,
    make_request,
    message,
    open_window,
    radio,
    radios,
)

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    # The offscreen platform has no window manager to pass size hints or raise requests to.
    pytest.mark.qt_log_ignore(
        r"This plugin does not support propagateSizeHints\(\)",
        r"This plugin does not support raise\(\)",
        r"This plugin does not support lower\(\)",
    ),
]

KEY = Qt.Key
MOD = Qt.KeyboardModifier


@pytest.fixture
def window(qtbot: QtBot) -> Iterator[CaptureWindow]:
    yield open_window(qtbot, make_request())


def press(qtbot: QtBot, key: Qt.Key, modifier: Qt.KeyboardModifier = MOD.NoModifier) -> None:
    """Press a key as a keyboard would: the focused widget gets the first say."""
    target = QApplication.focusWidget()
    assert target is not None, "no widget has keyboard focus"
    QTest.keyClick(target, key, modifier)


def type_text(qtbot: QtBot, text: str) -> None:
    target = QApplication.focusWidget()
    assert target is not None, "no widget has keyboard focus"
    QTest.keyClicks(target, text)


def commit_text(text: str) -> None:
    """Deliver text the way an input method (e.g. a Korean IME) commits it."""
    target = QApplication.focusWidget()
    assert target is not None, "no widget has keyboard focus"
    event = QInputMethodEvent("", [])
    event.setCommitString(text)
    QApplication.sendEvent(target, event)


def other_edit(window: QWidget) -> QLineEdit:
    found = window.findChild(QLineEdit, "other-text")
    assert found is not None
    return found


def reason(window: QWidget, name: str) -> QPlainTextEdit:
    found = window.findChild(QPlainTextEdit, f"reason-{name}")
    assert found is not None, name
    return found


def counter(window: QWidget, name: str) -> ByteCounter:
    found = window.findChild(ByteCounter, name)
    assert found is not None, name
    return found


def label_texts(window: QWidget) -> list[str]:
    return [label.text() for label in window.findChildren(QLabel) if label.isVisible()]


def go_back(qtbot: QtBot, window: CaptureWindow) -> None:
    """Alt+B: a button mnemonic, which clicks after a short press animation."""
    press(qtbot, KEY.Key_B, MOD.AltModifier)
    qtbot.waitUntil(lambda: window.stage == "choice")


def choose(qtbot: QtBot, window: CaptureWindow, key: Qt.Key) -> None:
    """Pick a listed approach and continue to the rationale page."""
    with qtbot.waitSignal(window.choice_made):
        press(qtbot, key)
        press(qtbot, KEY.Key_Return)
    qtbot.waitUntil(lambda: reason(window, "selected").hasFocus())


# Title and choice page content


def test_title_is_decision_and_the_problem(qtbot: QtBot) -> None:
    window = CaptureWindow(make_request(problem="Where do records live?"))
    qtbot.addWidget(window)
    assert window.windowTitle() == "Decision: Where do records live?"


def test_the_title_holds_no_secret_any_x_client_could_read(qtbot: QtBot) -> None:
    """Task bars, window switchers and every X client read the title; the pending file holds
    the problem redacted, and so does the title."""
    token = "ghp_" + "YA7MhiMiwZfo4OvWNtbYi5DmeRtLNBnl2fJx"
    window = CaptureWindow(make_request(problem=f"Use {token} for the CI?"))
    qtbot.addWidget(window)
    assert token[4:] not in window.windowTitle()
    assert window.windowTitle().startswith("Decision: Use [REDACTED")


def test_long_problem_title_keeps_the_start_and_is_elided(window: CaptureWindow) -> None:
    title = window.windowTitle()
    assert title.startswith("Decision: " + PROBLEM[:40])
    assert title.endswith("…")
    assert len(title) <= len("Decision: ") + 60


def test_choice_page_shows_the_fork_and_its_context(window: CaptureWindow) -> None:
    texts = label_texts(window)
    for expected in (
        "Where do decision records live?",
        PROBLEM,
        "decision-journal",
        "persistence-layout",
        "medium",
        "storage, dashboard",
        "91%",
        "Claude Code · session session-7f3a",
        "Keep project decisions beside project source",
        "• Fragments preference evidence",
    ):
        assert expected in texts, expected
    assert texts.count("Recommended (advice only)") == 1
    assert radio(window, "choice-2").accessibleDescription() == (
        "Recommended (advice only). Aggregate records outside repositories"
    )
    assert counter(window, "other-bytes").text() == "0 / 1,024 bytes"


def test_recommended_badge_sits_on_the_recommended_option(window: CaptureWindow) -> None:
    badge = next(
        label
        for label in window.findChildren(QLabel)
        if label.text() == "Recommended (advice only)"
    )
    assert badge.parentWidget() is radio(window, "choice-2").parentWidget()


def test_header_defaults_when_the_agent_gives_none(qtbot: QtBot) -> None:
    window = open_window(qtbot, make_request(header=""))
    assert "Implementation decision" in label_texts(window)


def test_agent_text_is_shown_literally(qtbot: QtBot) -> None:
    options = [
        ProposalOption(id="a", label="Read & write", description="<b>bold?</b>"),
        ProposalOption(id="b", label="Read only", description="plain"),
    ]
    window = open_window(qtbot, make_request(options=options, problem="<i>problem</i>"))
    assert radio(window, "choice-1").accessibleName() == "Approach 1: Read & write"
    assert radio(window, "choice-1").accessibleDescription() == "<b>bold?</b>"
    for text in ("Read & write", "<b>bold?</b>", "<i>problem</i>"):
        shown = next(lbl for lbl in window.findChildren(QLabel) if lbl.text() == text)
        assert shown.textFormat() == Qt.TextFormat.PlainText


def test_control_characters_show_as_their_codes_in_the_title_and_the_body(qtbot: QtBot) -> None:
    """A pending decision stored before the proposal rule refused them (or shown from another
    machine's journal) must not retitle, reorder or restyle what the person reads."""
    options = [
        ProposalOption(id="a", label="\u202eetadpu ton od", description="one\x1b[2Ktwo"),
        ProposalOption(id="b", label="Update", description="plain"),
    ]
    problem = "Pick \x1b]0;PWNED\x07 \u202eevil\u202c"
    window = open_window(qtbot, make_request(options=options, problem=problem))
    assert window.windowTitle() == "Decision: Pick \\u001b]0;PWNED\\u0007 \\u202eevil\\u202c"
    shown = label_texts(window)
    for text in (
        "Pick \\u001b]0;PWNED\\u0007 \\u202eevil\\u202c",
        "\\u202eetadpu ton od",
        "one\\u001b[2Ktwo",
    ):
        assert text in shown
    assert radio(window, "choice-1").accessibleName() == "Approach 1: \\u202eetadpu ton od"
    assert not [t for t in [*shown, window.windowTitle()] if control_problem(t, multiline=True)]


def test_nothing_is_preselected(window: CaptureWindow) -> None:
    assert not any(button.isChecked() for button in radios(window))
    assert other_edit(window).text() == ""


# Choosing


@pytest.mark.parametrize("key", [KEY.Key_Return, KEY.Key_Enter])
def test_enter_with_nothing_chosen_only_hints(
    qtbot: QtBot, window: CaptureWindow, key: Qt.Key
) -> None:
    modifier = MOD.KeypadModifier if key == KEY.Key_Enter else MOD.NoModifier
    with qtbot.assertNotEmitted(window.choice_made), qtbot.assertNotEmitted(window.cancelled):
        press(qtbot, key, modifier)
    assert message(window) == "Choose an approach first: press 1–4 or O"
    assert window.stage == "choice"
    assert not any(button.isChecked() for button in radios(window))


def test_continue_button_is_never_a_default_button(window: CaptureWindow) -> None:
    button = window.findChild(QPushButton, "continue-button")
    assert button is not None
    assert not button.isDefault()
    assert not button.autoDefault()


def test_continue_is_disabled_until_something_is_chosen(
    qtbot: QtBot, window: CaptureWindow
) -> None:
    button = window.findChild(QPushButton, "continue-button")
    assert button is not None
    assert not button.isEnabled()
    with qtbot.assertNotEmitted(window.choice_made):
        QTest.mouseClick(button, Qt.MouseButton.LeftButton)
    press(qtbot, KEY.Key_Return)
    assert message(window).startswith("Choose an approach first")
    press(qtbot, KEY.Key_3)
    assert button.isEnabled()


@pytest.mark.parametrize("number", [1, 2, 3, 4])
def test_number_keys_select_the_matching_approach(
    qtbot: QtBot, window: CaptureWindow, number: int
) -> None:
    press(qtbot, Qt.Key(KEY.Key_0.value + number))
    checked = [button.isChecked() for button in radios(window)]
    assert checked == [n == number for n in range(1, 6)]
    assert radio(window, f"choice-{number}").hasFocus()


def test_keypad_digit_selects_too(qtbot: QtBot, window: CaptureWindow) -> None:
    press(qtbot, KEY.Key_3, MOD.KeypadModifier)
    assert radio(window, "choice-3").isChecked()


def test_number_key_beyond_the_option_count_does_nothing(qtbot: QtBot) -> None:
    window = open_window(qtbot, make_request(options=OPTIONS[:2]))
    press(qtbot, KEY.Key_3)
    assert window.findChild(QRadioButton, "choice-3") is None
    assert not radio(window, "choice-other").isChecked()


def test_arrow_keys_move_between_choices(qtbot: QtBot, window: CaptureWindow) -> None:
    press(qtbot, KEY.Key_Down)
    assert radio(window, "choice-1").isChecked()
    press(qtbot, KEY.Key_Down)
    press(qtbot, KEY.Key_Down)
    assert radio(window, "choice-3").isChecked()
    assert radio(window, "choice-3").hasFocus()
    press(qtbot, KEY.Key_Up)
    assert radio(window, "choice-2").isChecked()
    for _ in range(3):
        press(qtbot, KEY.Key_Down)
    assert radio(window, "choice-other").isChecked()
    assert other_edit(window).hasFocus()
    press(qtbot, KEY.Key_Down)
    assert radio(window, "choice-other").isChecked()
    press(qtbot, KEY.Key_Up)
    assert radio(window, "choice-4").isChecked()


@pytest.mark.parametrize("modifier", [MOD.NoModifier, MOD.ShiftModifier])
def test_o_selects_other_and_focuses_its_text(
    qtbot: QtBot, window: CaptureWindow, modifier: Qt.KeyboardModifier
) -> None:
    press(qtbot, KEY.Key_O, modifier)
    assert radio(window, "choice-other").isChecked()
    assert other_edit(window).hasFocus()


def test_digits_and_o_typed_in_other_stay_text(qtbot: QtBot, window: CaptureWindow) -> None:
    press(qtbot, KEY.Key_O)
    type_text(qtbot, "Use 2 or 3 tools")
    assert other_edit(window).text() == "Use 2 or 3 tools"
    assert radio(window, "choice-other").isChecked()
    assert not radio(window, "choice-2").isChecked()
    assert counter(window, "other-bytes").text() == "16 / 1,024 bytes"


def test_typing_in_other_field_selects_other(qtbot: QtBot, window: CaptureWindow) -> None:
    press(qtbot, KEY.Key_1)
    other_edit(window).setFocus()
    qtbot.waitUntil(other_edit(window).hasFocus)
    type_text(qtbot, "x")
    assert radio(window, "choice-other").isChecked()


def test_other_text_continues_as_a_custom_choice(qtbot: QtBot, window: CaptureWindow) -> None:
    press(qtbot, KEY.Key_O)
    type_text(qtbot, "  Event sourcing ")
    with qtbot.waitSignal(window.choice_made) as blocker:
        press(qtbot, KEY.Key_Return)
    assert blocker.args == ["", "Event sourcing"]
    assert window.stage == "rationale"


def test_other_matching_a_label_becomes_that_option(qtbot: QtBot, window: CaptureWindow) -> None:
    press(qtbot, KEY.Key_O)
    type_text(qtbot, "  per-user GLOBAL Journal ")
    with qtbot.waitSignal(window.choice_made) as blocker:
        press(qtbot, KEY.Key_Return)
    assert blocker.args == ["global-journal", ""]
    texts = label_texts(window)
    assert "Why did you choose Per-user global journal?" in texts
    assert "Why did you not choose Per-user global journal?" not in texts


def test_blank_other_does_not_continue(qtbot: QtBot, window: CaptureWindow) -> None:
    press(qtbot, KEY.Key_O)
    type_text(qtbot, "   ")
    with qtbot.assertNotEmitted(window.choice_made):
        press(qtbot, KEY.Key_Return)
    assert window.stage == "choice"
    assert message(window) == "Describe your approach under Other, or press 1–4"
    assert other_edit(window).hasFocus()


def test_other_over_1024_bytes_is_blocked(qtbot: QtBot, window: CaptureWindow) -> None:
    press(qtbot, KEY.Key_O)
    commit_text("가" * 341)  # 1,023 bytes: three per syllable
    assert not counter(window, "other-bytes").is_over
    commit_text("é")  # two more bytes: 1,025
    bytes_counter = counter(window, "other-bytes")
    assert bytes_counter.is_over
    assert bytes_counter.text().endswith("1,025 / 1,024 bytes — too long</span>")
    with qtbot.assertNotEmitted(window.choice_made):
        press(qtbot, KEY.Key_Return)
    assert window.stage == "choice"
    assert message(window) == "Other is too long: 1,025 / 1,024 bytes. Shorten it first."
    press(qtbot, KEY.Key_Backspace)
    with qtbot.waitSignal(window.choice_made) as blocker:
        press(qtbot, KEY.Key_Return)
    assert blocker.args == ["", "가" * 341]


# Rationale page


def test_continue_opens_the_rationale_page_with_the_first_field_focused(
    qtbot: QtBot, window: CaptureWindow
) -> None:
    with qtbot.waitSignal(window.choice_made) as blocker:
        press(qtbot, KEY.Key_2)
        press(qtbot, KEY.Key_Return)
    assert blocker.args == ["global-journal", ""]
    assert window.stage == "rationale"
    qtbot.waitUntil(lambda: reason(window, "selected").hasFocus())
    texts = label_texts(window)
    assert "Why did you choose Per-user global journal?" in texts
    for label in ("Per-repository records", "Single SQLite database", "Git notes"):
        assert f"Why did you not choose {label}?" in texts
    assert window.findChild(QPlainTextEdit, "reason-rejected-global-journal") is None


def test_continue_button_continues_after_a_choice(qtbot: QtBot, window: CaptureWindow) -> None:
    press(qtbot, KEY.Key_1)
    button = window.findChild(QPushButton, "continue-button")
    assert button is not None
    with qtbot.waitSignal(window.choice_made) as blocker:
        QTest.mouseClick(button, Qt.MouseButton.LeftButton)
    assert blocker.args == ["per-repository", ""]


def test_other_choice_asks_why_not_every_listed_approach(
    qtbot: QtBot, window: CaptureWindow
) -> None:
    press(qtbot, KEY.Key_O)
    type_text(qtbot, "Event sourcing")
    with qtbot.waitSignal(window.choice_made):
        press(qtbot, KEY.Key_Return)
    texts = label_texts(window)
    assert "Why did you choose Event sourcing?" in texts
    for option in OPTIONS:
        assert f"Why did you not choose {option.label}?" in texts


def test_rationale_fields_have_accessible_names(qtbot: QtBot, window: CaptureWindow) -> None:
    choose(qtbot, window, KEY.Key_1)
    assert (
        reason(window, "selected").accessibleName() == "Why did you choose Per-repository records?"
    )
    assert reason(window, "rejected-sqlite").accessibleName() == (
        "Why did you not choose Single SQLite database?"
    )
    assert other_edit(window).accessibleName() == "Describe your own approach"


def test_tab_moves_between_fields_without_inserting_a_tab(
    qtbot: QtBot, window: CaptureWindow
) -> None:
    choose(qtbot, window, KEY.Key_1)
    type_text(qtbot, "first")
    press(qtbot, KEY.Key_Tab)
    assert reason(window, "rejected-global-journal").hasFocus()
    press(qtbot, KEY.Key_Tab)
    assert reason(window, "rejected-sqlite").hasFocus()
    press(qtbot, KEY.Key_Backtab, MOD.ShiftModifier)
    press(qtbot, KEY.Key_Backtab, MOD.ShiftModifier)
    assert reason(window, "selected").hasFocus()
    assert reason(window, "selected").toPlainText() == "first"
    assert all("\t" not in field.toPlainText() for field in window.findChildren(QPlainTextEdit))


def test_byte_counters_count_utf8_bytes_as_you_type(qtbot: QtBot, window: CaptureWindow) -> None:
    choose(qtbot, window, KEY.Key_1)
    bytes_counter = counter(window, "reason-selected-bytes")
    assert bytes_counter.text() == "0 / 4,096 bytes"
    commit_text("한국어")
    assert bytes_counter.text() == "9 / 4,096 bytes"
    type_text(qtbot, " ok")
    assert bytes_counter.text() == "12 / 4,096 bytes"
    assert counter(window, "reason-rejected-sqlite-bytes").text() == "0 / 4,096 bytes"


def test_ctrl_return_with_a_blank_field_names_and_focuses_it(
    qtbot: QtBot, window: CaptureWindow
) -> None:
    choose(qtbot, window, KEY.Key_1)
    type_text(qtbot, "keeps history local")
    press(qtbot, KEY.Key_Tab)
    type_text(qtbot, "   ")
    press(qtbot, KEY.Key_Tab)
    type_text(qtbot, "too heavy")
    with qtbot.assertNotEmitted(window.rationale_submitted):
        press(qtbot, KEY.Key_Return, MOD.ControlModifier)
    assert reason(window, "rejected-global-journal").hasFocus()
    assert message(window) == "Answer “Why did you not choose Per-user global journal?”"
    assert window.stage == "rationale"


def test_over_limit_answer_blocks_recording(qtbot: QtBot, window: CaptureWindow) -> None:
    choose(qtbot, window, KEY.Key_1)
    commit_text("가" * 1366)  # 4,098 bytes
    assert counter(window, "reason-selected-bytes").is_over
    for _ in range(3):
        press(qtbot, KEY.Key_Tab)
        type_text(qtbot, "no")
    with qtbot.assertNotEmitted(window.rationale_submitted):
        press(qtbot, KEY.Key_Return, MOD.ControlModifier)
    assert reason(window, "selected").hasFocus()
    assert message(window) == (
        "“Why did you choose Per-repository records?” is too long: 4,098 / 4,096 bytes"
    )


def fill_all(qtbot: QtBot, window: CaptureWindow) -> None:
    type_text(qtbot, "one journal for all projects")
    press(qtbot, KEY.Key_Tab)
    type_text(qtbot, "fragmented evidence")
    press(qtbot, KEY.Key_Tab)
    commit_text("감사가 어렵다")
    press(qtbot, KEY.Key_Tab)
    type_text(qtbot, "notes get lost on rebase")


EXPECTED_REJECTIONS = {
    "per-repository": "fragmented evidence",
    "sqlite": "감사가 어렵다",
    "git-notes": "notes get lost on rebase",
}


@pytest.mark.parametrize(
    ("key", "modifier"),
    [
        (KEY.Key_Return, MOD.ControlModifier),
        (KEY.Key_Enter, MOD.ControlModifier | MOD.KeypadModifier),
    ],
)
def test_ctrl_enter_submits_every_answer(
    qtbot: QtBot, window: CaptureWindow, key: Qt.Key, modifier: Qt.KeyboardModifier
) -> None:
    choose(qtbot, window, KEY.Key_2)
    fill_all(qtbot, window)
    with qtbot.waitSignal(window.rationale_submitted) as blocker:
        press(qtbot, key, modifier)
    assert blocker.args == ["one journal for all projects", EXPECTED_REJECTIONS]


def test_record_button_submits(qtbot: QtBot, window: CaptureWindow) -> None:
    choose(qtbot, window, KEY.Key_2)
    fill_all(qtbot, window)
    button = window.findChild(QPushButton, "record-button")
    assert button is not None
    with qtbot.waitSignal(window.rationale_submitted) as blocker:
        QTest.mouseClick(button, Qt.MouseButton.LeftButton)
    assert blocker.args == ["one journal for all projects", EXPECTED_REJECTIONS]


def test_repeated_submit_while_recording_emits_once(qtbot: QtBot, window: CaptureWindow) -> None:
    choose(qtbot, window, KEY.Key_2)
    fill_all(qtbot, window)
    submitted: list[tuple[str, dict[str, str]]] = []
    window.rationale_submitted.connect(lambda text, reasons: submitted.append((text, reasons)))
    press(qtbot, KEY.Key_Return, MOD.ControlModifier)
    press(qtbot, KEY.Key_Return, MOD.ControlModifier)
    assert len(submitted) == 1
    window.show_error("records directory is read-only")
    press(qtbot, KEY.Key_Return, MOD.ControlModifier)
    assert len(submitted) == 2


def test_show_error_keeps_the_window_and_its_input(qtbot: QtBot, window: CaptureWindow) -> None:
    choose(qtbot, window, KEY.Key_2)
    fill_all(qtbot, window)
    with qtbot.assertNotEmitted(window.cancelled):
        window.show_error("selection_reason: 5000 bytes, limit 4096")
    assert message(window) == "selection_reason: 5000 bytes, limit 4096"
    assert window.isVisible()
    assert reason(window, "selected").toPlainText() == "one journal for all projects"


def test_back_keeps_the_selection_and_does_not_emit(qtbot: QtBot, window: CaptureWindow) -> None:
    choose(qtbot, window, KEY.Key_3)
    type_text(qtbot, "kept")
    with qtbot.assertNotEmitted(window.choice_made), qtbot.assertNotEmitted(window.cancelled):
        go_back(qtbot, window)
        assert radio(window, "choice-3").isChecked()
        qtbot.waitUntil(radio(window, "choice-3").hasFocus)
        press(qtbot, KEY.Key_Return)
    assert window.stage == "rationale"
    assert reason(window, "selected").toPlainText() == "kept"


def test_changing_the_choice_after_back_emits_again(qtbot: QtBot, window: CaptureWindow) -> None:
    choose(qtbot, window, KEY.Key_3)
    go_back(qtbot, window)
    with qtbot.waitSignal(window.choice_made) as blocker:
        press(qtbot, KEY.Key_Up)
        press(qtbot, KEY.Key_Return)
    assert blocker.args == ["global-journal", ""]
    assert "Why did you choose Per-user global journal?" in label_texts(window)
    assert "Why did you not choose Single SQLite database?" in label_texts(window)
    qtbot.waitUntil(lambda: reason(window, "selected").hasFocus())


# Cancelling and closing


def test_escape_on_the_choice_page_cancels_once(qtbot: QtBot, window: CaptureWindow) -> None:
    stages: list[str] = []
    window.cancelled.connect(stages.append)
    press(qtbot, KEY.Key_Escape)
    assert stages == ["choice"]
    assert not window.isVisible()
    window.close()
    assert stages == ["choice"]


def test_escape_on_the_rationale_page_cancels_once(qtbot: QtBot, window: CaptureWindow) -> None:
    choose(qtbot, window, KEY.Key_1)
    type_text(qtbot, "half an answer")
    stages: list[str] = []
    window.cancelled.connect(stages.append)
    press(qtbot, KEY.Key_Escape)
    assert stages == ["rationale"]
    assert not window.isVisible()
    window.close()
    assert stages == ["rationale"]


def test_closing_the_window_cancels_once(qtbot: QtBot, window: CaptureWindow) -> None:
    stages: list[str] = []
    window.cancelled.connect(stages.append)
    assert window.close()
    window.close()
    assert stages == ["choice"]


def test_close_after_record_is_not_a_cancellation(qtbot: QtBot, window: CaptureWindow) -> None:
    choose(qtbot, window, KEY.Key_2)
    fill_all(qtbot, window)
    with qtbot.waitSignal(window.rationale_submitted):
        press(qtbot, KEY.Key_Return, MOD.ControlModifier)
    with qtbot.assertNotEmitted(window.cancelled):
        window.close_after_record()
        window.close()
    assert not window.isVisible()


# Resuming and several windows


def test_resume_at_the_rationale_stage_opens_the_rationale_page(qtbot: QtBot) -> None:
    request = make_request(stage="rationale", selected_option_id="sqlite")
    window = open_window(qtbot, request)
    assert window.stage == "rationale"
    qtbot.waitUntil(lambda: reason(window, "selected").hasFocus())
    assert "Why did you choose Single SQLite database?" in label_texts(window)
    fields = window.findChildren(QPlainTextEdit)
    assert len(fields) == 4
    assert all(field.toPlainText() == "" for field in fields)
    with qtbot.assertNotEmitted(window.choice_made):
        go_back(qtbot, window)
        assert radio(window, "choice-3").isChecked()
        qtbot.waitUntil(radio(window, "choice-3").hasFocus)
        press(qtbot, KEY.Key_Return)
    assert window.stage == "rationale"
    stages: list[str] = []
    window.cancelled.connect(stages.append)
    press(qtbot, KEY.Key_Escape)
    assert stages == ["rationale"]


def test_resume_with_a_custom_selection(qtbot: QtBot) -> None:
    request = make_request(stage="rationale", custom_selection="Event sourcing")
    window = open_window(qtbot, request)
    assert "Why did you choose Event sourcing?" in label_texts(window)
    assert len(window.findChildren(QPlainTextEdit)) == 1 + len(OPTIONS)
    go_back(qtbot, window)
    assert radio(window, "choice-other").isChecked()
    assert other_edit(window).hasFocus()
    assert other_edit(window).text() == "Event sourcing"


@pytest.mark.parametrize(
    "changes",
    [
        {"options": OPTIONS[:1]},
        {"options": [*OPTIONS, OPTIONS[0]]},
        {"stage": "rationale"},
        {"stage": "rationale", "selected_option_id": "missing"},
        {"stage": "rationale", "selected_option_id": "sqlite", "custom_selection": "x"},
        {"stage": "later"},
    ],
)
def test_requests_the_window_cannot_show_are_refused(changes: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        make_request(**changes)


def test_two_windows_are_independent(qtbot: QtBot) -> None:
    first = open_window(qtbot, make_request())
    second = open_window(qtbot, make_request(decision_id="decision-2", problem="Second fork"))
    with qtbot.assertNotEmitted(first.choice_made), qtbot.waitSignal(second.choice_made) as got:
        press(qtbot, KEY.Key_4)
        press(qtbot, KEY.Key_Return)
    assert got.args == ["git-notes", ""]
    assert first.stage == "choice"
    assert not any(button.isChecked() for button in radios(first))

    activate(qtbot, first)
    with qtbot.assertNotEmitted(second.cancelled), qtbot.waitSignal(first.cancelled) as got:
        press(qtbot, KEY.Key_Escape)
    assert got.args == ["choice"]
    assert second.isVisible()
    assert second.stage == "rationale"


def test_window_has_a_usable_minimum_size(window: CaptureWindow) -> None:
    assert window.minimumWidth() >= 640
    assert window.minimumHeight() >= 480


# Keys right after a window appears or gains focus (the key guard)


def test_keys_in_the_guard_interval_choose_nothing(qtbot: QtBot) -> None:
    window = CaptureWindow(make_request())
    qtbot.addWidget(window)
    window.present()
    qtbot.waitExposed(window)
    qtbot.waitUntil(window.isActiveWindow)
    assert window.key_guard.is_quiet()
    with qtbot.assertNotEmitted(window.choice_made), qtbot.assertNotEmitted(window.cancelled):
        for key in (KEY.Key_2, KEY.Key_O, KEY.Key_Return, KEY.Key_Escape, KEY.Key_Space):
            press(qtbot, key)
    assert not any(button.isChecked() for button in radios(window))
    assert other_edit(window).text() == ""
    assert window.isVisible()
    qtbot.waitUntil(lambda: not window.key_guard.is_quiet())
    press(qtbot, KEY.Key_2)
    assert radio(window, "choice-2").isChecked()


def test_regaining_focus_rearms_the_guard_on_the_rationale_page(
    qtbot: QtBot, window: CaptureWindow
) -> None:
    choose(qtbot, window, KEY.Key_1)
    type_text(qtbot, "typed before")
    other = QWidget()
    qtbot.addWidget(other)
    other.show()
    other.activateWindow()
    qtbot.waitUntil(other.isActiveWindow)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    assert window.key_guard.is_quiet()
    with qtbot.assertNotEmitted(window.rationale_submitted):
        type_text(qtbot, "stray")
        press(qtbot, KEY.Key_Return, MOD.ControlModifier)
    assert reason(window, "selected").toPlainText() == "typed before"
    qtbot.waitUntil(lambda: not window.key_guard.is_quiet())
    type_text(qtbot, " and after")
    assert reason(window, "selected").toPlainText() == "typed before and after"


def test_a_window_presented_without_activation_leaves_the_keyboard_alone(
    qtbot: QtBot, window: CaptureWindow
) -> None:
    press(qtbot, KEY.Key_O)
    type_text(qtbot, "my own")
    second = CaptureWindow(make_request(decision_id="decision-2", problem="Second fork"))
    qtbot.addWidget(second)
    second.present(activate=False)
    qtbot.waitExposed(second)
    assert window.isActiveWindow()
    assert not second.isActiveWindow()
    type_text(qtbot, " words")
    assert other_edit(window).text() == "my own words"
    assert other_edit(second).text() == ""


# Messages, highlight and advice


def test_the_choose_first_hint_goes_once_something_is_chosen(
    qtbot: QtBot, window: CaptureWindow
) -> None:
    press(qtbot, KEY.Key_Return)
    assert message(window).startswith("Choose an approach first")
    press(qtbot, KEY.Key_3)
    assert message(window) == ""


def test_the_answer_hint_goes_once_that_question_is_answered(
    qtbot: QtBot, window: CaptureWindow
) -> None:
    choose(qtbot, window, KEY.Key_1)
    press(qtbot, KEY.Key_Return, MOD.ControlModifier)
    assert message(window).startswith("Answer “Why did you choose Per-repository records?”")
    type_text(qtbot, "x")
    assert message(window) == ""


def test_a_hint_that_still_applies_stays(qtbot: QtBot, window: CaptureWindow) -> None:
    choose(qtbot, window, KEY.Key_1)
    type_text(qtbot, "because")
    press(qtbot, KEY.Key_Return, MOD.ControlModifier)
    hint = message(window)
    assert hint.startswith("Answer “Why did you not choose")
    press(qtbot, KEY.Key_Tab, MOD.ShiftModifier)
    type_text(qtbot, " of reasons")
    assert message(window) == hint


def test_the_selected_card_says_so_and_only_that_one(qtbot: QtBot, window: CaptureWindow) -> None:
    badges = [b for b in window.findChildren(QLabel) if b.text() == "✓ Selected"]
    assert len(badges) == len(OPTIONS) + 1
    assert not any(b.isVisible() for b in badges)
    press(qtbot, KEY.Key_2)
    assert [b.isVisible() for b in badges].count(True) == 1
    card = radio(window, "choice-2").parentWidget()
    assert card is not None and any(b.isVisible() and b.parentWidget() is card for b in badges)
    press(qtbot, KEY.Key_3)
    card = radio(window, "choice-3").parentWidget()
    assert [b.parentWidget() for b in badges if b.isVisible()] == [card]


def test_the_selected_card_is_painted_in_the_highlight_colour(
    qtbot: QtBot, window: CaptureWindow
) -> None:
    card = radio(window, "choice-1").parentWidget()
    assert card is not None
    before = card.grab().toImage()
    press(qtbot, KEY.Key_1)
    after = card.grab().toImage()
    corner = (card.width() // 2, 1)
    highlight = card.palette().color(card.palette().ColorRole.Highlight)
    assert before.pixelColor(*corner) != after.pixelColor(*corner)
    edge = after.pixelColor(*corner)
    assert abs(edge.hue() - highlight.hue()) <= 12


def test_the_rationale_page_marks_the_recommended_approach(
    qtbot: QtBot, window: CaptureWindow
) -> None:
    choose(qtbot, window, KEY.Key_1)
    field = reason(window, "rejected-global-journal").parentWidget()
    assert field is not None
    marks = [b.text() for b in field.findChildren(QLabel) if b.isVisible()]
    assert "Recommended (advice only)" in marks
    others = reason(window, "rejected-sqlite").parentWidget()
    assert others is not None
    assert "Recommended (advice only)" not in [b.text() for b in others.findChildren(QLabel)]
    go_back(qtbot, window)
    press(qtbot, KEY.Key_2)
    press(qtbot, KEY.Key_Return)
    qtbot.waitUntil(lambda: window.stage == "rationale")
    chosen = reason(window, "selected").parentWidget()
    assert chosen is not None
    assert "Recommended (advice only)" in [b.text() for b in chosen.findChildren(QLabel)]


def test_the_focus_ring_follows_the_keyboard(qtbot: QtBot, window: CaptureWindow) -> None:
    press(qtbot, KEY.Key_2)
    qtbot.waitUntil(lambda: window.focus_ring.target is radio(window, "choice-2"))
    ring = window.focus_ring.geometry()
    target = radio(window, "choice-2")
    centre = target.mapTo(window, target.rect().center())
    assert ring.contains(centre)
    press(qtbot, KEY.Key_Return)
    qtbot.waitUntil(lambda: window.stage == "rationale")
    qtbot.waitUntil(lambda: window.focus_ring.target is reason(window, "selected"))
    press(qtbot, KEY.Key_Tab)
    qtbot.waitUntil(lambda: window.focus_ring.target is not reason(window, "selected"))
    assert window.focus_ring.isVisible()


# Drafts


def test_typing_saves_a_draft_after_a_pause(qtbot: QtBot, window: CaptureWindow) -> None:
    choose(qtbot, window, KEY.Key_2)
    with qtbot.waitSignal(window.draft_changed, timeout=3000) as got:
        type_text(qtbot, "one place")
    draft = got.args[0]
    assert draft.decision_id == window.request.decision_id
    assert draft.selected_option_id == "global-journal"
    assert draft.selection_reason == "one place"


def test_escape_saves_the_draft_before_cancelling(qtbot: QtBot, window: CaptureWindow) -> None:
    choose(qtbot, window, KEY.Key_2)
    type_text(qtbot, "half a thought")
    order: list[str] = []
    window.draft_changed.connect(lambda draft: order.append("draft:" + draft.selection_reason))
    window.cancelled.connect(lambda stage: order.append("cancelled:" + stage))
    press(qtbot, KEY.Key_Escape)
    assert order == ["draft:half a thought", "cancelled:rationale"]


def test_no_draft_after_recording(qtbot: QtBot, window: CaptureWindow) -> None:
    choose(qtbot, window, KEY.Key_1)
    for _ in range(len(OPTIONS)):
        type_text(qtbot, "why")
        press(qtbot, KEY.Key_Tab)
    with qtbot.assertNotEmitted(window.draft_changed, wait=800):
        press(qtbot, KEY.Key_Return, MOD.ControlModifier)
        window.close_after_record()


def kept_draft(**changes: object) -> Draft:
    """What a window of this request's decision kept: SQLite marked, two answers typed."""
    kept = Draft(
        make_request().decision_id,
        selected_option_id="sqlite",
        selection_reason="one file",
        rejections={"git-notes": "hard to read"},
    )
    return replace(kept, **changes)  # type: ignore[arg-type]


def test_a_kept_draft_comes_back_on_both_pages(qtbot: QtBot) -> None:
    kept = kept_draft(
        custom_selection="half typed",
        rejections={"git-notes": "hard to read", "per-repository": "scattered"},
    )
    window = open_window(qtbot, make_request(draft=kept))
    assert radio(window, "choice-3").isChecked()
    assert other_edit(window).text() == "half typed"
    press(qtbot, KEY.Key_Return)
    qtbot.waitUntil(lambda: window.stage == "rationale")
    assert reason(window, "selected").toPlainText() == "one file"
    assert reason(window, "rejected-git-notes").toPlainText() == "hard to read"
    assert reason(window, "rejected-per-repository").toPlainText() == "scattered"
    assert reason(window, "rejected-global-journal").toPlainText() == ""


def test_a_kept_reason_for_another_choice_is_not_reused(qtbot: QtBot) -> None:
    window = open_window(qtbot, make_request(draft=kept_draft()))
    choose(qtbot, window, KEY.Key_4)
    assert reason(window, "selected").toPlainText() == ""
    assert window.current_draft().rejections.get("git-notes") is None


def test_a_closed_window_with_kept_answers_not_shown_keeps_them(qtbot: QtBot) -> None:
    window = open_window(qtbot, make_request(draft=kept_draft()))
    assert window.current_draft().selection_reason == "one file"
    assert window.current_draft().rejections == {"git-notes": "hard to read"}
