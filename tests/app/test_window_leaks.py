"""Windows give their memory back: a capture or question window shown and closed many times
leaves no window object behind and the app's resident memory where it was.

Why both measures: the count of live windows says exactly what is kept, and the resident size
catches whatever else a window might leave (pixmaps, models, connections held elsewhere). Rounds
go through the real controller, socket server and workers, as the tray app runs them.
"""

from __future__ import annotations

import gc
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication, QEvent
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from app.capture_controller import CaptureController
from app.gui.capture.window import CaptureWindow
from app.gui.questions.window import QuestionsWindow
from tests.app.support.cli_imports import ROOT
from tests.app.support.controller_support import QUESTION_PARAMS as SHARED_PARAMS
from tests.app.support.controller_support import SocketCall
from tests.factories import proposal_dict

pytestmark = pytest.mark.qt_log_ignore(
    r"This plugin does not support propagateSizeHints\(\)",
    r"This plugin does not support raise\(\)",
)

# one question of the hook's set is enough to show and close a window
QUESTION_PARAMS = {**SHARED_PARAMS, "questions": SHARED_PARAMS["questions"][:1]}
ROUNDS = 100
WARM_UP = 10
"""Rounds before the first measure: caches, fonts and the allocator's pools fill in these."""
RSS_GROWTH_MAX = 5 * 1024 * 1024


def _rss() -> int:
    """This process's resident set size in bytes."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS in /proc/self/status")


def _settled() -> None:
    """Deferred deletions done and unreachable Python objects collected."""
    for _ in range(3):
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        QApplication.processEvents()
        gc.collect()


def _live(kind: type[QWidget]) -> int:
    return sum(1 for widget in QApplication.topLevelWidgets() if isinstance(widget, kind))


def _rounds(one_round: Callable[[], None], kind: type[QWidget]) -> tuple[int, int]:
    """(resident growth in bytes, windows of `kind` more alive than before) over `ROUNDS`
    rounds after the warm-up."""
    _settled()
    windows = _live(kind)
    for _ in range(WARM_UP):
        one_round()
    _settled()
    before = _rss()
    for _ in range(ROUNDS):
        one_round()
    _settled()
    return _rss() - before, _live(kind) - windows


def _pending_decision(qtbot: QtBot, journal: Path, controller: CaptureController) -> str:
    """A decision an agent asked and the person put off (Escape): pending, resumable."""
    call = SocketCall(
        journal,
        "decision.present",
        {"proposal": proposal_dict(), "workspace": "/tmp/p", "session_id": "s", "agent": "t"},
    )
    call.start()
    qtbot.waitUntil(lambda: len(controller.open_windows()) == 1, timeout=10_000)
    controller.open_windows()[0].close()
    qtbot.waitUntil(lambda: not call.is_alive(), timeout=10_000)
    assert call.result is not None and call.result["status"] == "pending"
    return str(call.result["decision_id"])


def test_a_capture_window_resumed_and_closed_many_times_leaves_nothing(
    qtbot: QtBot, harness: tuple[Path, CaptureController]
) -> None:
    journal, controller = harness
    decision_id = _pending_decision(qtbot, journal, controller)

    def one_round() -> None:
        controller.open_pending(decision_id)
        qtbot.waitUntil(lambda: len(controller.open_windows()) == 1, timeout=10_000)
        (window,) = controller.open_windows()
        qtbot.waitExposed(window)
        with qtbot.waitSignal(controller.pending_changed, timeout=10_000):  # kept as pending
            window.close()

    growth, left = _rounds(one_round, CaptureWindow)
    assert left == 0
    assert growth < RSS_GROWTH_MAX, f"resident memory grew {growth / 1e6:.1f} MB"


ASKER = """
import json, sys
from pathlib import Path
from core.ipc.client import IpcClient
from core.ipc.runtime_paths import socket_path
journal, rounds, params = Path(sys.argv[1]), int(sys.argv[2]), json.loads(sys.argv[3])
for _ in range(rounds):
    with IpcClient(socket_path(journal), timeout=10) as client:
        print(json.dumps(client.call("questions.ask", params, timeout=60)), flush=True)
"""
"""The hook's part: one connection per question, from another process (a thread of this one
would count its own allocations in the resident size measured)."""


def test_a_question_window_dismissed_many_times_leaves_nothing(
    qtbot: QtBot, harness: tuple[Path, CaptureController]
) -> None:
    journal, controller = harness
    total = WARM_UP + ROUNDS
    command = [sys.executable, "-c", ASKER, str(journal), str(total), json.dumps(QUESTION_PARAMS)]
    askers: list[subprocess.Popen[str]] = []

    def one_round() -> None:
        if not askers:  # started here: no window is open when the rounds count them
            askers.append(subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, text=True))
        qtbot.waitUntil(lambda: len(controller.question_windows()) == 1, timeout=20_000)
        (window,) = controller.question_windows()
        qtbot.waitExposed(window)
        window.close()  # dismissed; the next question comes once the reply is read

    try:
        growth, left = _rounds(one_round, QuestionsWindow)
        out, _ = askers[0].communicate(timeout=30)
    finally:
        for asker in askers:
            asker.kill()
    assert [json.loads(line) for line in out.splitlines()] == [{"status": "dismissed"}] * total
    assert left == 0
    assert growth < RSS_GROWTH_MAX, f"resident memory grew {growth / 1e6:.1f} MB"
