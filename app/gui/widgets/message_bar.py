"""A line for a hint or an error beside a window's buttons, marked by a standard icon.

Shared by the capture, questions and correction windows.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QStyle, QWidget


class MessageBar(QWidget):
    """A hint or error beside the buttons; a standard icon marks which, not colour alone."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self._icon = QLabel(self)
        self.label = QLabel(self)
        self.label.setObjectName("message")
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.setWordWrap(True)
        self.label.setAccessibleName("Message")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self._icon, 0, Qt.AlignmentFlag.AlignTop)
        layout.addWidget(self.label, 1)
        self.clear()

    @property
    def hint_text(self) -> str:
        """The hint on show, or "" when the bar is empty or shows an error."""
        return self.label.text() if self._is_hint else ""

    def show_hint(self, text: str) -> None:
        self._show(text, QStyle.StandardPixmap.SP_MessageBoxInformation)
        self._is_hint = True

    def show_error(self, text: str) -> None:
        self._show(text, QStyle.StandardPixmap.SP_MessageBoxWarning)
        self._is_hint = False

    def clear(self) -> None:
        self._is_hint = False
        self.label.clear()
        self._icon.clear()
        self._icon.hide()

    def _show(self, text: str, icon: QStyle.StandardPixmap) -> None:
        extent = self.style().pixelMetric(QStyle.PixelMetric.PM_SmallIconSize)
        pixmap = (
            self.style().standardIcon(icon).pixmap(QSize(extent, extent), self.devicePixelRatioF())
        )
        self._icon.setPixmap(pixmap)
        self._icon.setVisible(not pixmap.isNull())
        self.label.setText(text)
