"""Ending a test that ran background syncs without leaving Qt objects for another thread."""

from __future__ import annotations

import gc

from PySide6.QtCore import QCoreApplication, QEvent
from pytestqt.qtbot import QtBot


def settle(qtbot: QtBot) -> None:
    """Deletes what was handed to deleteLater and collects cycles here, in the GUI thread.

    Why: a collection that runs later, triggered in a worker thread (the next test's sync),
    would free the Qt objects it finds there, and Qt objects must die in their own thread.
    """
    qtbot.wait(10)
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    gc.collect()
