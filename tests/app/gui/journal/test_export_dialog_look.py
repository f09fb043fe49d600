"""The export dialog as a person sees it: its choices stand out in the dark, its text is never
clipped whichever format is chosen, and "Show in folder" says so when nothing can show it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication, QLabel, QMessageBox, QPushButton
from pytestqt.qtbot import QtBot

from app.gui.journal.export_dialog import ExportDialog
from app.gui.widgets.indicators import indicator_colours
from app.gui.widgets.palette import MARK_CONTRAST, contrast_ratio, over
from app.gui.widgets.show_folder import COPY_TEXT
from tests.app.support.capture_support import has_colour_near, indicator_image, max_contrast
from tests.app.support.journal_support import (
    UrlSpy,
    make_journal,
    open_window,
    press,
    record,
    shut_down,
)

pytestmark = [pytest.mark.qt_log_level_fail("WARNING")]
R = QPalette.ColorRole


@pytest.fixture(params=["light", "dark"])
def dialog(qtbot: QtBot, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[ExportDialog]:
    scheme = Qt.ColorScheme.Dark if request.param == "dark" else Qt.ColorScheme.Light
    journal = make_journal(tmp_path / "journal", [record(1), record(2)])
    window = open_window(
        qtbot, journal, tmp_path / "settings.ini", color_scheme=scheme, open_url=UrlSpy(opens=False)
    )
    dialog = ExportDialog(
        window.bridge, window.scope_filter(), 2, window, open_url=window.open_url,
        directory=tmp_path / "out",
    )  # fmt: skip
    dialog.show()
    qtbot.waitExposed(dialog)
    yield dialog
    dialog.close()
    dialog.deleteLater()
    shut_down(qtbot, window)


def test_format_choices_stand_out_and_the_chosen_one_is_marked(
    qtbot: QtBot, dialog: ExportDialog
) -> None:
    palette = dialog.palette()
    window_colour = palette.color(R.Window)
    ring, _fill = indicator_colours(palette, checked=False, enabled=True)
    assert contrast_ratio(over(ring, window_colour), window_colour) >= MARK_CONTRAST
    unchecked = dialog.format_buttons["csv"]
    assert max_contrast(indicator_image(unchecked), window_colour) >= MARK_CONTRAST
    chosen = dialog.format_buttons["json"]
    assert chosen.isChecked()
    assert has_colour_near(indicator_image(chosen), palette.color(R.Highlight))
    for box in (dialog.include_deleted, dialog.acknowledge):
        assert box.style() is chosen.style()  # the same clear indicators on the check boxes


def _clipped(label: QLabel) -> bool:
    return label.isVisible() and label.heightForWidth(label.width()) > label.height()


def test_choosing_the_private_export_grows_the_dialog_so_nothing_is_clipped(
    qtbot: QtBot, dialog: ExportDialog
) -> None:
    before = dialog.height()
    labels = [label for label in dialog.findChildren(QLabel) if label.wordWrap()]
    assert not [label.text()[:40] for label in labels if _clipped(label)]
    dialog.choose("json-private")
    qtbot.waitUntil(dialog.warning.isVisible)
    qtbot.waitUntil(lambda: dialog.height() > before)
    qtbot.wait(50)
    assert not [label.text()[:40] for label in labels if _clipped(label)]
    free = QGuiApplication.primaryScreen().availableGeometry()
    assert dialog.height() <= free.height()
    dialog.choose("csv")
    qtbot.waitUntil(lambda: not dialog.warning.isVisible())
    qtbot.waitUntil(lambda: dialog.height() == before)


def test_show_in_folder_without_a_file_manager_says_so_and_copies_the_path(
    qtbot: QtBot, dialog: ExportDialog, tmp_path: Path
) -> None:
    with qtbot.waitSignal(dialog.export_finished, timeout=10_000):
        dialog.export_button.click()
    assert dialog.outcome is not None and dialog.outcome.ok
    box = dialog.not_opened
    assert isinstance(box, QMessageBox)
    qtbot.waitUntil(box.isVisible)
    assert str(tmp_path / "out") in box.text()
    copy = next(b for b in box.findChildren(QPushButton) if b.text() == COPY_TEXT)
    copy.click()
    qtbot.waitUntil(lambda: not box.isVisible())
    assert QApplication.clipboard().text() == str(tmp_path / "out")


def test_a_private_export_by_keyboard_alone(qtbot: QtBot, dialog: ExportDialog) -> None:
    """Tab to the formats, an arrow to the private one (the dialog grows), Tab to the
    acknowledgement, Space, Alt+E exports; Enter in the no-file-manager box copies the path."""
    dialog.activateWindow()
    qtbot.waitUntil(dialog.isActiveWindow)
    dialog.include_deleted.setFocus()
    before = dialog.height()
    press(dialog, Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is dialog.format_buttons["json"]
    press(dialog, Qt.Key.Key_Down)
    assert dialog.format_buttons["json-private"].isChecked()
    qtbot.waitUntil(lambda: dialog.height() > before)
    assert not dialog.export_button.isEnabled()
    press(dialog, Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is dialog.acknowledge
    press(dialog, Qt.Key.Key_Space)
    assert dialog.export_button.isEnabled()
    with qtbot.waitSignal(dialog.export_finished, timeout=10_000):
        press(dialog, Qt.Key.Key_E, Qt.KeyboardModifier.AltModifier)
    box = dialog.not_opened
    assert isinstance(box, QMessageBox)
    qtbot.waitUntil(box.isActiveWindow)
    press(box, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not box.isVisible())
    assert dialog.outcome is not None and dialog.outcome.path is not None
    assert QApplication.clipboard().text() == str(dialog.outcome.path.parent)
