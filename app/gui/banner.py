"""The issue banner above the journal: unreadable records and a profile that needs attention.

Why a banner and not a dialog: healthy records stay browsable while a file is damaged, so the
window keeps working and the banner keeps saying which file is wrong, why export and rebuild
refuse to run, and where the runbook explains the repair.
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

from core.profile_model import STATE_ERROR, STATE_REBUILDING, STATE_STALE, ProfileStatus

RUNBOOK_UNREADABLE = "docs/runbook.md#unreadable-record"
MAX_LISTED_FILES = 5
REBUILDING_TEXT = "Preference profile is rebuilding"


@dataclass(frozen=True, slots=True)
class FileIssue:
    """An unreadable record file as the banner names it."""

    path: str
    error: str


def issue_lines(issues: Sequence[FileIssue]) -> list[str]:
    if not issues:
        return []
    lines = [f"{len(issues)} journal file(s) could not be read (see {RUNBOOK_UNREADABLE})"]
    for issue in issues[:MAX_LISTED_FILES]:
        lines.append(
            f"{os.path.basename(issue.path)}: {issue.error}. Healthy records remain available; "
            "repair or remove the damaged file before profile rebuild or export."
        )
    if len(issues) > MAX_LISTED_FILES:
        lines.append(f"…and {len(issues) - MAX_LISTED_FILES} more.")
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
    """

    rebuild_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("issue-banner")
        self._issues: list[FileIssue] = []
        self._status: ProfileStatus | None = None
        self._icon = QLabel(self)
        self.label = QLabel(self)
        self.label.setObjectName("banner-text")
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.label.setAccessibleName("Journal issues")
        self.rebuild_button = QPushButton("Rebuild profile", self)
        self.rebuild_button.setObjectName("banner-rebuild")
        self.rebuild_button.clicked.connect(self.rebuild_requested)
        text_column = QVBoxLayout()
        text_column.addWidget(self.label)
        layout = QHBoxLayout(self)
        layout.addWidget(self._icon, 0, Qt.AlignmentFlag.AlignTop)
        layout.addLayout(text_column, 1)
        layout.addWidget(self.rebuild_button, 0, Qt.AlignmentFlag.AlignTop)
        self.hide()

    @property
    def text(self) -> str:
        return self.label.text()

    def set_issues(self, issues: Sequence[FileIssue]) -> None:
        self._issues = list(issues)
        self._refresh()

    def set_profile_status(self, status: ProfileStatus | None) -> None:
        self._status = status
        self._refresh()

    def _refresh(self) -> None:
        lines = issue_lines(self._issues)
        profile = profile_line(self._status)
        if profile:
            lines.append(profile)
        self.label.setText("\n".join(lines))
        self.rebuild_button.setVisible(bool(profile) and profile != REBUILDING_TEXT)
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
