"""Notices record files that appear, change or vanish in the journal, whoever wrote them.

Why: the app hears its own commits through the store's listener and the CLI's through the
`journal.changed` notice, but some writers tell nobody: a hook that journals the answers to a
Claude Code question, KernForge itself, a file the user copied in. Record files are written
by an atomic rename into `records/`, so the folder's own change notice (inotify on Linux)
catches every one of them without polling. A burst (an import, a sync) is one `changed`
signal once it settles; the app then reconciles the index in a worker, which finds what
changed, or nothing when the change was its own.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer, Signal, Slot

SETTLE_MS = 500
"""`changed` follows the last change of a burst by this long."""


class RecordsWatch(QObject):
    """Watches one journal's `records/` folder (and the journal folder until it exists).

    Signals:
        changed(): record files changed since the last signal.
    """

    changed = Signal()

    def __init__(self, journal_root: Path, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._root = journal_root
        self._records = journal_root / "records"
        self._watcher = QFileSystemWatcher(self)
        self._watcher.directoryChanged.connect(self._directory_changed)
        self._settle = QTimer(self)
        self._settle.setObjectName("records-watch-settle")
        self._settle.setSingleShot(True)
        self._settle.setInterval(SETTLE_MS)
        self._settle.timeout.connect(self.changed)

    def start(self) -> None:
        """Begins watching; a journal folder that does not exist yet is watched once it does."""
        self._watch()

    def stop(self) -> None:
        self._settle.stop()
        watched = self._watcher.directories()
        if watched:
            self._watcher.removePaths(watched)

    @property
    def watching(self) -> list[str]:
        return list(self._watcher.directories())

    def _watch(self) -> None:
        watched = set(self._watcher.directories())
        for folder in (self._root, self._records):
            if str(folder) not in watched and folder.is_dir() and not folder.is_symlink():
                self._watcher.addPath(str(folder))

    @Slot(str)
    def _directory_changed(self, path: str) -> None:
        if path == str(self._root):
            if str(self._records) in self._watcher.directories() or not self._records.is_dir():
                return  # another folder of the journal (pending/, drafts/) came or went
            self._watch()  # records/ was created: its first file is a change too
        elif not self._records.is_dir():
            return  # records/ went away; the journal folder still tells when it is back
        self._settle.start()
