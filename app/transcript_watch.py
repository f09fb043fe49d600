"""Keeps importing answered AskUserQuestion prompts from Claude Code transcripts, when turned on.

Claude Code deletes transcripts after 30 days; watching brings every answer into the journal
while it still exists. The import runs on its own thread (it waits between passes) and stops
when the user turns it off or the app quits.
"""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path

from PySide6.QtCore import QObject, Signal

from core.importers.base import ImportOptions, ImportReport
from core.importers.watch import watch
from core.journal import Journal

log = logging.getLogger(__name__)


def claude_projects_dir() -> Path:
    """Where Claude Code keeps transcripts; CLAUDE_CONFIG_DIR moves it, as in Claude Code."""
    base = os.environ.get("CLAUDE_CONFIG_DIR") or str(Path.home() / ".claude")
    return Path(base).expanduser() / "projects"


class TranscriptWatcher(QObject):
    """Signals:
    imported(int): a pass brought in this many new decisions (emitted from the watch thread,
        delivered queued to the GUI thread).
    """

    imported = Signal(int)

    def __init__(self, journal: Journal, source: Path | None = None, interval: float = 5.0):
        super().__init__()
        self._journal = journal
        self._source = source or claude_projects_dir()
        self._interval = interval
        self._cancel = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def set_enabled(self, enabled: bool) -> None:
        if enabled:
            self.start()
        else:
            self.stop()

    def start(self) -> None:
        if self.running:
            return
        self._cancel = threading.Event()
        self._thread = threading.Thread(target=self._run, name="transcript-watch", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._cancel.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    def _run(self) -> None:
        try:
            watch(
                self._journal,
                self._source,
                options=ImportOptions(cancel=self._cancel),
                interval=self._interval,
                on_pass=self._on_pass,
            )
        except Exception:  # a broken transcript must not take the tray app down
            log.exception("watching Claude Code transcripts failed")

    def _on_pass(self, report: ImportReport) -> None:
        if report.imported:
            self.imported.emit(report.imported)
