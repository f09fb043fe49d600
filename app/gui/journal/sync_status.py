"""Sync's state in the journal window's status bar, and what a click on it opens.

Why a button and not a label: each state has one useful next step, and the status bar is where
the eye goes when something seems off. A conflict opens the first conflicted decision's
history, where both versions are shown; an error opens its runbook entry; otherwise a click
syncs now. The button is hidden while the journal does not sync.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, Signal, Slot
from PySide6.QtWidgets import QMessageBox, QToolButton, QWidget

from core.messages import runbook
from core.record.models import DecisionRecord
from core.sync.indicator import CONFLICT, ERROR, REFUSED, SyncView, explanation, headline

if TYPE_CHECKING:
    from app.gui.journal.window import JournalWindow

CLICK_HINTS = {
    CONFLICT: "",
    ERROR: "Click to read what to do.",
    REFUSED: "Click to read what to do.",
}
"""What a click does, added to the tooltip; every other state syncs now."""
SYNC_NOW_HINT = "Click to sync now."
MARKDOWN_PUNCTUATION = re.compile(r"[!-/:-@\[-`{-~]")
"""ASCII punctuation, which CommonMark lets a backslash make literal."""


class SyncStatusButton(QToolButton):
    """A flat status bar button showing a `SyncView`.

    Signals:
        sync_requested(): sync now.
        conflicts_requested(str): show the conflict of this decision (the first one).
        help_requested(str): show this runbook entry.
    """

    sync_requested = Signal()
    conflicts_requested = Signal(str)
    help_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("status-sync")
        self.setAutoRaise(True)
        self.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.setAccessibleName("Sync state")
        self.view = SyncView()
        self.clicked.connect(self._clicked)
        self.hide()

    @Slot(object)
    def set_view(self, view: SyncView) -> None:
        self.view = view
        if not view.configured:
            self.hide()
            return
        self.setText(headline(view))
        hint = CLICK_HINTS.get(view.state, SYNC_NOW_HINT)
        self.setToolTip("\n".join(line for line in (explanation(view), hint) if line))
        self.show()

    @Slot()
    def _clicked(self) -> None:
        if self.view.state == CONFLICT and self.view.conflicts:
            self.conflicts_requested.emit(self.view.conflicts[0])
        elif self.view.state in (ERROR, REFUSED):
            self.help_requested.emit(self.view.entry)
        else:
            self.sync_requested.emit()


def show_runbook_entry(parent: QWidget | None, entry: str, detail: str = "") -> QMessageBox:
    """The runbook entry in a window that blocks nothing, with the command that prints it.

    Args:
        parent: the window it belongs to, or None for one of its own.
        entry: the runbook entry to show.
        detail: the failure's own message, shown first: an entry lists every message it
            explains, and the reader needs to know which one this is.
    """
    try:
        text = runbook.entry(entry)
    except runbook.UnknownEntry as exc:
        text = str(exc)
    if detail:
        text = f"**What happened:** {markdown_literal(detail)}\n\n{text}"
    box = QMessageBox(QMessageBox.Icon.Information, "Decision Journal: sync", "", parent=parent)
    box.setObjectName("sync-runbook")
    box.setTextFormat(Qt.TextFormat.MarkdownText)
    box.setText(text)
    box.setInformativeText(f"In a terminal: `{runbook.HELP_COMMAND} {entry}`")
    box.setWindowModality(Qt.WindowModality.NonModal)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.show()  # `open()` would make it window-modal
    return box


def markdown_literal(text: str) -> str:
    """`text` escaped so Markdown shows it as written (paths and git messages hold `_`, `*`
    and brackets)."""
    return MARKDOWN_PUNCTUATION.sub(r"\\\g<0>", text)


class ConflictOpener(QObject):
    """Opens a decision in the journal window, then its history once the record has loaded
    (the history dialog is for the record on show)."""

    def __init__(self, window: JournalWindow) -> None:
        super().__init__(window)
        self._window = window
        self._wanted = ""
        window.bridge.record_loaded.connect(self._loaded)
        window.bridge.record_failed.connect(self._failed)

    def open(self, decision_id: str) -> None:
        self._wanted = decision_id
        self._window.present()
        self._window.open_decision(decision_id)

    @Slot(object)
    def _loaded(self, record: DecisionRecord) -> None:
        if record.id == self._wanted and self._window.is_shown(record.id):
            self._wanted = ""
            self._window.dialogs.show_history()

    @Slot(str, str)
    def _failed(self, decision_id: str, _message: str) -> None:
        if decision_id == self._wanted:
            self._wanted = ""
