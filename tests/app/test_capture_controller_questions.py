"""`questions.ask` in-process: real socket server, real controller and window, a client thread.

The client thread stands in for the AskUserQuestion hook; the test types into the window on the
GUI thread and waits with qtbot (never `join`), because the reply is written on the GUI thread.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot
from shiboken6 import Shiboken

from app.capture_controller import CaptureController
from app.gui.questions.window import QuestionsWindow
from core.errors import ErrorCode, RemoteError
from tests.app.support.controller_support import QUESTION, SocketCall
from tests.app.support.controller_support import QUESTION_PARAMS as PARAMS

pytestmark = pytest.mark.qt_log_ignore(
    r"This plugin does not support propagateSizeHints\(\)",
    r"This plugin does not support raise\(\)",
)

KEY = Qt.Key
MOD = Qt.KeyboardModifier


def _ask(journal: Path, params: dict[str, Any] = PARAMS, wait: float = 60) -> SocketCall:
    call = SocketCall(journal, "questions.ask", params, wait)
    call.start()
    return call


def _window(qtbot: QtBot, controller: CaptureController) -> QuestionsWindow:
    qtbot.waitUntil(lambda: len(controller.question_windows()) == 1, timeout=10_000)
    (window,) = controller.question_windows()
    qtbot.waitExposed(window)
    qtbot.waitUntil(window.isActiveWindow, timeout=5000)
    qtbot.waitUntil(lambda: not window.key_guard.is_quiet())  # keys right away are ignored
    return window


def _press(key: Qt.Key, modifier: Qt.KeyboardModifier = MOD.NoModifier) -> None:
    target = QApplication.focusWidget()
    assert target is not None
    QTest.keyClick(target, key, modifier)


def _finish(qtbot: QtBot, call: SocketCall) -> None:
    qtbot.waitUntil(lambda: not call.is_alive(), timeout=20_000)


def test_answered_in_the_window(qtbot: QtBot, harness: tuple[Path, CaptureController]) -> None:
    journal, controller = harness
    call = _ask(journal)
    window = _window(qtbot, controller)
    assert window.windowTitle() == f"Question: {QUESTION}"
    _press(KEY.Key_2)
    for _ in range(3):
        _press(KEY.Key_Tab)
    _press(KEY.Key_1)
    _press(KEY.Key_3)
    _press(KEY.Key_Return, MOD.ControlModifier)
    _finish(qtbot, call)
    assert call.error is None
    assert call.result == {
        "status": "answered",
        "answers": [
            {"question": QUESTION, "labels": ["Redis"], "other": "", "reason": ""},
            {
                "question": "Which signals should the worker emit?",
                "labels": ["Logging", "Tracing"],
                "other": "",
                "reason": "",
            },
        ],
    }
    assert controller.question_windows() == []
    qtbot.waitUntil(lambda: not Shiboken.isValid(window))  # deleted, not just hidden
    assert not (journal / "records").exists()  # the hook journals, not the app


def test_escape_answers_dismissed(qtbot: QtBot, harness: tuple[Path, CaptureController]) -> None:
    journal, controller = harness
    call = _ask(journal)
    _window(qtbot, controller)
    _press(KEY.Key_1)
    _press(KEY.Key_Escape)
    _finish(qtbot, call)
    assert (call.error, call.result) == (None, {"status": "dismissed"})
    assert controller.question_windows() == []


def test_two_calls_get_two_windows_and_their_own_answers(
    qtbot: QtBot, harness: tuple[Path, CaptureController]
) -> None:
    journal, controller = harness
    single = {**PARAMS, "questions": PARAMS["questions"][:1]}
    first, second = _ask(journal, single), _ask(journal, single)
    qtbot.waitUntil(lambda: len(controller.question_windows()) == 2, timeout=10_000)
    for window, key in zip(controller.question_windows(), (KEY.Key_1, KEY.Key_2), strict=True):
        window.present()
        qtbot.waitUntil(window.isActiveWindow, timeout=5000)
        qtbot.waitUntil(lambda w=window: not w.key_guard.is_quiet())
        _press(key)
        _press(KEY.Key_Return, MOD.ControlModifier)
    _finish(qtbot, first)
    _finish(qtbot, second)
    labels = sorted(c.result["answers"][0]["labels"][0] for c in (first, second) if c.result)
    assert labels == ["Redis", "SQLite"]


def test_invalid_params_are_refused_without_a_window(
    qtbot: QtBot, harness: tuple[Path, CaptureController]
) -> None:
    journal, controller = harness
    one_option = {**PARAMS, "questions": [{**PARAMS["questions"][0], "options": [{"label": "A"}]}]}
    call = _ask(journal, one_option)
    _finish(qtbot, call)
    assert isinstance(call.error, RemoteError)
    assert call.error.code == ErrorCode.INVALID_PARAMS
    assert controller.question_windows() == []


def test_client_gone_withdraws_the_window_without_a_reply(
    qtbot: QtBot, harness: tuple[Path, CaptureController]
) -> None:
    journal, controller = harness
    impatient = _ask(journal, wait=3)  # long enough to see the window on a loaded machine
    window = _window(qtbot, controller)
    dismissed: list[bool] = []
    window.dismissed.connect(lambda: dismissed.append(True))
    _finish(qtbot, impatient)
    assert impatient.error is not None  # the hook gave up first
    qtbot.waitUntil(lambda: controller.question_windows() == [], timeout=10_000)
    qtbot.waitUntil(lambda: not Shiboken.isValid(window))
    assert dismissed == []
