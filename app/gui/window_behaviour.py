"""How our decision windows behave: they come to the front, and Enter presses nothing."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton, QWidget


def passive_button(parent: QWidget, text: str, tooltip: str) -> QPushButton:
    """A button that is never the default, so Enter cannot press it by accident."""
    button = QPushButton(text, parent)
    button.setAutoDefault(False)
    button.setDefault(False)
    button.setToolTip(tooltip)
    return button


def bring_to_front(window: QWidget) -> None:
    """Show a window in front of the others with keyboard focus, even if it was minimized."""
    if window.isMinimized():
        window.setWindowState(window.windowState() & ~Qt.WindowState.WindowMinimized)
    window.show()
    window.raise_()
    window.activateWindow()
