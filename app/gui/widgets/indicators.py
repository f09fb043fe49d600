"""Radio and check indicators that stay visible in every palette.

Why: Fusion draws the ring of a radio button or checkbox a shade darker than the window, which
all but vanishes on dark palettes (the app's own dark mode and system themes such as GTK's
Adwaita dark alike), and its checked dot is grey on grey. A choice the person must see at a
glance cannot depend on that, so our windows draw the indicators themselves: a ring in the text
colour, filled with the highlight colour when checked, the mark in a colour readable on it.
Everything else is drawn by the application's style.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPalette, QPen
from PySide6.QtWidgets import QApplication, QProxyStyle, QStyle, QStyleOption, QWidget

from app.gui.widgets.palette import MARK_CONTRAST, readable_on

Role = QPalette.ColorRole
_RING_ALPHA = 190
"""The ring in text colour, slightly softened: contrast stays above 3:1 on both schemes."""
_STYLE: list[IndicatorStyle] = []


class IndicatorStyle(QProxyStyle):
    """The application's style, with our own radio and check indicators."""

    def drawPrimitive(
        self,
        element: QStyle.PrimitiveElement,
        option: QStyleOption,
        painter: QPainter,
        widget: QWidget | None = None,
    ) -> None:
        if element == QStyle.PrimitiveElement.PE_IndicatorRadioButton:
            _draw_indicator(option, painter, round_mark=True)
        elif element in (
            QStyle.PrimitiveElement.PE_IndicatorCheckBox,
            QStyle.PrimitiveElement.PE_IndicatorItemViewItemCheck,  # a table's check cells
        ):
            _draw_indicator(option, painter, round_mark=False)
        else:
            super().drawPrimitive(element, option, painter, widget)


def indicator_style() -> IndicatorStyle:
    """One shared instance, built on the application's style when first needed."""
    if not _STYLE:
        app = QApplication.instance()
        style = IndicatorStyle(app.style().name() if isinstance(app, QApplication) else None)
        if isinstance(app, QApplication):
            style.setParent(app)
        _STYLE.append(style)
    return _STYLE[0]


def use_clear_indicators(*widgets: QWidget) -> None:
    """Draw these widgets' indicators with `IndicatorStyle` (a style is not inherited)."""
    style = indicator_style()
    for widget in widgets:
        widget.setStyle(style)


def indicator_colours(palette: QPalette, *, checked: bool, enabled: bool) -> tuple[QColor, QColor]:
    """(ring, fill) of an indicator."""
    if not enabled:
        muted = palette.color(QPalette.ColorGroup.Disabled, Role.WindowText)
        return muted, palette.color(Role.Window)
    if checked:
        highlight = palette.color(Role.Highlight)
        return highlight, highlight
    ring = QColor(palette.color(Role.WindowText))
    ring.setAlpha(_RING_ALPHA)
    return ring, palette.color(Role.Base)


def _draw_indicator(option: QStyleOption, painter: QPainter, *, round_mark: bool) -> None:
    state = option.state
    checked = bool(state & QStyle.StateFlag.State_On)
    partial = bool(state & QStyle.StateFlag.State_NoChange)
    enabled = bool(state & QStyle.StateFlag.State_Enabled)
    palette = option.palette
    ring, fill = indicator_colours(palette, checked=checked or partial, enabled=enabled)
    side = min(option.rect.width(), option.rect.height())
    width = max(1.5, side / 9)
    box = QRectF(option.rect).adjusted(width / 2, width / 2, -width / 2, -width / 2)
    box.setWidth(side - width)
    box.setHeight(side - width)
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(QPen(ring, width))
    painter.setBrush(fill)
    if round_mark:
        painter.drawEllipse(box)
    else:
        painter.drawRoundedRect(box, side / 5, side / 5)
    mark = readable_on(fill, palette.color(Role.HighlightedText), MARK_CONTRAST)
    if checked and round_mark:
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(mark)
        painter.drawEllipse(box.center(), side / 5, side / 5)
    elif checked:
        _draw_tick(painter, box, mark, width * 1.3)
    elif partial:
        pen = QPen(mark, width * 1.3)
        pen.setCapStyle(Qt.PenCapStyle.RoundCap)
        painter.setPen(pen)
        y = box.center().y()
        painter.drawLine(QPointF(box.left() + side / 4, y), QPointF(box.right() - side / 4, y))
    painter.restore()


def _draw_tick(painter: QPainter, box: QRectF, colour: QColor, width: float) -> None:
    path = QPainterPath()
    path.moveTo(box.left() + box.width() * 0.22, box.top() + box.height() * 0.52)
    path.lineTo(box.left() + box.width() * 0.42, box.top() + box.height() * 0.72)
    path.lineTo(box.left() + box.width() * 0.78, box.top() + box.height() * 0.30)
    pen = QPen(colour, width)
    pen.setCapStyle(Qt.PenCapStyle.RoundCap)
    pen.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
    painter.setPen(pen)
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.drawPath(path)
