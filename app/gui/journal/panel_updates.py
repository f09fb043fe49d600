"""The Preference profile and Waiting tabs, and the profile's state in the status bar, kept up to
date from the bridge's answers; their requests (rebuild, a mode, an override, labels, notes) go
back to the bridge.

Why apart from the window: these tabs follow the bridge on their own; nothing in them depends
on which scope the list shows or which decision is on screen.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Slot
from PySide6.QtWidgets import QLabel, QTabWidget

from app.gui.journal.banner import Banner
from app.gui.journal.bridge import JournalBridge
from app.gui.journal.profile_panel import ProfilePanel
from app.gui.journal.requests import ModesView, ProfileView
from app.gui.journal.waiting_panel import WaitingPanel
from core.profile.model import STATE_CURRENT, ProfileStatus

PROFILE_STATES = {
    "current": "up to date",
    "stale": "out of date",
    "rebuilding": "rebuilding…",
    "error": "needs attention",
}
"""The profile's state in the status bar, in words."""
WAITING_TAB = 2
"""The Waiting tab's index: its title counts what waits."""


class PanelUpdates(QObject):
    """Connects the profile panel, the waiting panel and the status bar's profile label to
    the bridge.

    Args:
        bridge: the window's bridge.
        banner: shows a profile that needs rebuilding or failed to.
        profile_panel: the Preference profile tab.
        waiting_panel: the Waiting tab.
        tabs: the window's tabs (the Waiting tab's title counts what waits).
        profile_label: the status bar's profile state.
    """

    def __init__(
        self,
        bridge: JournalBridge,
        *,
        banner: Banner,
        profile_panel: ProfilePanel,
        waiting_panel: WaitingPanel,
        tabs: QTabWidget,
        profile_label: QLabel,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.bridge = bridge
        self.banner = banner
        self.profile_panel = profile_panel
        self.waiting_panel = waiting_panel
        self.tabs = tabs
        self.profile_label = profile_label
        self._profile_state: str | None = None

    def connect_answers(self) -> None:
        """What the bridge answers, to the panels."""
        b = self.bridge
        b.profile_loaded.connect(self._profile_loaded)
        b.modes_loaded.connect(self._modes_loaded)
        b.profile_conflicted.connect(self.profile_panel.show_conflict)
        b.profile_state_changed.connect(self.profile_state_changed)
        b.labels_loaded.connect(self.profile_panel.set_labels)
        b.pending_loaded.connect(self._pending_loaded)
        b.notes_loaded.connect(self._notes_loaded)

    def connect_requests(self) -> None:
        """What the panels ask, to the bridge."""
        b = self.bridge
        self.profile_panel.rebuild_requested.connect(b.request_rebuild)
        self.profile_panel.modes.mode_requested.connect(b.set_mode)
        self.profile_panel.override_requested.connect(b.save_override)
        self.profile_panel.labels_wanted.connect(b.load_labels)
        self.waiting_panel.notes_project_changed.connect(b.load_notes)

    @Slot(object)
    def _profile_loaded(self, view: ProfileView) -> None:
        if view.error:
            self.profile_panel.show_message(view.error)
        if view.profile.revision or not view.error:
            self.profile_panel.set_profile(view.profile)
        if view.status is not None:
            self.profile_state_changed(view.status)
        self.bridge.load_modes()  # the Mode tab follows the rules it describes

    @Slot(object)
    def _modes_loaded(self, view: ModesView) -> None:
        self.profile_panel.modes.set_scores(view.scores, view.error)

    @Slot(object)
    def profile_state_changed(self, status: ProfileStatus) -> None:
        """The profile's state in the banner, the panel and the status bar; a profile that
        becomes current again is read again."""
        previous, self._profile_state = self._profile_state, status.state
        self.banner.set_profile_status(status)
        self.profile_panel.set_status(status)
        self.profile_label.setText(f"Profile: {PROFILE_STATES.get(status.state, status.state)}")
        self.profile_label.setToolTip(status.error or "")
        if status.state == STATE_CURRENT and previous not in (None, STATE_CURRENT):
            self.bridge.load_profile()

    @Slot(object)
    def _pending_loaded(self, items: list[dict[str, str]]) -> None:
        self.waiting_panel.set_pending(items)
        self.tabs.setTabText(WAITING_TAB, f"&Waiting ({len(items):,})" if items else "&Waiting")

    @Slot(str, object, int)
    def _notes_loaded(self, project_id: str, notes: list[object], damaged: int) -> None:
        if project_id == self.waiting_panel.current_project():
            self.waiting_panel.set_notes(notes, damaged)  # type: ignore[arg-type]
