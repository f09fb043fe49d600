"""Buttons for windows where Enter must never accept anything implicitly."""

from __future__ import annotations

from PySide6.QtWidgets import QPushButton, QWidget


def passive_button(parent: QWidget, text: str, tooltip: str) -> QPushButton:
    """A button that is never the default, so Enter cannot press it by accident."""
    button = QPushButton(text, parent)
    button.setAutoDefault(False)
    button.setDefault(False)
    button.setToolTip(tooltip)
    return button
