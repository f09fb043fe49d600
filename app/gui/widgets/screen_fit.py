"""Windows that fit the screen they open on: never taller or wider than its free area.

Why: a 1366 by 768 laptop has about 740 pixels under its panel, and a window of 760 with a
title bar puts its Close or Save button below the edge, out of reach of the mouse. Every
window that picks its own size asks here, so the rule is written once.
"""

from __future__ import annotations

from PySide6.QtCore import QRect, QSize
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QWidget

TITLE_BAR_ALLOWANCE = 40
"""Pixels kept for the window manager's title bar, which Qt's sizes leave out."""


def free_area(window: QWidget) -> QRect | None:
    """The free area (without panels) of the screen the window is on, None without one."""
    screen = window.screen() or QGuiApplication.primaryScreen()
    return screen.availableGeometry() if screen is not None else None


def fit_to_screen(window: QWidget, preferred: QSize, *, share: float = 1.0) -> None:
    """Resizes to `preferred`, shrunk to `share` of the free area (less the title bar), and
    moves a shown window back inside that area when its frame would leave it."""
    free = free_area(window)
    if free is None:
        window.resize(preferred)
        return
    window.resize(
        min(preferred.width(), int(free.width() * share)),
        min(preferred.height(), int((free.height() - TITLE_BAR_ALLOWANCE) * share)),
    )
    if window.isVisible():
        keep_inside(window, free)


def keep_inside(window: QWidget, free: QRect) -> None:
    """Moves the window so that its frame (title bar included) lies inside `free`."""
    frame = window.frameGeometry()
    extra_height = max(frame.height() - window.height(), TITLE_BAR_ALLOWANCE // 2)
    height = window.height() + extra_height
    x = max(free.left(), min(frame.left(), free.right() + 1 - frame.width()))
    y = max(free.top(), min(frame.top(), free.bottom() + 1 - height))
    if (x, y) != (frame.left(), frame.top()):
        window.move(x, y)
