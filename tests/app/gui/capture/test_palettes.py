"""Badges, radio buttons, the chosen card and the focus ring stay readable in every palette.

Palettes: ours (light and dark), a KDE-like dark system palette we keep, and the colours GTK's
Adwaita dark hands Qt through the gtk3 platform theme (dark text on a mid blue highlight and a
black accent, which is what made the badge and radio buttons unreadable). What is measured is
what is painted: pixels of the real widgets, and WCAG contrast ratios.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QLabel, QRadioButton, QWidget
from pytestqt.qtbot import QtBot

from app.gui.capture.choice_page import Badge
from app.gui.capture.window import CaptureWindow
from app.gui.widgets import palette as palettes
from app.gui.widgets.indicators import indicator_colours
from app.gui.widgets.palette import MARK_CONTRAST, READABLE_CONTRAST, contrast_ratio, readable_on
from tests.app.support.capture_support import (
    has_colour_near,
    indicator_image,
    make_request,
    max_contrast,
)

pytestmark = [
    pytest.mark.qt_log_ignore(r"This plugin does not support propagateSizeHints\(\)"),
]
R = QPalette.ColorRole


def _palette(colours: dict[QPalette.ColorRole, str]) -> QPalette:
    result = QPalette()
    for role, colour in colours.items():
        result.setColor(role, QColor(colour))
    return result


ADWAITA_DARK = {
    R.Window: "#353535",
    R.WindowText: "#eeeeec",
    R.Base: "#2d2d2d",
    R.Text: "#eeeeec",
    R.Button: "#353535",
    R.ButtonText: "#eeeeec",
    R.Highlight: "#15539e",
    R.HighlightedText: "#2d2d2d",
    R.Accent: "#000000",
    R.PlaceholderText: "#919190",
    R.Mid: "#2b2b2b",
    R.Dark: "#1b1b1b",
}
BREEZE_DARK = {
    R.Window: "#31363b",
    R.WindowText: "#fcfcfc",
    R.Base: "#232629",
    R.Text: "#fcfcfc",
    R.Button: "#31363b",
    R.ButtonText: "#fcfcfc",
    R.Highlight: "#3daee9",
    R.HighlightedText: "#fcfcfc",
    R.Accent: "#3daee9",
    R.PlaceholderText: "#a1a9b1",
}
PALETTES = {
    "light": palettes.build_palette(dark=False),
    "dark": palettes.build_palette(dark=True),
    "breeze-dark": _palette(BREEZE_DARK),
    "adwaita-dark": _palette(ADWAITA_DARK),
}


@pytest.fixture(params=sorted(PALETTES))
def themed(request: pytest.FixtureRequest, qtbot: QtBot) -> Iterator[CaptureWindow]:
    """A capture window on a desktop whose palette is `request.param`; the window picks its
    colours the way it does at run time (`apply_color_scheme`)."""
    before = QApplication.palette()
    QApplication.setPalette(PALETTES[request.param])
    try:
        window = CaptureWindow(make_request())
        qtbot.addWidget(window)
        window.apply_color_scheme()
        window.show()
        qtbot.waitExposed(window)
        yield window
    finally:
        QApplication.setPalette(before)


def test_readable_on_keeps_a_good_colour_and_replaces_a_bad_one() -> None:
    blue = QColor("#15539e")
    assert readable_on(blue, QColor("#ffffff")) == QColor("#ffffff")
    assert contrast_ratio(readable_on(blue, QColor("#2d2d2d")), blue) >= READABLE_CONTRAST
    assert readable_on(QColor("#f0b429"), QColor("#ffffff")) == QColor("#000000")
    assert contrast_ratio(QColor("#000000"), QColor("#ffffff")) == pytest.approx(21)


def test_badges_are_readable_and_tell_selected_from_recommended(
    qtbot: QtBot, themed: CaptureWindow
) -> None:
    first = themed.findChild(QRadioButton, "choice-1")
    assert first is not None
    first.setChecked(True)
    badges = {b.text(): b for b in themed.findChildren(Badge) if b.isVisible()}
    selected, recommended = badges["✓ Selected"], badges["Recommended (advice only)"]
    for badge in (selected, recommended):
        fill, text = badge.colours()
        assert contrast_ratio(fill, text) >= READABLE_CONTRAST, badge.text()
        painted = badge.grab().toImage()
        assert has_colour_near(painted, fill), badge.text()
    hues = sorted(b.colours()[0].hslHue() for b in (selected, recommended))
    assert min(hues[1] - hues[0], 360 - hues[1] + hues[0]) >= 60  # blue and amber


def test_unchecked_and_checked_radio_buttons_stand_out(qtbot: QtBot, themed: CaptureWindow) -> None:
    palette = themed.palette()
    window_colour = palette.color(R.Window)
    ring, _fill = indicator_colours(palette, checked=False, enabled=True)
    assert contrast_ratio(_flatten(ring, window_colour), window_colour) >= MARK_CONTRAST
    radio = themed.findChild(QRadioButton, "choice-3")
    assert radio is not None
    card = radio.parentWidget()
    assert card is not None
    background = _indicator_background(radio)
    assert max_contrast(indicator_image(radio), background) >= MARK_CONTRAST
    radio.setChecked(True)
    checked = radio.grab().toImage()
    highlight = palette.color(R.Highlight)
    assert has_colour_near(checked, highlight)


def test_the_chosen_card_and_the_focus_ring_are_visible(
    qtbot: QtBot, themed: CaptureWindow
) -> None:
    radio = themed.findChild(QRadioButton, "choice-2")
    assert radio is not None
    card = radio.parentWidget()
    assert card is not None
    radio.setChecked(True)
    radio.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(lambda: themed.focus_ring.target is radio)
    highlight = themed.palette().color(R.Highlight)
    assert has_colour_near(card.grab().toImage(), highlight)
    ring = themed.focus_ring.grab().toImage()
    assert max_contrast(ring, themed.palette().color(R.Window)) >= MARK_CONTRAST


def test_labels_on_the_choice_page_use_readable_text(qtbot: QtBot, themed: CaptureWindow) -> None:
    palette = themed.palette()
    background = palette.color(R.Window)
    for label in themed.findChildren(QLabel):
        if label.isVisible() and not isinstance(label, Badge) and label.text():
            colour = label.palette().color(label.foregroundRole())
            assert contrast_ratio(colour, background) >= READABLE_CONTRAST, label.text()


def _flatten(colour: QColor, background: QColor) -> QColor:
    alpha = colour.alphaF()
    return QColor.fromRgbF(
        colour.redF() * alpha + background.redF() * (1 - alpha),
        colour.greenF() * alpha + background.greenF() * (1 - alpha),
        colour.blueF() * alpha + background.blueF() * (1 - alpha),
    )


def _indicator_background(radio: QWidget) -> QColor:
    card = radio.parentWidget()
    assert card is not None
    image = card.grab().toImage()
    corner = radio.mapTo(card, QPoint(1, 1))
    return image.pixelColor(corner)
