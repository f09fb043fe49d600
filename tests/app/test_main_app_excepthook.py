"""The crash report never shows or logs a credential the failing input held."""

from __future__ import annotations

import logging
import sys

import pytest
import shiboken6
from PySide6.QtWidgets import QApplication, QMessageBox
from pytestqt.qtbot import QtBot

from app import main_app

SECRET = "sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c"


def test_report_and_log_are_redacted(qtbot: QtBot, caplog: pytest.LogCaptureFixture) -> None:
    previous = sys.excepthook
    main_app._install_excepthook()
    try:
        error = ValueError(f"option 'x' is invalid: api_key={SECRET}")
        with caplog.at_level(logging.ERROR):
            sys.excepthook(ValueError, error, None)
        boxes = [w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox)]
        assert boxes, "no report window"
        box = boxes[-1]
        shown = box.text() + box.detailedText()
        assert SECRET not in shown and "[REDACTED:" in shown
        assert SECRET not in caplog.text and "[REDACTED:" in caplog.text
    finally:
        sys.excepthook = previous
        for widget in list(main_app._keep):
            if shiboken6.isValid(widget):  # an earlier test in this process may have closed one
                widget.close()
                widget.deleteLater()
        main_app._keep.clear()
