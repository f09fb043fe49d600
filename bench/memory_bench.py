"""Resident memory of the app with a large journal's window open and idle, beside a bare window.

Usage: python bench/memory_bench.py --journal DIR [--top 0]

Both sides run in a fresh process each, offscreen, and report VmRSS once deferred deletions ran
and the collector ran:

* bare: a QMainWindow with a QTableView over a plain table model holding exactly the rows the
  journal window holds (its loaded list rows, as tuples of the strings it shows), nothing else;
* app: what the tray app holds with the journal window open: `Journal`, its profile worker, the
  journal window built hidden and prepared, the index reconciled and the profile rebuilt if stale
  (`core.journal.warm_up`, as the app runs it soon after start), the window shown with its first
  page, counts, menus and banner filled, then idle for two seconds.

The target is app <= 2 x bare. `--top N` also prints the N largest Python allocation sites of
the app side (tracemalloc, started before the journal is opened; it slows the run).
The journal's index should be built first (a cold build is not what this measures): the app
side reconciles it either way.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

IDLE_SECONDS = 2.0


def settled_rss() -> int:
    """Resident bytes once deferred deletions ran and unreachable objects were collected."""
    import gc  # the side processes import only what they measure

    from PySide6.QtCore import QCoreApplication, QEvent

    for _ in range(3):
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        QCoreApplication.processEvents()
        gc.collect()
    with open("/proc/self/status", encoding="ascii") as status:
        line = next(line for line in status if line.startswith("VmRSS:"))
    return int(line.split()[1]) * 1024


def idle(seconds: float) -> None:
    from PySide6.QtCore import QCoreApplication

    end = time.monotonic() + seconds
    while time.monotonic() < end:
        QCoreApplication.processEvents()
        time.sleep(0.02)


def bare_side(rows_file: Path) -> None:
    from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt
    from PySide6.QtWidgets import QApplication, QMainWindow, QTableView

    rows = [tuple(row) for row in json.loads(rows_file.read_text(encoding="utf-8"))]

    class Table(QAbstractTableModel):
        def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: B008
            return 0 if parent.isValid() else len(rows)

        def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: B008
            return 0 if parent.isValid() or not rows else len(rows[0])

        def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> object:
            if role == Qt.ItemDataRole.DisplayRole:
                return rows[index.row()][index.column()]
            return None

    app = QApplication(sys.argv[:1])
    window = QMainWindow()
    view = QTableView(window)
    model = Table(view)
    view.setModel(model)
    window.setCentralWidget(view)
    window.resize(1200, 760)
    window.show()
    idle(IDLE_SECONDS)
    print(json.dumps({"rss": settled_rss(), "rows": len(rows)}))
    window.close()
    del app


def app_side(journal_root: Path, rows_file: Path, top: int) -> None:
    if top:
        import tracemalloc

        tracemalloc.start(8)
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from core.bulk.parallel_read import use_start_method
    from core.journal import Journal, warm_up

    app = QApplication(sys.argv[:1])
    use_start_method("spawn")  # as the app does
    journal = Journal(journal_root)
    profile_worker = journal.start_profile_worker()

    from app.gui.journal.window import JournalWindow
    from bench.window_bench import wait_for

    settings = QSettings(str(rows_file.with_suffix(".ini")), QSettings.Format.IniFormat)
    window = JournalWindow(journal, profile_worker=profile_worker, settings=settings)
    window.resize(1200, 760)
    window.prepare()
    warm_up(journal.index, profile_worker)
    while profile_worker.status().state in {"stale", "rebuilding"}:
        idle(0.2)
    window.present()
    wait_for(window.first_page_shown)
    if not window.model.counted:
        wait_for(window.scope_counted)
    idle(IDLE_SECONDS)
    rss = settled_rss()
    model = window.model
    rows = [_shown(model.list_row(row)) for row in range(model.loaded)]
    rows_file.write_text(json.dumps(rows), encoding="utf-8")
    result: dict[str, object] = {"rss": rss, "rows": len(rows), "total": model.total}
    if top:
        import tracemalloc

        stats = tracemalloc.take_snapshot().statistics("traceback")
        result["traced"] = sum(stat.size for stat in stats)
        result["top"] = [
            [stat.size, stat.count, [str(frame) for frame in stat.traceback[-4:]]]
            for stat in stats[:top]
        ]
    print(json.dumps(result))
    window.shutdown()
    profile_worker.stop()
    del app


def _shown(row: object) -> list[str]:
    """The strings a list row shows, as a bare table would hold them."""
    return (
        [str(value) for value in row.__dict__.values()]
        if hasattr(row, "__dict__")
        else [
            str(getattr(row, name))
            for name in row.__slots__  # type: ignore[attr-defined]
        ]
    )


def run_side(*args: str) -> dict[str, object]:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, __file__, *args], env=env, capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--journal", type=Path)
    parser.add_argument("--top", type=int, default=0)
    parser.add_argument("--side", choices=["app", "bare"], help=argparse.SUPPRESS)
    parser.add_argument("--rows", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.side == "app":
        app_side(args.journal, args.rows, args.top)
        return
    if args.side == "bare":
        bare_side(args.rows)
        return
    if args.journal is None:
        parser.error("--journal DIR is required")
    with tempfile.TemporaryDirectory(prefix="memory-bench-") as tmp:
        rows = Path(tmp) / "rows.json"
        home = Path(tmp) / "home"
        home.mkdir()
        os.environ["HOME"] = str(home)
        os.environ["XDG_RUNTIME_DIR"] = str(Path(tmp) / "run")
        app = run_side(
            "--side",
            "app",
            "--journal",
            str(args.journal.resolve()),
            "--rows",
            str(rows),
            "--top",
            str(args.top),
        )
        bare = run_side("--side", "bare", "--rows", str(rows))
    mib = 2**20
    app_rss, bare_rss = int(app["rss"]), int(bare["rss"])  # type: ignore[call-overload]
    print(
        f"idle RSS, {app['total']} decisions, {app['rows']} rows loaded "
        f"(load average {os.getloadavg()[0]:.1f})"
    )
    print(f"  bare window with the same rows   {bare_rss / mib:8.1f} MiB")
    print(
        f"  app with the journal window      {app_rss / mib:8.1f} MiB   "
        f"({app_rss / bare_rss:.1f}x bare; target 2x)"
    )
    if "traced" in app:
        print(f"  Python allocations (tracemalloc) {int(app['traced']) / mib:8.1f} MiB")  # type: ignore[call-overload]
        for size, count, frames in app["top"]:  # type: ignore[attr-defined]
            print(f"    {size / mib:7.2f} MiB {count:8} blocks  {' <- '.join(reversed(frames))}")


if __name__ == "__main__":
    main()
