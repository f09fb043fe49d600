"""The issue banner above the journal: unreadable records and a profile that needs attention.

Why a banner and not a dialog: healthy records stay browsable while a file is damaged, so the
window keeps working and the banner keeps saying which file is wrong, why export and rebuild
refuse to run, and where the runbook explains the repair. It says each error once, names files
without their folders, and offers what helps: "Show file" opens the folder that holds it,
"Move aside" puts the damaged files in the journal's quarantine folder. While a file is
unreadable a profile rebuild cannot succeed, so the banner does not offer one then.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPalette
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QStyle,
    QVBoxLayout,
    QWidget,
)

from app.gui.journal.formatting import count_text
from core.messages import runbook
from core.profile.model import STATE_ERROR, STATE_REBUILDING, STATE_STALE, ProfileStatus

RUNBOOK_UNREADABLE = runbook.reference("unreadable-record")
MAX_LISTED_FILES = 5
REBUILDING_TEXT = "Preference profile is rebuilding"
CONSEQUENCE = (
    "The other decisions are available. Export and profile rebuilds wait until {it} is "
    "repaired or moved aside (see {runbook})."
)


@dataclass(frozen=True, slots=True)
class FileIssue:
    """An unreadable record file as the banner names it."""

    path: str
    error: str

    @property
    def name(self) -> str:
        return os.path.basename(self.path)

    def reason(self) -> str:
        """The error without the file's path or a repeat of its name: the line names it."""
        text = self.error.replace(self.path, self.name)
        for prefix in (f"parse {self.name}: ", f"{self.name}: "):
            text = text.removeprefix(prefix)
        return text.rstrip(".")


def issue_lines(issues: Sequence[FileIssue]) -> list[str]:
    """A headline saying how many files, one line per file (name: reason), what it means."""
    if not issues:
        return []
    lines = [f"{count_text(len(issues), 'decision file')} could not be read"]
    for issue in issues[:MAX_LISTED_FILES]:
        lines.append(f"{issue.name}: {issue.reason()}.")
    if len(issues) > MAX_LISTED_FILES:
        lines.append(f"…and {len(issues) - MAX_LISTED_FILES:,} more.")
    it = "the file" if len(issues) == 1 else "each file"
    lines.append(CONSEQUENCE.format(it=it, runbook=RUNBOOK_UNREADABLE))
    return lines


def profile_line(status: ProfileStatus | None) -> str:
    if status is None:
        return ""
    if status.state == STATE_REBUILDING:
        return REBUILDING_TEXT
    if status.state == STATE_STALE:
        detail = status.error or (
            "the decision journal changed after the preference profile was generated"
        )
        return f"Preference profile is stale: {detail}. Use Rebuild profile to refresh it."
    if status.state == STATE_ERROR:
        return (
            f"Preference profile needs attention: {status.error or 'the last rebuild failed'}. "
            "Use Rebuild profile to retry."
        )
    return ""


class Banner(QFrame):
    """Hidden while there is nothing to report.

    Signals:
        rebuild_requested(): the banner's "Rebuild profile" button was pressed.
        show_file_requested(str): "Show file": the path of the first damaged file.
        move_aside_requested(list): "Move aside": the paths of every damaged file listed.
    """

    rebuild_requested = Signal()
    show_file_requested = Signal(str)
    move_aside_requested = Signal(list)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("issue-banner")
        self._issues: list[FileIssue] = []
        self._status: ProfileStatus | None = None
        self._icon = QLabel(self)
        self.headline = QLabel(self)
        self.headline.setObjectName("banner-headline")
        self.headline.setTextFormat(Qt.TextFormat.PlainText)
        self.headline.setWordWrap(True)
        bold = self.headline.font()
        bold.setBold(True)
        self.headline.setFont(bold)
        self.label = QLabel(self)
        self.label.setObjectName("banner-text")
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.label.setAccessibleName("Journal issues")
        self.rebuild_button = QPushButton("Rebuild profile", self)
        self.rebuild_button.setObjectName("banner-rebuild")
        self.rebuild_button.clicked.connect(self.rebuild_requested)
        self.show_file_button = QPushButton("Show &file", self)
        self.show_file_button.setObjectName("banner-show-file")
        self.show_file_button.clicked.connect(self._show_file)
        self.move_aside_button = QPushButton("&Move aside", self)
        self.move_aside_button.setObjectName("banner-move-aside")
        self.move_aside_button.setToolTip(
            "Move the damaged files into the journal's quarantine folder; nothing is deleted"
        )
        self.move_aside_button.clicked.connect(self._move_aside)
        text_column = QVBoxLayout()
        text_column.addWidget(self.headline)
        text_column.addWidget(self.label)
        buttons = QVBoxLayout()
        for button in (self.show_file_button, self.move_aside_button, self.rebuild_button):
            button.setAutoDefault(False)
            buttons.addWidget(button)
        buttons.addStretch(1)
        layout = QHBoxLayout(self)
        layout.addWidget(self._icon, 0, Qt.AlignmentFlag.AlignTop)
        layout.addLayout(text_column, 1)
        layout.addLayout(buttons)
        self.hide()

    @property
    def text(self) -> str:
        """The headline and the details, one line each, as a reader (or a test) sees them."""
        return "\n".join(part for part in (self.headline.text(), self.label.text()) if part)

    def set_issues(self, issues: Sequence[FileIssue]) -> None:
        self._issues = list(issues)
        self._refresh()

    def set_profile_status(self, status: ProfileStatus | None) -> None:
        self._status = status
        self._refresh()

    @property
    def issues(self) -> list[FileIssue]:
        return list(self._issues)

    def _show_file(self) -> None:
        if self._issues:
            self.show_file_requested.emit(self._issues[0].path)

    def _move_aside(self) -> None:
        if self._issues:
            self.move_aside_requested.emit([issue.path for issue in self._issues])

    def _refresh(self) -> None:
        lines = issue_lines(self._issues)
        # A damaged file is why a profile cannot be rebuilt: saying so again adds nothing.
        profile = "" if self._issues else profile_line(self._status)
        if profile:
            lines.append(profile)
        self.headline.setText(lines[0] if lines else "")
        self.label.setText("\n".join(lines[1:]))
        self.label.setVisible(len(lines) > 1)
        self.rebuild_button.setVisible(bool(profile) and profile != REBUILDING_TEXT)
        self.show_file_button.setVisible(bool(self._issues))
        self.move_aside_button.setVisible(bool(self._issues))
        if self._issues:
            self.show_file_button.setToolTip(f"Open the folder holding {self._issues[0].path}")
        serious = bool(self._issues) or (
            self._status is not None and self._status.state == STATE_ERROR
        )
        icon = (
            QStyle.StandardPixmap.SP_MessageBoxWarning
            if serious
            else QStyle.StandardPixmap.SP_MessageBoxInformation
        )
        extent = self.style().pixelMetric(QStyle.PixelMetric.PM_SmallIconSize)
        self._icon.setPixmap(
            self.style().standardIcon(icon).pixmap(QSize(extent, extent), self.devicePixelRatioF())
        )
        self.setProperty("serious", serious)
        self.setVisible(bool(lines))
        self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        """A tinted rounded box in the palette's colours, amber for notices, rose for errors."""
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        dark = self.palette().color(QPalette.ColorRole.Window).lightness() < 128
        tone = QColor("#e11d48" if self.property("serious") else "#d97706")
        fill = QColor(tone)
        fill.setAlpha(60 if dark else 30)
        painter.setPen(tone)
        painter.setBrush(fill)
        painter.drawRoundedRect(self.rect().adjusted(1, 1, -1, -1), 6, 6)
        painter.end()
