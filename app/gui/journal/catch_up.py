"""When the journal window reads the disk again, and whether what the index read changes the list.

Why apart from the window: "catch up" has rules of its own that have nothing to do with how the
list pages or what the inspector shows. The first opening waits for the index to read the record
files (unless a warm-up already did); opening the window again catches up at most every
`REFRESH_MIN_MS`; F5 always does, once per press however long the key is held; a burst of
commits in this process reloads once it settles, or when the window opens again if it was
hidden; and a report from the index reloads the list only when it found something, or another
process moved the index on. This object keeps that state and says `reload_wanted` when the
list, the catalog and the decision on screen should be read again.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer, Signal, Slot

from app.gui.journal.bridge import JournalBridge
from core.gocompat.gotime import GoTime
from core.index.rows import IndexReadReport

REFRESH_MIN_MS = 2000
"""Opening the window again catches up at most this often (F5 always does)."""
CHANGE_SETTLE_MS = 300
"""A commit in this process reloads the list this long after the last one of a burst."""


class CatchUp(QObject):
    """The journal window's catch-up with the disk and with its own process's commits.

    Args:
        bridge: the window's bridge: it reads the files and reports, and says what committed.
        is_visible: whether the window is on screen (a hidden one only notes that it is stale).

    Signals:
        reload_wanted(): read the list, the catalog and the decision on screen again.
        status_message(str): a passing line for the status bar ("Refreshing…", "Refreshed.").
    """

    reload_wanted = Signal()
    status_message = Signal(str)

    def __init__(
        self, bridge: JournalBridge, is_visible: Callable[[], bool], parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.bridge = bridge
        self._is_visible = is_visible
        self.loaded_once = False
        """The window was opened once: later openings refresh instead of loading."""
        self.prepared = False
        """A warm-up while hidden (`prepare`) already asked the index to read the files."""
        self._first_read_pending = False
        """The catch-up the first page waits for: what it finds is already on that page."""
        self._index_generation: int | None = None
        """The index generation of the last catch-up report (`IndexReadReport.generation`)."""
        self._reload_requested = False
        """F5: the next catch-up report reloads the list, whatever it found."""
        self._stale = False
        """A commit landed while the window was hidden: opening it reloads the list."""
        self._last_refresh = 0
        self._stopped = False
        self.change_timer = QTimer(self)
        self.change_timer.setObjectName("change-timer")
        self.change_timer.setSingleShot(True)
        self.change_timer.setInterval(CHANGE_SETTLE_MS)
        self.change_timer.timeout.connect(self._journal_changed)

    def first_open(self) -> None:
        """The window's first opening: the index reads the files first unless it has already
        (it reports its progress; the first page's query waits for it)."""
        self.loaded_once = True
        if not (self.prepared or self.bridge.index.caught_up):
            self._first_read_pending = True
            self.bridge.read_changed_files()

    def reopened(self) -> bool:
        """A later opening: catches up (at most every `REFRESH_MIN_MS`); True when a commit
        landed while the window was hidden, so the list must be read again."""
        self.refresh()
        stale, self._stale = self._stale, False
        return stale

    def prepare(self) -> None:
        """A warm-up while hidden: the index reads the files and the profile checks its state
        (which, on a very large journal, is better done before anyone waits for it)."""
        self.prepared = True
        self.bridge.read_changed_files()
        self.bridge.load_profile()  # its status check warms the profile's per-file cache

    def refresh(self) -> None:
        """Catches up with other processes: catch the index up, reload what may have changed."""
        now = GoTime.now().unix_ns // 1_000_000
        if now - self._last_refresh < REFRESH_MIN_MS:
            return
        self._last_refresh = now
        self._catch_up()

    def refresh_now(self) -> None:
        """F5 and Journal → Refresh: catch up with the disk and reload the list, every time.

        A key held down queues one catch-up, not one per repeat: the flag stays set until
        the catch-up's report arrives and reloads.
        """
        if not self.loaded_once or self._stopped:
            return
        self.status_message.emit("Refreshing…")
        if self._reload_requested:
            return
        self._reload_requested = True
        self._last_refresh = GoTime.now().unix_ns // 1_000_000
        self._catch_up()

    def _catch_up(self) -> None:
        self.bridge.read_changed_files()
        self.bridge.load_profile()
        self.bridge.load_pending()

    def reload(self) -> None:
        """Asks for the list to be read again now; a commit waiting to reload is in it too."""
        self.change_timer.stop()
        self._index_generation = self.bridge.index.generation
        self.reload_wanted.emit()

    def stop(self) -> None:
        """The window shuts down: nothing more starts a timer or a reload."""
        self._stopped = True
        self.change_timer.stop()

    @Slot(str)
    def record_committed(self, _decision_id: str) -> None:
        """A capture, an edit, an import or the transcript watch committed in this process: the
        index row is current already, so the list only reloads, once the burst settles."""
        if self.loaded_once and not self._stopped:
            self.change_timer.start()

    @Slot()
    def _journal_changed(self) -> None:
        if self._stopped:
            return
        if not self._is_visible():
            self._stale = True
            return
        self.reload()

    @Slot(object)
    def files_read(self, report: IndexReadReport) -> None:
        """What the index read: reloads when it found something (or F5 asked), not for the
        first page's own catch-up, which that page already waited for."""
        shown_already, self._first_read_pending = self._first_read_pending, False
        requested, self._reload_requested = self._reload_requested, False
        known, self._index_generation = self._index_generation, report.generation
        if shown_already and not requested:
            return  # the first page's query waited for this catch-up: loading again would flicker
        # another process may have caught the index up first (a `list` in a terminal after a
        # sync), or this process committed (its rows are current already): this catch-up then
        # counts nothing, but the generation has moved on
        moved = known is not None and known != report.generation
        changed = moved or report.added or report.changed or report.removed
        if self.loaded_once and (requested or changed):
            self.reload()
            if requested:
                self.status_message.emit("Refreshed.")
