"""App and tray icons from the SVGs in resources/, sharp at every device pixel ratio.

The tray icon carries the number of waiting decisions in a badge drawn into the picture, so
the count is visible without opening the menu. Each size is rendered at the screens' device
pixel ratios, so a high-DPI panel gets a crisp badge rather than a scaled-up small one.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QGuiApplication, QIcon, QPainter, QPen, QPixmap

from resources import ICONS_DIR

TRAY_SIZES = (16, 22, 24, 32, 48, 64)
BADGE_MAX = 9
"""Counts past this show as "9+": a tray badge has room for two characters at most."""
BADGE_FILL = QColor("#c4320a")
"""A notification red with white text at a contrast ratio above 5:1, on any panel colour."""
BADGE_TEXT = QColor("#ffffff")
BADGE_RING = QColor("#ffffff")


def icon(name: str) -> QIcon:
    """QIcon renders SVG on demand for each requested size, so high-DPI trays stay crisp."""
    return QIcon(str(ICONS_DIR / f"{name}.svg"))


def app_icon() -> QIcon:
    return icon("decision-journal")


def badge_text(count: int) -> str:
    """What the badge says: the count, "9+" past nine, "" when nothing waits."""
    if count <= 0:
        return ""
    return str(count) if count <= BADGE_MAX else f"{BADGE_MAX}+"


def tray_icon(waiting: int, ratios: tuple[float, ...] | None = None) -> QIcon:
    """The tray icon; with decisions waiting, their count in a badge at the lower right.

    Args:
        waiting: how many decisions wait for an answer.
        ratios: device pixel ratios to render for (default: those of the attached screens).
    """
    base = icon("tray-idle")
    text = badge_text(waiting)
    if not text:
        return base
    result = QIcon()
    for ratio in ratios or screen_ratios():
        for size in TRAY_SIZES:
            result.addPixmap(badged_pixmap(base, size, ratio, text))
    return result


def screen_ratios() -> tuple[float, ...]:
    ratios = {screen.devicePixelRatio() for screen in QGuiApplication.screens()}
    return tuple(sorted(ratios | {1.0}))


def badged_pixmap(base: QIcon, size: int, ratio: float, text: str) -> QPixmap:
    """`base` at `size` logical pixels and `ratio`, with `text` in a round badge."""
    pixels = round(size * ratio)
    pixmap = QPixmap(pixels, pixels)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    base.paint(painter, 0, 0, pixels, pixels)
    diameter = pixels * (0.62 if len(text) == 1 else 0.72)
    ring = max(1.0, pixels / 22)
    badge = QRectF(pixels - diameter, pixels - diameter, diameter, diameter)
    badge = badge.adjusted(ring / 2, ring / 2, -ring / 2, -ring / 2)
    painter.setPen(QPen(BADGE_RING, ring))
    painter.setBrush(BADGE_FILL)
    painter.drawRoundedRect(badge, badge.height() / 2, badge.height() / 2)
    font = QFont()
    font.setBold(True)
    font.setPixelSize(max(6, round(diameter * (0.7 if len(text) == 1 else 0.55))))
    painter.setFont(font)
    painter.setPen(BADGE_TEXT)
    painter.drawText(badge, int(Qt.AlignmentFlag.AlignCenter), text)
    painter.end()
    pixmap.setDevicePixelRatio(ratio)
    return pixmap
