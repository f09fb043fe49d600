"""The journal window's actions, their shortcuts and its menu bar (Journal, Decision, View).

Why apart from the window: which command has which shortcut, where it sits in which menu and
when it is enabled is a layout of its own; the window only says what each action does. Delete
is bound to the list and the inspector, so the key deletes no decision while typing in search.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Qt, Slot
from PySide6.QtGui import QAction, QActionGroup, QIcon, QKeySequence
from PySide6.QtWidgets import QMainWindow, QSplitter

from app.gui.journal.bridge import JournalBridge
from app.gui.journal.decision_details import SUMMARY_ENGLISH, SUMMARY_KOREAN, DecisionDetails
from app.gui.journal.decision_dialogs import DecisionDialogs
from app.gui.journal.filter_bar import FilterBar
from app.gui.journal.import_actions import ImportActions
from app.gui.journal.window_settings import WindowSettings
from app.gui.widgets.icons import icon
from core.record.models import DecisionRecord


class WindowMenus(QObject):
    """Builds the window's actions, then (`install`) its menus; `update` enables the actions
    for the decision shown.

    Args:
        window: the window the actions and the menu bar belong to.
        dialogs: what Edit, History, Soft-delete, Restore and Export open.
        bridge: what Rebuild profile asks.
        filter_bar: what Find focuses.
        splitter: the list and the inspector, where Delete applies.
        refresh_now: what F5 does.
        details: the inspector's details, whose summary language the View menu sets.
        kept: where that choice is kept.
    """

    def __init__(
        self,
        window: QMainWindow,
        *,
        dialogs: DecisionDialogs,
        bridge: JournalBridge,
        filter_bar: FilterBar,
        splitter: QSplitter,
        refresh_now: Callable[[], None],
        details: DecisionDetails,
        kept: WindowSettings,
    ) -> None:
        super().__init__(window)
        self._window = window
        self._imports: ImportActions | None = None
        self._details = details
        self._kept = kept
        self.find_action = self._action("&Find", "Ctrl+F", filter_bar.focus_search)
        self.edit_action = self._action("&Edit…", "Ctrl+E", dialogs.edit_current, "edit")
        self.history_action = self._action("&History…", "Ctrl+H", dialogs.show_history, "history")
        self.delete_action = self._action("Soft-&delete…", "Del", dialogs.delete_current, "delete")
        self.delete_action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        splitter.addAction(self.delete_action)  # the list and the inspector, not search
        window.removeAction(self.delete_action)
        self.restore_action = self._action(
            "&Restore…", "Ctrl+R", dialogs.restore_current, "restore"
        )
        self.export_action = self._action("E&xport…", "Ctrl+Shift+E", dialogs.open_export, "export")
        self.rebuild_action = self._action(
            "Re&build profile", "", bridge.request_rebuild, "rebuild"
        )
        self.refresh_action = self._action("Re&fresh", "F5", refresh_now)
        self.close_action = self._action("&Close", "Ctrl+W", window.close)

    def install(self, imports: ImportActions) -> None:
        """Puts the actions in the menu bar, with Import and the confirm actions beside Export,
        and enables them for no decision shown."""
        self._imports = imports
        menu_bar = self._window.menuBar()
        journal_menu = menu_bar.addMenu("&Journal")
        journal_menu.addAction(self.export_action)
        after_transfers = journal_menu.addSeparator()
        for action in (self.rebuild_action, self.refresh_action):
            journal_menu.addAction(action)
        journal_menu.addSeparator()
        journal_menu.addAction(self.close_action)  # Close comes last, as in every desktop menu
        decision_menu = menu_bar.addMenu("&Decision")
        for action in (
            self.find_action,
            self.edit_action,
            self.history_action,
            self.delete_action,
            self.restore_action,
        ):
            decision_menu.addAction(action)
        imports.install(journal_menu, decision_menu, before=after_transfers)
        self._summary_menu()
        self.update(None)

    def _action(
        self, text: str, shortcut: str, slot: Callable[[], object], name: str = ""
    ) -> QAction:
        action = QAction(icon(name) if name else QIcon(), text, self._window)
        if shortcut:
            action.setShortcut(QKeySequence(shortcut))
        action.triggered.connect(slot)
        self._window.addAction(action)
        return action

    def _summary_menu(self) -> None:
        """View → Summary shown first: English (rendered) or the stored Korean sentence."""
        menu = self._window.menuBar().addMenu("&View").addMenu("&Summary shown first")
        group = QActionGroup(self._window)
        self.summary_actions: dict[str, QAction] = {}
        for language, text in (
            (SUMMARY_ENGLISH, "&English (rendered for reading)"),
            (SUMMARY_KOREAN, "&Korean (the stored sentence)"),
        ):
            action = QAction(text, self._window)
            action.setCheckable(True)
            action.setData(language)
            group.addAction(action)
            menu.addAction(action)
            self.summary_actions[language] = action
        group.triggered.connect(self._summary_chosen)

    def update(self, record: DecisionRecord | None) -> None:
        """Enables what applies to the decision on screen (none without one)."""
        has = record is not None
        self.edit_action.setEnabled(has)
        self.history_action.setEnabled(has)
        self.delete_action.setEnabled(has and not record.is_deleted if record else False)
        self.restore_action.setEnabled(bool(record and record.is_deleted))
        if self._imports is not None:
            self._imports.update(record)

    @Slot(QAction)
    def _summary_chosen(self, action: QAction) -> None:
        self.apply_summary_first(str(action.data()))
        self._kept.save_summary_language(self._details.summary_first)

    def apply_summary_first(self, language: str) -> None:
        """Shows summaries in `language` first and checks its entry in the View menu."""
        self._details.set_summary_first(language)
        self.summary_actions[self._details.summary_first].setChecked(True)
