"""Labels for text an agent or a person wrote: plain text, never HTML, sized by the user's font."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QWidget

from core.record.controls import visible_controls


def plain_label(text: str, parent: QWidget, *, selectable: bool = False) -> QLabel:
    """A word-wrapped label that never interprets agent text as HTML, nor obeys a control
    character in it: each shows as its escape (`core.record.controls`), so a bidi override
    cannot make the text read otherwise than it is stored."""
    label = QLabel(visible_controls(text), parent)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(True)
    if selectable:
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


def scaled_font_label(text: str, parent: QWidget, scale: float, *, bold: bool = True) -> QLabel:
    """A heading sized relative to the user's font, so it follows high-DPI and font settings."""
    label = plain_label(text, parent)
    font = label.font()
    if font.pointSizeF() > 0:
        font.setPointSizeF(font.pointSizeF() * scale)
    font.setBold(bold)
    label.setFont(font)
    return label


def keyboard_hint(text: str, parent: QWidget) -> QLabel:
    """A window's line about its keys, named for a screen reader (its text is the description)."""
    label = plain_label(text, parent)
    label.setObjectName("keyboard-hint")
    label.setAccessibleName("Keyboard")
    label.setAccessibleDescription(text)
    return label
