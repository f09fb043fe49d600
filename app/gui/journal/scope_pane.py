"""The journal window's left side: the decision list of the current scope, or its empty state.

Why a widget of its own: what the list side shows around the list (a notice above it that
clears itself, the caption under it, and the empty state with its one-click way to the other
projects' matches) is rendering, apart from the window's decisions about which scope to load
and which decision stays on screen. While the index reads files the caption says so; the
list's own caption waits and returns afterwards.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QLabel, QListView, QPushButton, QStackedWidget, QVBoxLayout, QWidget

from app.gui.journal.decision_list_model import EMPTY_TEXT
from app.gui.journal.formatting import count_text

INDEXING_NOTICE_MIN = 1000
"""Files to read from which a reconcile shows its progress in the caption."""


class ScopePane(QWidget):
    """Signals:
    elsewhere_requested(): "Show N decisions in other projects" on the empty state.
    """

    elsewhere_requested = Signal()

    def __init__(self, list_view: QListView, notice_ms: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.list_view = list_view
        self.caption = QLabel(self)
        self.caption.setObjectName("list-caption")
        self.notice = QLabel(self)
        self.notice.setObjectName("list-notice")
        self.notice.setWordWrap(True)
        self.notice.hide()
        self.notice_timer = QTimer(self)
        self.notice_timer.setObjectName("notice-timer")
        self.notice_timer.setSingleShot(True)
        self.notice_timer.setInterval(notice_ms)
        self.notice_timer.timeout.connect(self.notice.hide)
        self.empty_page = QWidget(self)
        self.empty_page.setObjectName("empty-page")
        self.empty_label = QLabel(EMPTY_TEXT, self.empty_page)
        self.empty_label.setObjectName("empty-state")
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.elsewhere_button = QPushButton(self.empty_page)
        self.elsewhere_button.setObjectName("show-other-projects")
        self.elsewhere_button.setAutoDefault(False)
        self.elsewhere_button.hide()
        self.elsewhere_button.clicked.connect(self.elsewhere_requested)
        empty_layout = QVBoxLayout(self.empty_page)
        empty_layout.addStretch(1)
        empty_layout.addWidget(self.empty_label)
        empty_layout.addWidget(self.elsewhere_button, 0, Qt.AlignmentFlag.AlignHCenter)
        empty_layout.addStretch(1)
        self.list_stack = QStackedWidget(self)
        self.list_stack.addWidget(list_view)
        self.list_stack.addWidget(self.empty_page)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.notice)
        layout.addWidget(self.list_stack, 1)
        layout.addWidget(self.caption)
        self._caption_before_indexing: str | None = None

    def show_list_or_empty(self, rows: int, elsewhere: int, *, scoped: bool) -> None:
        """The list when it has rows, else the empty state; `scoped`: the filter names a
        project, so the other projects' `elsewhere` matches are one click away."""
        if rows:
            self.list_stack.setCurrentWidget(self.list_view)
            return
        self.list_stack.setCurrentWidget(self.empty_page)
        self.elsewhere_button.setVisible(bool(elsewhere) and scoped)
        self.elsewhere_button.setText(f"Show {count_text(elsewhere, 'decision')} in other projects")

    def show_notice(self, text: str) -> None:
        """Above the list for a while: for what the user must read."""
        self.notice.setText(text)
        self.notice.show()
        self.notice_timer.start()

    def set_caption(self, text: str) -> None:
        """While the index reads files the caption shows that; the list's text waits for it."""
        if self._caption_before_indexing is None:
            self.caption.setText(text)
        else:
            self._caption_before_indexing = text

    def indexing(self, done: int, total: int) -> None:
        """A large first build (or a sync that brought many files) takes seconds: say so."""
        if total < INDEXING_NOTICE_MIN:
            return
        if self._caption_before_indexing is None:
            self._caption_before_indexing = self.caption.text()
        self.caption.setText(f"Reading the journal: {done:,} of {total:,} decisions…")

    def indexing_done(self) -> None:
        if self._caption_before_indexing is not None:
            self.caption.setText(self._caption_before_indexing)
            self._caption_before_indexing = None

    def stop(self) -> None:
        self.notice_timer.stop()
