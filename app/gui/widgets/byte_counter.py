"""A live "n / limit bytes" label for text fields whose limit is in UTF-8 bytes.

Why: the journal limits text by UTF-8 bytes, not characters, so a Korean sentence reaches the
limit about three times sooner than an English one. Counting characters (QLineEdit.maxLength)
would let people type text the store then refuses.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QLabel, QWidget

from core.gocompat.text import utf8_len

_LIGHT_BACKGROUND_RED = "#c62828"
_DARK_BACKGROUND_RED = "#ff7070"
_DARK_LIGHTNESS_BELOW = 128


def byte_count(count: int, limit: int) -> str:
    """ "16 / 4,096 bytes": the one way every window writes a byte count against its limit,
    with thousands separators as the journal window writes every number."""
    return f"{count:,} / {limit:,} bytes"


def over_limit_color(palette: QPalette) -> QColor:
    """The red used for over-limit counts, readable on the palette's window background."""
    dark = palette.color(QPalette.ColorRole.Window).lightness() < _DARK_LIGHTNESS_BELOW
    return QColor(_DARK_BACKGROUND_RED if dark else _LIGHT_BACKGROUND_RED)


class ByteCounter(QLabel):
    """Shows how many UTF-8 bytes a field holds; red with "too long" once over the limit.

    The words "too long" are there as well as the colour so the state does not rely on colour
    alone. The figures are `byte_count`'s.
    """

    def __init__(self, limit: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._limit = limit
        self._count = 0
        self.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.setAccessibleName("Byte count")
        self._render()

    @property
    def limit(self) -> int:
        return self._limit

    @property
    def count(self) -> int:
        return self._count

    @property
    def figures(self) -> str:
        """The count against the limit, as shown: "16 / 4,096 bytes"."""
        return byte_count(self._count, self._limit)

    @property
    def is_over(self) -> bool:
        return self._count > self._limit

    def update_count(self, text: str) -> None:
        """Recount for the field's current text; connect to the field's text-changed signal."""
        self._count = utf8_len(text)
        self._render()

    def changeEvent(self, event: QEvent) -> None:
        """Re-pick the red when the palette switches between light and dark."""
        super().changeEvent(event)
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange):
            self._render()

    def _render(self) -> None:
        plain = self.figures
        if not self.is_over:
            self.setTextFormat(Qt.TextFormat.PlainText)
            self.setText(plain)
            return
        color = over_limit_color(self.palette()).name()
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setText(f'<span style="color:{color}; font-weight:600">{plain} — too long</span>')
