"""Paints one list row from its `ListRow`: badges, the problem, and a preformatted meta line.

Why a delegate with a fixed height: with uniform row sizes the view never measures 100,000
rows, and a paint only elides two strings and draws a few pills, so scrolling stays smooth.
The time is drawn right-aligned and whole; the selection and project elide before it does, and
the row's tooltip has every value in full. Whether a row is a sync conflict comes from the
model (`ConflictRole`), which also says it in the tooltip and the accessible text.
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPalette
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem, QWidget

from app.gui.journal.decision_list_model import DecisionListModel
from app.gui.widgets.palette import is_dark
from core.index.rows import ListRow
from core.record.controls import visible_controls

_RISK_COLOURS = {
    "critical": "#e11d48",
    "high": "#ea580c",
    "medium": "#ca8a04",
    "low": "#16a34a",
}


CONFLICT = "conflict"
_CONFLICT_COLOURS = {False: "#6d28d9", True: "#c4b5fd"}
"""Changed on two machines and waiting for a choice of version: violet (no risk uses it),
lighter on a dark palette so the pill stays readable."""


def badges(row: ListRow, *, conflicted: bool = False, dark: bool = False) -> list[tuple[str, str]]:
    """(text, colour) pills for a row: "conflict" first when it waits for a choice of version,
    the kind (or "decision"), the risk, "deleted"."""
    items = [(CONFLICT, _CONFLICT_COLOURS[dark])] if conflicted else []
    items.append((visible_controls(row.decision_kind) or "decision", ""))
    if row.risk_level:
        items.append((row.risk_level, _RISK_COLOURS.get(row.risk_level, "")))
    if row.deleted:
        items.append(("deleted", "#be123c"))
    return items


class DecisionDelegate(QStyledItemDelegate):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._font_key = ""
        self._bold = QFont()
        self._small = QFont()

    def _fonts(self, base: QFont) -> None:
        key = base.key()
        if key == self._font_key:
            return
        self._font_key = key
        self._bold = QFont(base)
        self._bold.setBold(True)
        self._small = QFont(base)
        if base.pointSizeF() > 0:
            self._small.setPointSizeF(base.pointSizeF() * 0.88)

    def sizeHint(
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> QSize:
        height = QFontMetrics(option.font).height()
        return QSize(200, int(height * 2.9))

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionViewItem,
        index: QModelIndex | QPersistentModelIndex,
    ) -> None:
        row = index.data(DecisionListModel.RowRole)
        if not isinstance(row, ListRow):
            super().paint(painter, option, index)
            return
        meta, when = index.data(DecisionListModel.MetaRole) or ("", "")
        rect: QRect = option.rect
        palette: QPalette = option.palette
        state = option.state
        self._fonts(option.font)
        painter.save()
        widget = option.widget
        style = widget.style() if widget is not None else None
        if style is not None:
            style.drawPrimitive(
                QStyle.PrimitiveElement.PE_PanelItemViewItem, option, painter, widget
            )
        selected = bool(state & QStyle.StateFlag.State_Selected)
        text_colour = palette.color(
            QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        )
        muted = QColor(text_colour)
        muted.setAlphaF(0.72)
        unit = QFontMetrics(self._bold).height()
        pad = unit // 2
        x = rect.left() + pad
        top = rect.top() + pad // 2
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setFont(self._small)
        small_metrics = QFontMetrics(self._small)
        dark = is_dark(palette)
        conflicted = bool(index.data(DecisionListModel.ConflictRole))
        for text, colour in badges(row, conflicted=conflicted, dark=dark):
            width = small_metrics.horizontalAdvance(text) + unit // 2 + 2
            pill = QRectF(x, top + 2, width, unit - 2)
            tone = QColor(colour) if colour else muted
            painter.setPen(tone if not selected else text_colour)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRoundedRect(pill, pill.height() / 2, pill.height() / 2)
            painter.drawText(pill, int(Qt.AlignmentFlag.AlignCenter), text)
            x += width + pad // 2
        painter.setFont(self._bold)
        painter.setPen(text_colour)
        problem_rect = QRect(int(x) + pad // 2, top, rect.right() - int(x) - pad, unit)
        problem = QFontMetrics(self._bold).elidedText(
            " ".join(visible_controls(row.problem).split()),
            Qt.TextElideMode.ElideRight,
            problem_rect.width(),
        )
        font = QFont(self._bold)
        font.setStrikeOut(row.deleted)
        painter.setFont(font)
        painter.drawText(problem_rect, int(Qt.AlignmentFlag.AlignVCenter), problem)
        painter.setFont(self._small)
        painter.setPen(muted)
        meta_rect = QRect(rect.left() + pad, top + unit + pad // 2, rect.width() - 2 * pad, unit)
        when_width = small_metrics.horizontalAdvance(when)
        painter.drawText(
            meta_rect, int(Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignRight), when
        )
        meta_rect.setWidth(max(0, meta_rect.width() - when_width - pad))
        painter.drawText(
            meta_rect,
            int(Qt.AlignmentFlag.AlignVCenter),
            small_metrics.elidedText(meta, Qt.TextElideMode.ElideRight, meta_rect.width()),
        )
        painter.restore()
