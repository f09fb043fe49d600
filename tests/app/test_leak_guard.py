"""The leak guard of tests/app/conftest.py names where each leaked thread and timer was made,
so a failure points at the line to fix instead of a class name."""

from __future__ import annotations

import inspect
import sys
import threading
import types
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from tests.app.conftest import _leftovers, _site

HERE = "tests/app/test_leak_guard.py"
ROOT = Path(__file__).resolve().parents[2]


class Poller(QObject):
    """Holds a timer the way this project's code does."""

    def __init__(self, parent: QObject) -> None:
        super().__init__(parent)
        self.poll = QTimer(self)
        self.poll.setObjectName("left-active")


POLL_LINE = inspect.getsourcelines(Poller)[1] + 5


def test_a_leaked_thread_and_timer_are_named_with_the_line_that_made_them(qtbot: QtBot) -> None:
    app = QApplication.instance()
    assert app is not None
    before = set(threading.enumerate())
    release = threading.Event()
    thread = threading.Thread(target=release.wait, name="left-running")
    thread.start()
    thread_line = sys._getframe().f_lineno - 1
    poller = Poller(app)
    poller.poll.start(60_000)
    try:
        left = _leftovers(before)
    finally:
        poller.poll.stop()
        poller.deleteLater()
        release.set()
        thread.join(5)
    assert f"thread 'left-running', made at {HERE}:{thread_line}" in left
    assert f"timer left-active (60000 ms), held as Poller.poll, made at {HERE}:{POLL_LINE}" in left


def test_a_timer_nothing_holds_is_still_named_by_its_name_and_interval() -> None:
    app = QApplication.instance()
    assert app is not None
    timer = QTimer(app)
    timer.setObjectName("unheld")
    timer.start(60_000)
    try:
        left = _leftovers(set(threading.enumerate()))
    finally:
        timer.stop()
        timer.deleteLater()
    assert "timer unheld (60000 ms)" in left


def test_no_qt_class_is_patched() -> None:
    """Python code in QTimer's constructor slot can crash PySide: its `singleShot` with a delay
    calls the slot from C++ and uses the timer even when the Python code raised."""
    assert isinstance(QTimer.__dict__["__init__"], types.WrapperDescriptorType)
    assert isinstance(QObject.__dict__["__init__"], types.WrapperDescriptorType)


def test_a_site_in_app_code_also_names_the_test_line_that_led_there() -> None:
    """Qt, PySide and the standard library are passed over; app code is named, then the test."""
    code = compile(
        "def make(site):\n    return site(sys._getframe())\n", str(ROOT / "app" / "made.py"), "exec"
    )
    made: dict[str, Any] = {}
    exec(code, {"sys": sys}, made)
    site = made["make"](_site)
    assert site == f"app/made.py:2 (from {HERE}:{sys._getframe().f_lineno - 1})"
