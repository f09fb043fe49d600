"""What the journal window shows while the journal holds no decision at all: what to do first.

Why a page of its own: an empty list beside an inspector of empty fields (a column of "—")
tells a new user nothing. The journal fills up in three ways, and the page names each: an
agent connected once with `decision-journal setup` asks its next fork here, decisions kept
elsewhere come in through Import, and a clone of the source writes a demo journal to try the
window on. The window swaps this page for the list as soon as a first decision lands.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from app.gui.widgets.labels import plain_label, scaled_font_label

SETUP_CLIENTS = ("claude-code", "codex", "gemini", "cursor", "vscode")
"""The clients `decision-journal setup` configures (the command line's `setup` lists them)."""
HEADLINE = "No decisions yet"
CONNECT_TEXT = "Connect a coding agent: in a terminal, run"
SETUP_COMMAND = f"decision-journal setup {SETUP_CLIENTS[0]} --write"
CONNECT_AFTER = (
    f"(or {', '.join(SETUP_CLIENTS[1:])} instead of {SETUP_CLIENTS[0]}). The next time the "
    "agent reaches a fork it asks you here, and your answer is the journal's first decision."
)
IMPORT_TEXT = (
    "Or bring in decisions you already have: Claude Code's answered questions, MADR or "
    "decisions.md files, a KernForge journal or an export."
)
DEMO_TEXT = "To look around first, “make demo” in a clone of the source opens a demo journal."


class WelcomePage(QWidget):
    """Signals:
    import_requested(): the Import… button (the Journal menu's Import…).
    """

    import_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("welcome-page")
        headline = scaled_font_label(HEADLINE, self, 1.4)
        headline.setObjectName("welcome-headline")
        connect_label = plain_label(CONNECT_TEXT, self)
        self.command_label = plain_label(SETUP_COMMAND, self, selectable=True)
        self.command_label.setObjectName("welcome-command")
        self.command_label.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.command_label.setContentsMargins(16, 0, 0, 0)
        after_label = plain_label(CONNECT_AFTER, self)
        import_label = plain_label(IMPORT_TEXT, self)
        self.import_button = QPushButton("&Import…", self)
        self.import_button.setObjectName("welcome-import")
        self.import_button.setAutoDefault(False)
        self.import_button.clicked.connect(self.import_requested)
        demo_label = plain_label(DEMO_TEXT, self)
        column = QWidget(self)
        column.setMaximumWidth(640)
        inner = QVBoxLayout(column)
        inner.setSpacing(12)
        inner.addWidget(headline)
        connect = QVBoxLayout()
        connect.setSpacing(4)
        for label in (connect_label, self.command_label, after_label):
            connect.addWidget(label)
        inner.addLayout(connect)
        inner.addWidget(import_label)
        inner.addWidget(self.import_button, 0, Qt.AlignmentFlag.AlignLeft)
        inner.addWidget(demo_label)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(column, 4)
        row.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addStretch(1)
        layout.addLayout(row)
        layout.addStretch(2)
        self.setFocusProxy(self.import_button)

    @property
    def labels(self) -> list[QLabel]:
        return self.findChildren(QLabel)
