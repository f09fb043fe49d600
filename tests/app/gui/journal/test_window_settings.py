"""What a journal window keeps: the user's geometry and language, each journal's own layout."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QMainWindow, QSplitter
from pytestqt.qtbot import QtBot

from app.gui.journal.profile_panel import ProfilePanel
from app.gui.journal.requests import SCOPE_ALL, SORT_OLDEST, FilterState
from app.gui.journal.window_settings import (
    SPLITTER_SIZES,
    WindowSettings,
    journal_settings_group,
    remember_filters,
)
from tests.app.support.journal_support import settings_at


def _parts(qtbot: QtBot) -> tuple[QMainWindow, QSplitter, ProfilePanel]:
    window = QMainWindow()
    qtbot.addWidget(window)
    splitter = QSplitter(Qt.Orientation.Horizontal, window)
    splitter.addWidget(QLabel("list"))
    splitter.addWidget(QLabel("inspector"))
    window.setCentralWidget(splitter)
    return window, splitter, ProfilePanel(window)


def test_filters_are_kept_per_journal(tmp_path: Path) -> None:
    settings = settings_at(tmp_path / "s.ini")
    first, second = tmp_path / "one", tmp_path / "two"
    first.mkdir()
    second.mkdir()
    assert journal_settings_group(first) != journal_settings_group(second)
    remember_filters(settings, first, FilterState(scope=SCOPE_ALL, sort=SORT_OLDEST))
    assert WindowSettings(settings, first).filters() == FilterState(
        scope=SCOPE_ALL, sort=SORT_OLDEST
    )
    assert WindowSettings(settings, second).filters() == FilterState()


def test_layout_and_language_come_back_as_saved(qtbot: QtBot, tmp_path: Path) -> None:
    root = tmp_path / "journal"
    root.mkdir()
    kept = WindowSettings(settings_at(tmp_path / "s.ini"), root)
    window, splitter, panel = _parts(qtbot)
    kept.restore_layout(window, splitter, panel)  # nothing kept yet: the first-time sizes
    assert splitter.sizes() != [] and len(SPLITTER_SIZES) == 2
    window.resize(700, 500)
    splitter.setSizes([300, 600])
    state = FilterState(query="cache")
    kept.save(window, splitter, panel, state, "ko")
    again = WindowSettings(settings_at(tmp_path / "s.ini"), root)
    window2, splitter2, panel2 = _parts(qtbot)
    again.restore_layout(window2, splitter2, panel2)
    assert window2.size() == window.size()
    assert again.filters() == state
    assert again.summary_language() == "ko"
    again.save_summary_language("en")
    assert WindowSettings(settings_at(tmp_path / "s.ini"), root).summary_language() == "en"
