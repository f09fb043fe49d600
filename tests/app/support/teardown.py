"""Ending a test that ran the app or background syncs without leaving Qt objects behind."""

from __future__ import annotations

import gc

from PySide6.QtCore import QCoreApplication, QEvent
from pytestqt.qtbot import QtBot

from app.main_app import TrayApp
from tests.app.support.journal_support import shut_down


def settle(qtbot: QtBot) -> None:
    """Deletes what was handed to deleteLater and collects cycles here, in the GUI thread.

    Why: a collection that runs later, triggered in a worker thread (the next test's sync),
    would free the Qt objects it finds there, and Qt objects must die in their own thread.
    """
    qtbot.wait(10)
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    gc.collect()


def close_app(qtbot: QtBot, app: TrayApp) -> None:
    """What `TrayApp.quit` does, without quitting the test session's QApplication."""
    app.server.close()
    app.sync.stop()
    if app.journal_window is not None:
        shut_down(qtbot, app.journal_window)
    app.transcripts.stop()
    app.workers.wait_idle()
    app.profile_worker.stop()
    if app.tray is not None:
        app.tray.hide()
    app.deleteLater()
    settle(qtbot)
