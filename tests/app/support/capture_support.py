"""A capture request to open windows with, the window opened and read as a person would, and
pixel probes for their palettes.

Shared by the capture window's tests, its usual-choice and palette tests and the Xvfb palette
probe.
"""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import QRect
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QLabel, QRadioButton, QStyle, QWidget
from pytestqt.qtbot import QtBot

from app.gui.capture.request import CaptureRequest
from app.gui.capture.window import CaptureWindow
from app.gui.widgets.palette import contrast_ratio
from core.record.models import ProposalOption

PROBLEM = (
    "Implementation decisions are scattered across repositories: where should the journal "
    "store decision records?"
)
OPTIONS = [
    ProposalOption(
        id="per-repository",
        label="Per-repository records",
        description="Keep project decisions beside project source",
        pros=["Travels with the code"],
        cons=["Fragments preference evidence"],
    ),
    ProposalOption(
        id="global-journal",
        label="Per-user global journal",
        description="Aggregate records outside repositories",
        pros=["One dashboard"],
        cons=["Path identity breaks on move"],
        recommended=True,
    ),
    ProposalOption(id="sqlite", label="Single SQLite database", description="One file, WAL mode"),
    ProposalOption(id="git-notes", label="Git notes", description="Attach records to commits"),
]


def make_request(**changes: object) -> CaptureRequest:
    request = CaptureRequest(
        decision_id="decision-44c0f9b71bf8194908f3a91c41e937ee",
        problem=PROBLEM,
        options=OPTIONS,
        decision_kind="persistence-layout",
        risk_level="medium",
        domains=["storage", "dashboard"],
        languages=["python", "sql"],
        detector_confidence=0.91,
        project_alias="decision-journal",
        session_id="session-7f3a",
        agent="Claude Code",
        header="Where do decision records live?",
        stage="choice",
    )
    return replace(request, **changes)  # type: ignore[arg-type]


def indicator_image(radio: QRadioButton) -> QImage:
    """Only the indicator (not the key beside it): the style puts it at the left, centred."""
    style = radio.style()
    width = style.pixelMetric(QStyle.PixelMetric.PM_ExclusiveIndicatorWidth, None, radio)
    height = style.pixelMetric(QStyle.PixelMetric.PM_ExclusiveIndicatorHeight, None, radio)
    top = (radio.height() - height) // 2
    return radio.grab(QRect(0, top, width, height)).toImage()


def pixels(image: QImage) -> list[QColor]:
    return [image.pixelColor(x, y) for y in range(image.height()) for x in range(image.width())]


def max_contrast(image: QImage, background: QColor) -> float:
    return max(contrast_ratio(colour, background) for colour in pixels(image))


def has_colour_near(image: QImage, wanted: QColor, tolerance: int = 24) -> bool:
    """Whether any pixel is within `tolerance` (summed over red, green, blue) of `wanted`."""
    return any(
        abs(c.red() - wanted.red())
        + abs(c.green() - wanted.green())
        + abs(c.blue() - wanted.blue())
        <= tolerance
        for c in pixels(image)
    )


def open_window(qtbot: QtBot, request: CaptureRequest) -> CaptureWindow:
    window = CaptureWindow(request)
    qtbot.addWidget(window)
    activate(qtbot, window)
    return window


def activate(qtbot: QtBot, window: CaptureWindow) -> None:
    """Present the window and wait out its key guard, as a person reading it first would."""
    window.present()
    qtbot.waitExposed(window)
    qtbot.waitUntil(window.isActiveWindow)
    qtbot.waitUntil(lambda: not window.key_guard.is_quiet())


def radio(window: QWidget, name: str) -> QRadioButton:
    found = window.findChild(QRadioButton, name)
    assert found is not None, name
    return found


def radios(window: QWidget) -> list[QRadioButton]:
    return [radio(window, f"choice-{n}") for n in range(1, len(OPTIONS) + 1)] + [
        radio(window, "choice-other")
    ]


def message(window: QWidget) -> str:
    found = window.findChild(QLabel, "message")
    assert found is not None
    return found.text()
