"""Showing a folder in the desktop's file manager, and saying so when there is none to show it.

Why: `QDesktopServices.openUrl` answers False when no file manager (or `xdg-open`) can open the
folder, on a minimal desktop or a server with X forwarding, and the click then did nothing at
all. The person is told which folder it was and offered its path on the clipboard, so they can
open it in a terminal or another program.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QUrl
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QMessageBox, QWidget

NOT_OPENED_TITLE = "No file manager"
COPY_TEXT = "&Copy path"


def show_folder(
    folder: Path, opener: Callable[[QUrl], object], parent: QWidget
) -> QMessageBox | None:
    """Opens `folder`; when nothing could, shows (without blocking) a box that names it and
    offers to copy its path. Returns that box, or None when the folder opened."""
    if opener(QUrl.fromLocalFile(str(folder))) is not False:
        return None
    box = QMessageBox(parent)
    box.setObjectName("folder-not-opened")
    box.setIcon(QMessageBox.Icon.Information)
    box.setWindowTitle(NOT_OPENED_TITLE)
    box.setText(f"No file manager could open {folder}.")
    box.setInformativeText("Copy its path to open it in a terminal or another program.")
    copy = box.addButton(COPY_TEXT, QMessageBox.ButtonRole.ActionRole)
    copy.setObjectName("copy-path")
    box.addButton(QMessageBox.StandardButton.Close)
    box.setDefaultButton(copy)

    def clicked(button: object) -> None:
        if button is copy:
            clipboard = QGuiApplication.clipboard()
            if clipboard is not None:
                clipboard.setText(str(folder))

    box.buttonClicked.connect(clicked)
    box.finished.connect(box.deleteLater)
    box.open()
    return box
