"""Time from `decision.present` arriving at the socket to the capture window being visible.

Compares the resident app (ours) with the peers' design: a fresh process per question that
imports Qt and shows an equivalent dialog. Both run in this process's platform (set
QT_QPA_PLATFORM=offscreen, or run under Xvfb for a real X server).

Also: one window shown and closed `--repeat-windows` times (100), with the resident size and
the present -> shown time of the first ten rounds against the last ten: a closed window must give
its memory back and leave the next one as quick (the agents' client threads run in this process,
so a few MiB of their allocator arenas count too).

Usage: python bench/capture_bench.py [--rounds 20] [--repeat-windows 100]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication

from app.capture_controller import CaptureController
from app.ipc.server import Connection, IpcServer
from app.workers import WorkerPool
from bench.memory_bench import settled_rss
from core.capture.machine import CaptureService
from core.capture.pending import PendingStore
from core.decider.service import Decider, record_lookup
from core.ipc.client import IpcClient
from core.ipc.protocol import Request
from core.ipc.runtime_paths import socket_path
from core.store.decisions import DecisionStore
from tests.core.decider.support import Journal as AnsweringJournal
from tests.core.decider.support import database_proposal

FRESH_PROCESS = r"""
import os, sys, time
start = float(sys.argv[1])
from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication
from app.gui.capture.request import CaptureRequest
from app.gui.capture.window import CaptureWindow
from core.record.models import ProposalOption
app = QApplication([])
options = [ProposalOption(id=f"o{i}", label=f"Option {i}", description="d", recommended=i == 0)
           for i in range(3)]
window = CaptureWindow(CaptureRequest(decision_id="d", problem="Choose the storage layout",
    options=options, decision_kind="k", risk_level="", domains=[], detector_confidence=0.9,
    project_alias="p", session_id="s", agent="", header="", stage="choice"))
class Watch(QObject):
    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Expose and window.isVisible():
            print(time.time() - start, flush=True)
            QTimer.singleShot(0, app.quit)
        return False
