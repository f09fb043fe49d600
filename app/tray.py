"""The tray icon and its menu: waiting decisions, sync, the journal, the profile, autostart, quit.

Why it is careful about notifications: a balloon that covers the window the person is reading
is worse than none. The tray tells only when no window of ours is in use, through the desktop's
notification service where one runs (`desktop_notifications`), else through the balloon. The
icon shows how many decisions wait, and its tooltip names the journal when it is not the
default one, so two apps on two journals can be told apart. For a journal that syncs, the menu
and the tooltip also say sync's state; a conflict or an error in the menu opens what resolves it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from PySide6.QtCore import QObject, Signal, Slot
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QApplication, QMenu, QSystemTrayIcon

from app.desktop_notifications import DesktopNotifier
from app.gui.widgets.icons import tray_icon
from app.gui.widgets.indicators import use_clear_indicators
from core.messages import wording
from core.sync.indicator import CONFLICT, ERROR, REFUSED, SyncView, explanation, headline

MENU_LABEL_WIDTH = 60
APP_TITLE = "Decision Journal"
BALLOON_MS = 8000


class Notified(Enum):
    """What `TrayController.notify` did."""

    DESKTOP = "desktop"
    ACTIONS = "actions"
    """Through the notification service, with buttons ("Overrule", "Open")."""
    BALLOON = "balloon"
    SKIPPED = "skipped"


@dataclass(frozen=True, slots=True)
class WaitingItem:
    decision_id: str
    problem: str
    project_alias: str
    stage: str


AUTOMATIC_SHOWN = 5
"""Automatic answers of this session the menu offers to overrule, newest first."""
OVERRULE_ACTION = "overrule"
OPEN_ACTION = "default"
"""The spec's key for the notification's own click (its body), here "Open"."""
AUTOMATIC_ACTIONS = (OVERRULE_ACTION, "Overrule", OPEN_ACTION, "Open")
AUTOMATIC_TITLE = "Answered from your usual choice"


def ellipsize_menu(text: str, width: int = 40) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def tray_tooltip(count: int, journal_name: str = "", sync_line: str = "") -> str:
    """ "Decision Journal", with the journal's name when it is not the default, and the count;
    sync's state on a second line when the journal syncs."""
    title = f"{APP_TITLE} — {journal_name}" if journal_name else APP_TITLE
    first = f"{title}: {wording.count(count, 'decision')} waiting" if count else title
    return f"{first}\n{sync_line}" if sync_line else first


def _menu_label(item: WaitingItem) -> str:
    problem = " ".join(item.problem.split())
    if len(problem) > MENU_LABEL_WIDTH:
        problem = problem[: MENU_LABEL_WIDTH - 1] + "…"
    project = f"{item.project_alias}: " if item.project_alias else ""
    return f"{project}{problem}".replace("&", "&&")


