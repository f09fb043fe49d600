"""What the journal window keeps between runs, in QSettings.

Why apart from the window: which state is the user's (geometry, the summary language) and
which is one journal's (filters, search text, scope, order, the splitters and the profile's
columns, keyed by the journal's path, so two journals never share a filter) is a rule of its
own, and benchmarks and demos write a window's filters without building one.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from PySide6.QtCore import QByteArray, QLocale, QSettings
from PySide6.QtWidgets import QMainWindow, QSplitter

from app.gui.journal.profile_panel import ProfilePanel
from app.gui.journal.requests import FilterState
from app.gui.widgets.screen_fit import fit_to_screen
from core.messages.language import locale_language

ORGANIZATION = "decision-journal"
APPLICATION = "Decision Journal"
SUMMARY_SETTING = "journal/summary_first"
GEOMETRY_SETTING = "journal/geometry"
FIT_SHARE = 0.94
"""At most this share of the screen's free area for a window opened the first time."""
SPLITTER_SIZES = [440, 700]
"""The list and the inspector, the first time."""


def journal_settings() -> QSettings:
    return QSettings(ORGANIZATION, APPLICATION)


def journal_settings_group(root: Path) -> str:
    """The settings group of one journal: its resolved path, hashed (paths hold slashes)."""
    digest = hashlib.sha256(str(root.resolve()).encode("utf-8")).hexdigest()[:16]
    return f"journals/{digest}"


def remember_filters(settings: QSettings, root: Path, state: FilterState) -> None:
    """Stores the filters a window of the journal at `root` opens with (benchmarks, demos)."""
    settings.setValue(f"{journal_settings_group(root)}/filters", state.to_settings())


class WindowSettings:
    """One window's kept state.

    Args:
        settings: where it is kept (the user's QSettings, or a test's file).
        root: the journal the window shows.
    """

    def __init__(self, settings: QSettings, root: Path) -> None:
        self.settings = settings
        self.root = root
        self._group = journal_settings_group(root)

    def _key(self, name: str) -> str:
        return f"{self._group}/{name}"

    def _bytes(self, key: str) -> QByteArray | None:
        value = self.settings.value(key)
        return value if isinstance(value, QByteArray) else None

    def restore_layout(self, window: QMainWindow, splitter: QSplitter, panel: ProfilePanel) -> None:
        """Geometry (fitted to the screen the first time), the splitters and the columns."""
        geometry = self._bytes(GEOMETRY_SETTING)
        if geometry is None or not window.restoreGeometry(geometry):
            fit_to_screen(window, window.size(), share=FIT_SHARE)
        state = self._bytes(self._key("splitter"))
        if state is None or not splitter.restoreState(state):
            splitter.setSizes(SPLITTER_SIZES)
        profile_splitter = self._bytes(self._key("profile_splitter"))
        if profile_splitter is not None:
            panel.splitter.restoreState(profile_splitter)
        columns = self._bytes(self._key("rule_columns"))
        if columns is not None:
            panel.restore_columns(columns)

    def filters(self) -> FilterState:
        return FilterState.from_settings(self.settings.value(self._key("filters")))

    def summary_language(self) -> str:
        """The reader's choice in the View menu; until then the summaries follow the locale."""
        return str(self.settings.value(SUMMARY_SETTING) or locale_language(QLocale().name()))

    def save_summary_language(self, language: str) -> None:
        self.settings.setValue(SUMMARY_SETTING, language)

    def save(
        self,
        window: QMainWindow,
        splitter: QSplitter,
        panel: ProfilePanel,
        state: FilterState,
        language: str,
    ) -> None:
        """Everything `restore_layout`, `filters` and `summary_language` read, written now."""
        self.settings.setValue(GEOMETRY_SETTING, window.saveGeometry())
        self.settings.setValue(self._key("path"), str(self.root))
        self.settings.setValue(self._key("splitter"), splitter.saveState())
        self.settings.setValue(self._key("profile_splitter"), panel.splitter.saveState())
        self.settings.setValue(
            self._key("rule_columns"), panel.table.horizontalHeader().saveState()
        )
        self.settings.setValue(self._key("filters"), state.to_settings())
        self.save_summary_language(language)
        self.settings.sync()
