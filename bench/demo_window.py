"""Opens the journal window on a demo journal in a chosen state, for screenshots.

Settings go to a temporary file so a screenshot run never touches the user's QSettings.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from PySide6.QtCore import QSettings, Qt, QTimer
from PySide6.QtWidgets import QApplication

from app.gui.journal.requests import SCOPE_ALL, FilterState
from app.gui.journal.window import JournalWindow
from app.gui.journal.window_settings import remember_filters
from app.gui.widgets.icons import app_icon
from core.journal import Journal

WIDTH, HEIGHT = 1240, 760


def open_demo(journal: Journal, *, dark: bool, view: str) -> int:
    app = QApplication.instance() or QApplication(sys.argv[:1])
    assert isinstance(app, QApplication)
    app.setApplicationName("Decision Journal")
    app.setWindowIcon(app_icon())
    if dark:
        app.setStyle("Fusion")
    settings_path = Path(tempfile.mkdtemp(prefix="dj-settings-")) / "journal.ini"
    settings = QSettings(str(settings_path), QSettings.Format.IniFormat)
    state = FilterState(scope=SCOPE_ALL, include_deleted=view == "deleted")
    remember_filters(settings, journal.root, state)
    scheme = Qt.ColorScheme.Dark if dark else Qt.ColorScheme.Light
    window = JournalWindow(journal, settings=settings, color_scheme=scheme, open_url=print)
    window.resize(WIDTH, HEIGHT)
    window.move(20, 30)
    window.present()
    QTimer.singleShot(900, lambda: _show_view(window, view))
    return app.exec()


def _select_problem(window: JournalWindow, needle: str) -> None:
    model = window.model
    for row in range(model.rowCount()):
        if needle in model.list_row(row).problem:
            window.list_view.setCurrentIndex(model.index(row))
            return


def _show_view(window: JournalWindow, view: str) -> None:
    if view == "journal":
        _select_problem(window, "settlement client")
    elif view == "deleted":
        _select_problem(window, "Expose journal search")
    elif view == "custom":
        _select_problem(window, "exchange rates")
    elif view == "profile":
        window.tabs.setCurrentIndex(1)
        window.profile_panel.table.selectRow(2)
    elif view == "waiting":
        window.tabs.setCurrentIndex(2)
    elif view == "history":
        _select_problem(window, "settlement client")
        QTimer.singleShot(400, window.dialogs.show_history)
    elif view == "edit":
        _select_problem(window, "exchange rates")
        QTimer.singleShot(400, window.dialogs.edit_current)
    elif view == "export":
        window.dialogs.open_export()
        dialog = window.dialogs.export
        if dialog is not None:
            dialog.choose("json-private")  # shows the private-export warning
