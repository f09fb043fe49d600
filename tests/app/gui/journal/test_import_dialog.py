"""The Import dialog's size: it asks the shared screen rule, so it never leaves the screen."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QRect
from pytestqt.qtbot import QtBot

from app.gui.journal.import_dialog import ImportDialog
from app.gui.journal.window import JournalWindow
from app.gui.widgets import screen_fit
from app.gui.widgets.screen_fit import TITLE_BAR_ALLOWANCE
from core.importers.base import ImportReport
from tests.app.support.journal_support import make_journal, open_window, record, shut_down

MADR = Path(__file__).resolve().parents[3] / "data" / "importers" / "madr" / "docs"
NETBOOK = QRect(0, 27, 1024, 573)
"""A 1024 by 600 screen under a 27-pixel panel."""


@pytest.fixture
def window(qtbot: QtBot, tmp_path: Path) -> Iterator[JournalWindow]:
    window = open_window(qtbot, make_journal(tmp_path / "journal", [record(1)]), tmp_path / "s")
    yield window
    shut_down(qtbot, window)


def _fits(dialog: ImportDialog) -> None:
    assert dialog.height() <= NETBOOK.height() - TITLE_BAR_ALLOWANCE
    assert dialog.width() <= NETBOOK.width()
    frame = dialog.frameGeometry()
    assert NETBOOK.top() <= frame.top()
    assert frame.top() + dialog.height() + TITLE_BAR_ALLOWANCE // 2 <= NETBOOK.bottom() + 1
    close = dialog.buttons
    assert dialog.rect().contains(close.mapTo(dialog, close.rect().bottomRight()))


def test_the_dialog_and_its_report_stay_inside_a_small_screen(
    qtbot: QtBot, window: JournalWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(screen_fit, "free_area", lambda _window: NETBOOK)
    window.imports.open_import()
    dialog = window.imports.dialog
    assert dialog is not None
    qtbot.waitExposed(dialog)
    _fits(dialog)
    assert not dialog.report_view.isVisible()
    dialog.move(0, 300)  # low on the screen: the report that grows it must not push it off
    dialog.set_source(str(MADR))
    with qtbot.waitSignal(dialog.import_finished, timeout=20_000) as blocker:
        dialog.start_button.click()
    assert isinstance(blocker.args[0], ImportReport)
    assert dialog.report_view.isVisible()
    _fits(dialog)
    dialog.close()
