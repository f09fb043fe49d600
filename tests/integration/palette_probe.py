"""Run as `python -m tests.integration.palette_probe`: what a capture window paints under the
platform theme of this process's environment, as JSON on stdout (see test_gtk_dark_xvfb)."""

from __future__ import annotations

import json
import sys

from PySide6.QtCore import QPoint
from PySide6.QtGui import QPalette
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QRadioButton

from app.gui.capture.choice_page import Badge
from app.gui.capture.window import CaptureWindow
from app.gui.widgets.palette import contrast_ratio, is_dark
from tests.app.support.capture_support import indicator_image, make_request, max_contrast


def main() -> int:
    app = QApplication(["decision-journal"])
    window = CaptureWindow(make_request())
    window.show()
    QTest.qWaitForWindowExposed(window)
    radio = window.findChild(QRadioButton, "choice-3")
    checked = window.findChild(QRadioButton, "choice-1")
    assert radio is not None and checked is not None
    checked.setChecked(True)
    QTest.qWait(50)
    card = radio.parentWidget()
    assert card is not None
    background = card.grab().toImage().pixelColor(radio.mapTo(card, QPoint(1, 1)))
    badges = {b.text(): b.colours() for b in window.findChildren(Badge) if b.isVisible()}
    report = {
        "platform_theme_dark": is_dark(app.palette()),
        "window_dark": is_dark(window.palette()),
        "radio_ring_contrast": max_contrast(indicator_image(radio), background),
        "badge_contrast": {text: contrast_ratio(*colours) for text, colours in badges.items()},
        "muted_contrast": contrast_ratio(
            window.palette().color(QPalette.ColorRole.PlaceholderText),
            window.palette().color(QPalette.ColorRole.Window),
        ),
    }
    print(json.dumps(report))
    window.close_after_record()
    return 0


if __name__ == "__main__":
    sys.exit(main())
