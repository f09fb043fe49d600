"""Qt tests run headless, and every test leaves no thread, timer or window behind.

The platform plugin is chosen before any QApplication exists. The autouse `leak_guard` runs
around every test here: a test that leaves a Python thread running, an active timer on the
application, a thread-pool job, or a visible top-level window fails, naming what it left.
Teardown order makes this fair: the guard is set up before the test's own fixtures (qtbot
included), so it checks only after they have closed their widgets.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from PySide6.QtCore import QCoreApplication, QEvent, QThreadPool, QTimer
from PySide6.QtWidgets import QApplication

if TYPE_CHECKING:
    from app.capture_controller import CaptureController

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

SETTLE_SECONDS = 5.0
"""How long a test's threads and windows get to finish what they were closing."""


def _leftovers(before: set[threading.Thread]) -> list[str]:
    """What the test left running: new threads, active app timers, pool jobs, visible windows."""
    found = [
        f"thread {thread.name!r}"
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
        pytest.fail("the test left behind: " + "; ".join(left), pytrace=False)


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
