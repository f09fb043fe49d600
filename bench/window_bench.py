"""Journal window latency on a large journal with a warm index.

Usage: python bench/window_bench.py [--count 100000] [--journal DIR] [--pages 50]

Prints:
* ms from "open the window" to its first page shown and painted (target ≤ 300 ms);
* ms per full-text filter update, from the filter being applied (after the 180 ms typing
  debounce) to the new first page shown and painted (target ≤ 100 ms);
* ms per lazily fetched page while scrolling towards the end.

"Warm" means the index file is built and this process has reconciled it once, which is the
state of the resident tray app when the user opens the journal.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PySide6.QtCore import QEventLoop, QSettings, QTimer
from PySide6.QtWidgets import QApplication

from app.gui.journal.requests import SCOPE_ALL, FilterState
from bench.journal_gen import write_journal
from core.journal import Journal

QUERIES = ("cache", "snapshot lock", "worker queue", "parser", "token policy", "migr", "zzzz")


def wait_for(signal: object, timeout_ms: int = 60_000) -> None:
    loop = QEventLoop()
    signal.connect(loop.quit)  # type: ignore[attr-defined]
    QTimer.singleShot(timeout_ms, loop.quit)
    loop.exec()
    signal.disconnect(loop.quit)  # type: ignore[attr-defined]


def prepare(root: Path, count: int) -> Journal:
    records = root / "records"
    if not records.exists() or len(os.listdir(records)) < count:
        started = time.perf_counter()
        write_journal(root, count)
        print(f"generated {count} records in {time.perf_counter() - started:.1f} s")
    journal = Journal(root)
    report = journal.index.read_changed_files()
    print(
        f"index reconcile: {report.seconds * 1000:.0f} ms "
        f"(added {report.added}, changed {report.changed})"
    )
    report = journal.index.read_changed_files()
    print(f"index reconcile, warm: {report.seconds * 1000:.0f} ms")
    return journal


def bench_settings(journal: Journal) -> QSettings:
    from app.gui.journal.window_settings import (
        remember_filters,  # not the window: its import is measured
    )

    path = Path(tempfile.mkdtemp()) / "bench.ini"
    settings = QSettings(str(path), QSettings.Format.IniFormat)
    remember_filters(settings, journal.root, FilterState(scope=SCOPE_ALL))
    return settings


def open_cold(journal: Journal) -> float:
    """A window built on request (module imported, index warm): ms to the first page painted."""
    from app.gui.journal.window import JournalWindow

    started = time.perf_counter()
    window = JournalWindow(journal, settings=bench_settings(journal))
    window.resize(1200, 760)
    window.present()
    wait_for(window.first_page_shown)
    window.list_view.viewport().repaint()
    elapsed = (time.perf_counter() - started) * 1000
    wait_for(window.bridge.catalog_loaded)
    window.shutdown()
    window.deleteLater()
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--count", type=int, default=100_000)
    parser.add_argument("--journal", help="journal directory to create or reuse")
    parser.add_argument("--pages", type=int, default=50)
    args = parser.parse_args()
    app = QApplication.instance() or QApplication(sys.argv[:1])
    root = Path(args.journal or Path(tempfile.gettempdir()) / f"dj-window-bench-{args.count}")
    journal = prepare(root, args.count)

    from app.gui.journal.window import JournalWindow

    cold = open_cold(journal)
    print(f"first page visible, window built on request: {cold:.0f} ms")
    window = JournalWindow(journal, settings=bench_settings(journal))
    window.resize(1200, 760)
    window.prepare()  # what the tray app does two seconds after it starts
    wait_for(window.bridge.files_read)
    started = time.perf_counter()
    window.present()
    wait_for(window.first_page_shown)
    window.list_view.viewport().repaint()
    first_page = (time.perf_counter() - started) * 1000
    if not window.model.counted:
        wait_for(window.scope_counted)
    counted = (time.perf_counter() - started) * 1000
    print(
        f"first page visible, resident window: {first_page:.0f} ms; all {window.model.total} "
        f"matches counted and frozen: {counted:.0f} ms"
    )
    wait_for(window.bridge.catalog_loaded)
    print(f"menus and banner filled: {(time.perf_counter() - started) * 1000:.0f} ms")

    timings, counts = [], []
    for query in QUERIES:
        window.filter_bar.search.setText(query)
        started = time.perf_counter()
        window.filter_bar.flush()
        wait_for(window.first_page_shown)
        window.list_view.viewport().repaint()
        elapsed = (time.perf_counter() - started) * 1000
        if not window.model.counted:
            wait_for(window.scope_counted)
        counted = (time.perf_counter() - started) * 1000
        timings.append(elapsed)
        counts.append(counted)
        print(
            f"filter {query!r}: list updated in {elapsed:.0f} ms; "
            f"{window.model.total} matches counted in {counted:.0f} ms"
        )
    print(
        f"filter update: median {statistics.median(timings):.0f} ms, max {max(timings):.0f} ms "
        f"(counted: median {statistics.median(counts):.0f} ms)"
    )

    window.filter_bar.search.setText("")
    window.filter_bar.flush()
    wait_for(window.scope_counted)
    pages = min(args.pages, window.model.total // 100 - 1)
    started = time.perf_counter()
    for _ in range(pages):
        before = window.model.loaded
        window.list_view.scrollToBottom()
        while window.model.loaded == before:
            app.processEvents(QEventLoop.ProcessEventsFlag.WaitForMoreEvents, 50)
    per_page = (time.perf_counter() - started) * 1000 / max(pages, 1)
    print(f"scrolling: {per_page:.1f} ms per page of 100 ({window.model.loaded} loaded)")
    window.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
