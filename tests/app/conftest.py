"""Qt tests run headless, and every test leaves no thread, timer or window behind.

The platform plugin is chosen before any QApplication exists. The autouse `leak_guard` runs
around every test here: a test that leaves a Python thread running, an active timer on the
application, a thread-pool job, or a visible top-level window fails, naming what it left and,
for a thread or a timer, where it was made: the first line of this project's code on the stack
when the thread was started or the timer created, and the test line that led there. Teardown
order makes this fair: the guard is set up before the test's own fixtures (qtbot included), so
it checks only after they have closed their widgets.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

import pytest
from PySide6.QtCore import QCoreApplication, QEvent, QThreadPool, QTimer
from PySide6.QtWidgets import QApplication

if TYPE_CHECKING:
    from app.capture_controller import CaptureController

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

SETTLE_SECONDS = 5.0
"""How long a test's threads and windows get to finish what they were closing."""

ROOT = str(Path(__file__).resolve().parents[2]) + os.sep
PROJECT = tuple(ROOT + folder + os.sep for folder in ("app", "core", "tests", "bench"))
"""This project's code; not its .venv, where Qt, PySide and the other libraries live."""
TESTS = ROOT + "tests" + os.sep
SITE = "_leak_guard_site"
"""The attribute a thread or timer keeps its making site in."""


def _site(frame: FrameType | None) -> str:
    """Where the caller was, cheaply: the first frame in this project's code (Qt, PySide and the
    standard library are passed over) and, when that is not a test, the first test frame
    below it; `app/workers.py:88 (from tests/app/test_tray.py:40)`."""
    first = ""
    while frame is not None:
        name = frame.f_code.co_filename
        if name.startswith(PROJECT) and name != __file__:
            where = f"{name.removeprefix(ROOT)}:{frame.f_lineno}"
            if name.startswith(TESTS):
                return f"{first} (from {where})" if first else where
            first = first or where
        frame = frame.f_back
    return first or "outside this project's code"


def _recording(original: Callable[..., Any]) -> Callable[..., Any]:
    """`original` (a thread's start, a timer's constructor) that first notes where it ran."""

    def record_site(self: object, *args: Any, **kwargs: Any) -> Any:
        site = _site(sys._getframe(1))
        result = original(self, *args, **kwargs)
        setattr(self, SITE, site)
        return result

    return record_site


threading.Thread.start = _recording(threading.Thread.start)  # type: ignore[method-assign]
QTimer.__init__ = _recording(QTimer.__init__)  # type: ignore[method-assign]


def _made_at(thing: object) -> str:
    site = getattr(thing, SITE, "")
    return f", made at {site}" if site else ""


def _leftovers(before: set[threading.Thread]) -> list[str]:
    """What the test left running: new threads, active app timers, pool jobs, visible windows."""
    found = [
        f"thread {thread.name!r}{_made_at(thread)}"
        for thread in threading.enumerate()
        if thread not in before and thread.is_alive()
    ]
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        return found
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    QCoreApplication.processEvents()
    found += [
        f"timer {timer.objectName() or timer.metaObject().className()} ({timer.interval()} ms)"
        f"{_made_at(timer)}"
        for timer in app.findChildren(QTimer)
        if timer.isActive()
    ]
    if QThreadPool.globalInstance().activeThreadCount():
        found.append(f"{QThreadPool.globalInstance().activeThreadCount()} thread-pool job(s)")
    found += [
        f"window {widget.metaObject().className()} {widget.windowTitle()!r}"
        for widget in app.topLevelWidgets()
        if widget.isVisible()
    ]
    return found


@pytest.fixture(autouse=True)
def leak_guard() -> Iterator[None]:
    """Fails the test when it leaves threads, timers, pool jobs or visible windows behind."""
    before = set(threading.enumerate())
    yield
    deadline = time.monotonic() + SETTLE_SECONDS
    left = _leftovers(before)
    while left and time.monotonic() < deadline:
        time.sleep(0.05)
        left = _leftovers(before)
    if left:
        pytest.fail("the test left behind:\n  " + "\n  ".join(left), pytrace=False)


@pytest.fixture
def harness(
    qtbot: object, tmp_path: Path, runtime_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[Path, CaptureController]]:
    """(journal, controller): a real capture controller behind a listening socket server."""
    from tests.app.support.controller_support import serving_controller

    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime_dir))
    journal = tmp_path / "journal"
    with serving_controller(journal) as controller:
        yield journal, controller
