"""`import --watch`: keeps importing new answers as they appear, until cancelled.

Why polling: transcripts are appended by another program in a folder that may hold thousands
of files; a pass that only stats files and reads new bytes (the claude-code importer keeps its
place per file) costs milliseconds, works the same on every platform and needs no extra
dependency. The tray app runs this on a worker thread and stops it with the cancel event.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

from core.importers import make_importer
from core.importers.base import ImportOptions, ImportReport
from core.importers.engine import run_import
from core.importers.sources.decider_policy import ExclusionPolicy
from core.journal import Journal

DEFAULT_INTERVAL = 2.0
INTERVAL_MIN = 0.1
INTERVAL_MAX = 3600.0
"""Seconds between passes: below the least a watch busy-polls, above the most the wait
overflows the clock."""


def interval_problem(interval: float) -> str:
    """Why `interval` cannot be a watch's, or "" when it can (NaN and infinities cannot)."""
    if INTERVAL_MIN <= interval <= INTERVAL_MAX:  # False for NaN
        return ""
    return f"must be {INTERVAL_MIN:g} to {INTERVAL_MAX:,.0f} seconds, got {interval:g}"


def watch(
    journal: Journal,
    source: Path,
    *,
    kind: str = "claude-code",
    options: ImportOptions | None = None,
    interval: float = DEFAULT_INTERVAL,
    on_pass: Callable[[ImportReport], None] | None = None,
    max_passes: int | None = None,
    policy: ExclusionPolicy | None = None,
) -> ImportReport:
    """Runs import passes every `interval` seconds; returns the sum of all passes.

    Stops when `options.cancel` is set (checked between items and while waiting) or after
    `max_passes`. Questions still waiting for an answer are not reported as skipped while
    watching: they are imported by the pass after their answer lands.
    """
    options = options or ImportOptions()
    cancel = options.cancel or threading.Event()
    options = ImportOptions(
        dry_run=options.dry_run,
        since=options.since,
        progress=options.progress,
        cancel=cancel,
        progress_interval=options.progress_interval,
    )
    importer = make_importer(kind, policy=policy, incremental=True)
    total = ImportReport(kind=kind, source=str(source), dry_run=options.dry_run)
    passes = 0
    while True:
        started = time.monotonic()
        report = run_import(journal, importer, source, options)
        total.absorb(report)
        passes += 1
        if on_pass is not None:
            on_pass(report)
        if report.cancelled or (max_passes is not None and passes >= max_passes):
            break
        if cancel.wait(max(0.0, interval - (time.monotonic() - started))):
            total.cancelled = True
            break
    return total
