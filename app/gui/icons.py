"""App and tray icons from the SVGs in resources/, sharp at every device pixel ratio."""

from __future__ import annotations

from PySide6.QtGui import QIcon

from resources import ICONS_DIR


def icon(name: str) -> QIcon:
    """QIcon renders SVG on demand for each requested size, so high-DPI trays stay crisp."""
    return QIcon(str(ICONS_DIR / f"{name}.svg"))


def app_icon() -> QIcon:
    return icon("decision-journal")


def tray_icon(waiting: bool) -> QIcon:
    return icon("tray-waiting" if waiting else "tray-idle")
