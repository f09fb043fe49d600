"""What the capture window tells about the fork besides its options: the agent's context, and
that keys are ignored for a moment after the window appears."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QLabel
from pytestqt.qtbot import QtBot

from app.gui.capture.window import CaptureWindow
from app.gui.widgets.window_behaviour import KEY_GUARD_MS
from tests.app.support.capture_support import make_request

pytestmark = [pytest.mark.qt_log_ignore(r"This plugin does not support propagateSizeHints\(\)")]


def _texts(window: CaptureWindow) -> list[str]:
    return [label.text() for label in window.findChildren(QLabel)]


def test_languages_are_shown_beside_the_domains(qtbot: QtBot) -> None:
    window = CaptureWindow(make_request(languages=["python", "sql"]))
    qtbot.addWidget(window)
    texts = _texts(window)
    assert texts.index("Languages:") == texts.index("Domains:") + 2
    assert "python, sql" in texts
    window = CaptureWindow(make_request(languages=[]))
    qtbot.addWidget(window)
    texts = _texts(window)
    assert texts[texts.index("Languages:") + 1] == "—"


@pytest.mark.parametrize("stage", ["choice", "rationale"])
def test_both_pages_say_keys_wait_for_the_guard(qtbot: QtBot, stage: str) -> None:
    preset = {"selected_option_id": "per-repository"} if stage == "rationale" else {}
    window = CaptureWindow(make_request(stage=stage, **preset))
    qtbot.addWidget(window)
    hints = [label for label in window.findChildren(QLabel, "keyboard-hint")]
    assert len(hints) == 2
    for hint in hints:
        assert f"Keys are ignored for {KEY_GUARD_MS / 1000:g} s after the window appears" in (
            hint.text()
        )
        assert hint.accessibleDescription() == hint.text()