watch = Watch()
window.installEventFilter(watch)
window.present()
QTimer.singleShot(0, lambda: window.windowHandle().installEventFilter(watch))
app.exec()
"""


class _Timed:
    """Wraps the controller to stamp when each request reaches the handler."""

    def __init__(self, inner: CaptureController) -> None:
        self.inner = inner
        self.arrived: float = 0.0

    def handle(self, connection: Connection, request: Request) -> None:
        self.arrived = time.perf_counter()
        self.inner.handle(connection, request)


class _ExposeWatch(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.shown_at = 0.0

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if event.type() in (QEvent.Type.Expose, QEvent.Type.Show) and not self.shown_at:
            self.shown_at = time.perf_counter()
        return False


def bench_resident(
    rounds: int, *, decider: bool = False, memory: list[int] | None = None
) -> list[float]:
    """`decider`: a journal whose profile has a rule for the benched kind (twelve answers), with
    the decider predicting and the window's usual-choice line read, as the tray app runs; without
    it, the same journal and proposals with neither (the baseline of the same run). `memory`
    gets this process's resident size after each round, once closed windows are deleted, and
    makes every round after the first resume the first round's decision (as the tray's pending
    list does), so the journal itself does not grow."""
    app = QApplication.instance() or QApplication([])
    runtime = Path(tempfile.mkdtemp(prefix="dj-"))
    os.environ["XDG_RUNTIME_DIR"] = str(runtime)
    answered = AnsweringJournal(Path(tempfile.mkdtemp()) / "journal")
    answered.answer_many(12)
    journal = answered.root
    pending = PendingStore(journal)
    workers = WorkerPool()
    deciding = Decider(journal, answered.profile) if decider else None
    controller = CaptureController(
        CaptureService(DecisionStore(journal), pending, decider=deciding),
        pending,
        workers,
        usual_choice=(
            (lambda p: deciding.usual_choice(p, record_lookup(answered.store)))
            if deciding
            else None
        ),
    )
    timed = _Timed(controller)
    server = IpcServer(journal, timed)
    assert server.listen()
    samples = []
    resumed = ""
    for index in range(rounds):
        watch = _ExposeWatch()
        params: dict[str, Any] = {
            "proposal": database_proposal(1000 + index),
            "workspace": "/tmp/bench",
            "session_id": f"bench-{index}",
        }
        if resumed:
            params = {"decision_id": resumed, "workspace": "/tmp/bench", "session_id": "bench-0"}

        def call(params: dict[str, Any] = params) -> None:
            try:
                with IpcClient(socket_path(journal), timeout=5) as client:
                    client.call("decision.present", params, timeout=30)
            except Exception:
                pass

        thread = threading.Thread(target=call, daemon=True)
        thread.start()
        deadline = time.perf_counter() + 10
        while not controller.open_windows() and time.perf_counter() < deadline:
            app.processEvents()
        (window,) = controller.open_windows()
        if memory is not None:
            resumed = window.request.decision_id
        window.installEventFilter(watch)
        while not watch.shown_at and not window.isVisible():
            app.processEvents()
        shown = watch.shown_at or time.perf_counter()
        samples.append((shown - timed.arrived) * 1000)
        window.close()  # cancels: the client gets `pending` and the round ends
        while thread.is_alive():
            app.processEvents()
        if memory is not None:
            memory.append(settled_rss())
    server.close()
    workers.wait_idle()
    return samples


def bench_fresh_process(rounds: int) -> list[float]:
    root = Path(__file__).resolve().parents[1]
    env = dict(os.environ, PYTHONPATH=str(root))
    samples = []
    for _ in range(rounds):
        start = time.time()
        out = (
            subprocess.run(
                [sys.executable, "-c", FRESH_PROCESS, str(start)],
                check=False,
                env=env,
                cwd=root,
                capture_output=True,
                text=True,
                timeout=60,
            )
            .stdout.strip()
            .splitlines()
        )
        samples.append(float(out[-1]) * 1000 if out else float("nan"))
    return samples


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--repeat-windows", type=int, default=100)
    args = parser.parse_args()
    rss: list[int] = []
    repeated = bench_resident(args.repeat_windows, memory=rss)
    baseline = bench_resident(args.rounds)
    deciding = bench_resident(args.rounds, decider=True)
    ours = baseline
    fresh = bench_fresh_process(max(3, args.rounds // 4))
    platform = os.environ.get("QT_QPA_PLATFORM", "default")
    print(f"platform: {platform}")
    print(
        f"resident app: median {statistics.median(ours):7.1f} ms  (p90 "
        f"{sorted(ours)[int(len(ours) * 0.9) - 1]:.1f} ms, n={len(ours)}) present -> window shown"
    )
    print(
        f"fresh process: median {statistics.median(fresh):7.1f} ms  (n={len(fresh)}) "
        "spawn -> window shown"
    )
    print(f"ratio: {statistics.median(fresh) / statistics.median(ours):.1f}x faster")
    print(
        f"resident app with the decider (prediction logged, usual choice read): median "
        f"{statistics.median(deciding):7.1f} ms  (p90 "
        f"{sorted(deciding)[int(len(deciding) * 0.9) - 1]:.1f} ms) against "
        f"{statistics.median(baseline):.1f} ms without it, same run"
    )
    tenth = min(10, len(repeated) // 2)
    print(
        f"{len(repeated)} windows shown and closed: resident {rss[tenth - 1] / 2**20:.1f} MiB "
        f"after window {tenth}, {rss[-1] / 2**20:.1f} MiB after the last "
        f"(+{(rss[-1] - rss[tenth - 1]) / 2**20:.1f} MiB); present -> shown median "
        f"{statistics.median(repeated[:tenth]):.1f} ms over the first {tenth}, "
        f"{statistics.median(repeated[-tenth:]):.1f} ms over the last {tenth}"
    )


if __name__ == "__main__":
    main()
