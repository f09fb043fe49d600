"""Qt tests run headless, and every test leaves no thread, timer or window behind.

The platform plugin is chosen before any QApplication exists. The autouse `leak_guard` runs
around every test here: a test that leaves a Python thread running, an active timer on the
application, a thread-pool job, or a visible top-level window fails, naming what it left and
where: for a thread, the first line of this project's code on the stack when it was started
and the test line that led there; for a timer, the object and attribute that hold it and the
line of this project's code that assigns it. Teardown order makes this fair: the guard is set
up before the test's own fixtures (qtbot included), so it checks only after they have closed
their widgets.

Why timers are found by their holder instead of recorded when made: recording meant replacing
`QTimer.__init__` with Python code, and PySide's own C++ (`QTimer.singleShot` with a delay and
a callable) calls that constructor slot and carries on even when it fails. Any exception in
the Python code (a timeout's signal, an interrupt) then left a QTimer without its C++ object,
and the next line of PySide dereferenced it: the interpreter crashed. No Qt class is patched;
`threading.Thread.start` (plain Python, whose caller sees any exception) still notes its site.
"""

from __future__ import annotations

import contextlib
import inspect
import os
import re
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
"""The attribute a thread keeps the site of its start in."""


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
    """`threading.Thread.start` that first notes where it was called."""

    def record_site(self: threading.Thread, *args: Any, **kwargs: Any) -> Any:
        with contextlib.suppress(Exception):  # a hint only: never in the way of the start
            setattr(self, SITE, _site(sys._getframe(1)))
        return original(self, *args, **kwargs)

    return record_site


threading.Thread.start = _recording(threading.Thread.start)  # type: ignore[method-assign]


def _made_at(thing: object) -> str:
    site = getattr(thing, SITE, "")
    return f", made at {site}" if site else ""


def _held_at(timer: QTimer) -> str:
    """Which object holds a timer and where this project's code assigns it, found by looking
    at the timer's Qt parents (what holds a timer is nearly always its parent); "" when none
    of them keeps it in an attribute."""
    owner = timer.parent()
    while owner is not None:
        for name, value in list(getattr(owner, "__dict__", {}).items()):
            if value is timer:
                return f", held as {type(owner).__name__}.{name}{_assigned_at(type(owner), name)}"
        owner = owner.parent()
    return ""


def _assigned_at(owner: type, name: str) -> str:
    """ ", made at app/x.py:12": the line of the owner's classes that assigns `self.name`."""
    assignment = re.compile(rf"\bself\.{re.escape(name)}\s*(?::[^=]+)?=\s*QTimer\(")
    for cls in owner.__mro__:
        source = sys.modules.get(cls.__module__)
        path = getattr(source, "__file__", None) or ""
        if not path.startswith(PROJECT):
            continue
        with contextlib.suppress(OSError, TypeError):
            lines, first = inspect.getsourcelines(cls)
            for number, line in enumerate(lines, first):
                if assignment.search(line):
                    return f", made at {path.removeprefix(ROOT)}:{number}"
    return ""


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
        f"{_held_at(timer)}"
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