class TrayController(QObject):
    """Owns the QSystemTrayIcon; everything it can do is a QAction, so tests drive the actions.

    Signals:
        decision_requested(str): the user picked a waiting decision.
        journal_requested(): "Open journal…".
        rebuild_requested(): "Rebuild profile".
        autostart_toggled(bool): "Start at login" changed.
        transcript_watch_toggled(bool): "Import Claude Code answers" changed.
        quit_requested(): "Quit".
        sync_requested(): "Sync now".
        conflicts_requested(str): the sync conflict line: show this (the first) decision.
        sync_help_requested(str): the sync error line: show this runbook entry.
        overrule_requested(str): "Overrule" on an automatic answer (its menu item, its
            notification's button, or a click on its balloon): correct this decision.
        automatic_opened(str): "Open" on an automatic answer's notification: show it.
    """

    decision_requested = Signal(str)
    sync_requested = Signal()
    conflicts_requested = Signal(str)
    sync_help_requested = Signal(str)
    journal_requested = Signal()
    rebuild_requested = Signal()
    autostart_toggled = Signal(bool)
    transcript_watch_toggled = Signal(bool)
    usual_choice_toggled = Signal(bool)
    overrule_requested = Signal(str)
    automatic_opened = Signal(str)
    quit_requested = Signal()

    def __init__(
        self,
        *,
        autostart_enabled: bool,
        transcript_watch_enabled: bool = False,
        usual_choice_enabled: bool = True,
        journal_name: str = "",
        notifier: DesktopNotifier | None = None,
        parent: QObject | None = None,
    ) -> None:
        """
        Args:
            autostart_enabled: whether "Start at login" starts checked.
            transcript_watch_enabled: whether "Import Claude Code answers" starts checked.
            usual_choice_enabled: whether "Show my usual choice" starts checked.
            journal_name: how the tooltip names a journal that is not the default; "" for
                the default journal.
            notifier: the desktop notification sender (default: one of our own).
            parent: the owning QObject.
        """
        super().__init__(parent)
        self._waiting: list[WaitingItem] = []
        self._journal_name = journal_name
        self._sync = SyncView()
        self.notifier = notifier if notifier is not None else DesktopNotifier(self)
        self.menu = QMenu()
        use_clear_indicators(self.menu)
        self.icon = QSystemTrayIcon(tray_icon(0), self)
        self.icon.setToolTip(tray_tooltip(0, journal_name))
        self.waiting_header = QAction("No decisions waiting", self)
        self.waiting_header.setEnabled(False)
        self.open_journal_action = QAction("Open journal…", self)
        self.rebuild_action = QAction("Rebuild profile", self)
        self.autostart_action = QAction("Start at login", self)
        self.autostart_action.setCheckable(True)
        self.autostart_action.setChecked(autostart_enabled)
        self.transcript_watch_action = QAction("Import Claude Code answers", self)
        self.transcript_watch_action.setCheckable(True)
        self.transcript_watch_action.setChecked(transcript_watch_enabled)
        self.transcript_watch_action.setToolTip(
            "Keep importing answered AskUserQuestion prompts from ~/.claude/projects"
        )
        self.usual_choice_action = QAction("Show my usual choice", self)
        self.usual_choice_action.setCheckable(True)
        self.usual_choice_action.setChecked(usual_choice_enabled)
        self.usual_choice_action.setToolTip(
            "A line in the decision window saying what you chose in similar decisions"
        )
        self.usual_choice_action.toggled.connect(self.usual_choice_toggled)
        self.automatic: list[tuple[str, str]] = []
        """(decision id, chosen label) the profile answered this session, newest first."""
        self.quit_action = QAction("Quit", self)
        self.sync_state_action = QAction("", self)
        self.sync_now_action = QAction("Sync now", self)
        self.waiting_actions: list[QAction] = []
        self.open_journal_action.triggered.connect(self.journal_requested)
        self.rebuild_action.triggered.connect(self.rebuild_requested)
        self.autostart_action.toggled.connect(self.autostart_toggled)
        self.transcript_watch_action.toggled.connect(self.transcript_watch_toggled)
        self.quit_action.triggered.connect(self.quit_requested)
        self.sync_state_action.triggered.connect(self._sync_state_clicked)
        self.sync_now_action.triggered.connect(self.sync_requested)
        self.icon.activated.connect(self._on_activated)
        self.icon.messageClicked.connect(self._balloon_clicked)
        self._balloon_decision = ""
        """The automatic answer the last balloon told of ("" for any other balloon)."""
        self.notifier.action_invoked.connect(self._notification_action)
        self.notifier.probe()  # whether notifications can carry buttons, asked in the background
        self._rebuild_menu()
        self.icon.setContextMenu(self.menu)

    def show(self) -> None:
        self.icon.show()

    def hide(self) -> None:
        self.icon.hide()

    @property
    def waiting(self) -> list[WaitingItem]:
        return list(self._waiting)

    def set_waiting(self, items: list[WaitingItem]) -> None:
        changed = len(items) != len(self._waiting)
        self._waiting = list(items)
        count = len(items)
        if changed:
            self.icon.setIcon(tray_icon(count))
        self._show_tooltip()
        self._rebuild_menu()

    @property
    def sync_view(self) -> SyncView:
        return self._sync

    @Slot(object)
    def set_sync_view(self, view: SyncView) -> None:
        """Shows sync's state; nothing about sync while the journal does not sync."""
        self._sync = view
        clickable = view.state in (CONFLICT, ERROR, REFUSED)
        text = headline(view)
        self.sync_state_action.setText(f"{text}…" if clickable else text)
        self.sync_state_action.setToolTip(explanation(view))
        self.sync_state_action.setEnabled(clickable)
        self._show_tooltip()
        self._rebuild_menu()

    def _show_tooltip(self) -> None:
        sync_line = headline(self._sync)
        self.icon.setToolTip(tray_tooltip(len(self._waiting), self._journal_name, sync_line))

    @Slot()
    def _sync_state_clicked(self) -> None:
        if self._sync.state == CONFLICT and self._sync.conflicts:
            self.conflicts_requested.emit(self._sync.conflicts[0])
        elif self._sync.state in (ERROR, REFUSED):
            self.sync_help_requested.emit(self._sync.entry)

    def answered_for_you(self, decision_id: str, label: str) -> Notified:
        """The profile answered an agent: listed in the menu with "Overrule", and told, with
        an "Overrule" button where the notification service shows buttons."""
        self.automatic = [(decision_id, label), *self.automatic][:AUTOMATIC_SHOWN]
        self._rebuild_menu()
        if QApplication.activeWindow() is None and self.notifier.notify_actions(
            self._titled(AUTOMATIC_TITLE),
            f"{label}. Overrule it if you would have chosen otherwise.",
            decision_id,
            AUTOMATIC_ACTIONS,
        ):
            return Notified.ACTIONS
        told = self.notify(
            AUTOMATIC_TITLE,
            f"{label}. To overrule it, pick “Overrule” in the Decision Journal tray menu.",
        )
        if told is Notified.BALLOON:
            self._balloon_decision = decision_id  # a click on the balloon overrules it
        return told

    def _titled(self, title: str) -> str:
        return f"{title} ({self._journal_name})" if self._journal_name else title

    def notify(self, title: str, message: str) -> Notified:
        """Tell the person something, unless they are looking at one of our windows.

        Returns:
            How it was told: through the desktop's notification service, the tray balloon,
            or not at all (a window of ours is active, or neither way is available).
        """
        if QApplication.activeWindow() is not None:
            return Notified.SKIPPED
        title = self._titled(title)
        if self.notifier.notify(title, message):
            return Notified.DESKTOP
        if QSystemTrayIcon.supportsMessages() and self.icon.isVisible():
            self._balloon_decision = ""
            self.icon.showMessage(
                title, message, QSystemTrayIcon.MessageIcon.Information, BALLOON_MS
            )
            return Notified.BALLOON
        return Notified.SKIPPED

    @Slot(str, str)
    def _notification_action(self, decision_id: str, action: str) -> None:
        if action == OVERRULE_ACTION:
            self.overrule_requested.emit(decision_id)
        elif action == OPEN_ACTION:
            self.automatic_opened.emit(decision_id)

    @Slot()
    def _balloon_clicked(self) -> None:
        if self._balloon_decision:
            self.overrule_requested.emit(self._balloon_decision)

    def _rebuild_menu(self) -> None:
        self.menu.clear()
        for action in self.waiting_actions:
            action.deleteLater()
        self.waiting_actions = []
        count = len(self._waiting)
        self.waiting_header.setText(
            "No decisions waiting" if not count else f"Waiting for you ({count})"
        )
        self.menu.addAction(self.waiting_header)
        for item in self._waiting:
            action = QAction(_menu_label(item), self)
            action.setToolTip(item.problem)
            action.triggered.connect(
                lambda _checked=False, decision_id=item.decision_id: self.decision_requested.emit(
                    decision_id
                )
            )
            self.waiting_actions.append(action)
            self.menu.addAction(action)
        self.menu.addSeparator()
        for decision_id, label in self.automatic:
            action = QAction(f"Overrule “{ellipsize_menu(label)}” (answered for you)…", self)
            action.triggered.connect(
                lambda _checked=False, wanted=decision_id: self.overrule_requested.emit(wanted)
            )
            self.waiting_actions.append(action)
            self.menu.addAction(action)
        if self.automatic:
            self.menu.addSeparator()
        if self._sync.configured:
            self.menu.addAction(self.sync_state_action)
            self.menu.addAction(self.sync_now_action)
            self.menu.addSeparator()
        for action in (
            self.open_journal_action,
            self.rebuild_action,
            self.transcript_watch_action,
            self.usual_choice_action,
            self.autostart_action,
        ):
            self.menu.addAction(action)
        self.menu.addSeparator()
        self.menu.addAction(self.quit_action)

    @Slot(QSystemTrayIcon.ActivationReason)
    def _on_activated(self, reason: QSystemTrayIcon.ActivationReason) -> None:
        if reason not in (
            QSystemTrayIcon.ActivationReason.Trigger,
            QSystemTrayIcon.ActivationReason.DoubleClick,
        ):
            return
        if self._waiting:
            self.decision_requested.emit(self._waiting[0].decision_id)
        else:
            self.journal_requested.emit()
