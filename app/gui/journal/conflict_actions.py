"""Sync conflicts in the journal window: the list's badge, the inspector's notice, the choice.

Why one object beside the window: a conflict touches the list (a badge), the inspector (a
notice with "Choose a version…"), the history dialog (both versions side by side) and the
correction form ("Edit to merge…"), and each answer comes back later through the bridge. This
class keeps which decisions are conflicted, routes each answer to the widget it belongs to,
and asks the bridge again whenever the journal may have changed (a catch-up after a sync,
a new catalog after an edit). It sees the window as a `JournalView` plus the two widgets it
marks; it opens the history dialog through the window's own History action and finds it among
the window's children, so the dialogs keep one owner.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Slot
from PySide6.QtWidgets import QListView, QWidget

from app.gui.journal.bridge import JournalBridge
from app.gui.journal.conflict_jobs import MERGE, ConflictOutcome
from app.gui.journal.conflict_view import ConflictPanel
from app.gui.journal.decision_list_model import DecisionListModel
from app.gui.journal.edit_dialog import NO_CHANGES_TEXT, EditDialog
from app.gui.journal.history_view import HistoryDialog
from app.gui.journal.inspector import Inspector
from app.gui.journal.view import JournalView
from core.record.corrections import Correction
from core.sync.resolution import ConflictVersions

CHANGED_MEANWHILE = (
    "This decision changed while you chose (it is now revision {revision}); its versions are "
    "shown again."
)
ARRIVED_MEANWHILE = (
    "Revision {revision} is saved, and another version arrived from a sync meanwhile: choose again."
)


def resolved_text(outcome: ConflictOutcome) -> str:
    """ "Kept the version from desk: revision 3." """
    done = outcome.resolution
    assert done is not None
    verb = "Merged from" if outcome.action == MERGE else "Kept"
    return f"{verb} the version from {done.name}: revision {done.record.revision}."


class ConflictActions(QObject):
    """Owned by the journal window; `close_all` when the window closes.

    Args:
        view: the window as its actions see it.
        bridge: the window's bridge.
        parent: the window: the owner of the history dialogs and of the merge form.
        inspector: shows the notice of the decision on screen.
        list_view: the decision list, whose model marks conflicted rows.
        open_history: the window's History action (it opens the dialog this class fills).
    """

    def __init__(
        self,
        view: JournalView,
        bridge: JournalBridge,
        parent: QWidget,
        *,
        inspector: Inspector,
        list_view: QListView,
        open_history: Callable[[], object],
    ) -> None:
        super().__init__(parent)
        self._view = view
        self._parent = parent
        self._bridge = bridge
        self._inspector = inspector
        self._list_view = list_view
        self._open_history = open_history
        self.conflicted: frozenset[str] = frozenset()
        self.views: dict[str, ConflictVersions] = {}
        """The versions last shown for each decision whose history dialog is open."""
        self.merge: EditDialog | None = None
        bridge = self._bridge
        bridge.conflicts_listed.connect(self._listed)
        bridge.conflict_loaded.connect(self._loaded)
        bridge.conflict_failed.connect(self._failed)
        bridge.conflict_resolved.connect(self._resolved)
        bridge.history_loaded.connect(self._history_loaded)
        bridge.files_read.connect(self.refresh)
        bridge.catalog_loaded.connect(self.refresh)
        inspector.conflict_requested.connect(self.choose)

    # which decisions are conflicted ------------------------------------------------------------

    @Slot(object)
    def refresh(self, _reason: object = None) -> None:
        """Lists the conflicts again (cheap: one folder); answers arrive as `_listed`."""
        self._bridge.list_conflicts()

    @Slot(object)
    def _listed(self, ids: frozenset[str]) -> None:
        self.conflicted = ids
        model = self._list_view.model()
        if isinstance(model, DecisionListModel):
            model.set_conflicted(ids)
        self._inspector.set_conflicted(ids)
        for dialog in self._history_dialogs():
            if dialog.decision_id in ids and dialog.conflict_panel is None:
                self._bridge.load_conflict(dialog.decision_id)
            elif dialog.decision_id not in ids and dialog.conflict_panel is not None:
                dialog.clear_conflict("")

    @Slot()
    def choose(self) -> None:
        """The inspector's "Choose a version…": the history dialog, which shows the versions."""
        self._open_history()

    def _history_dialogs(self) -> list[HistoryDialog]:
        return [d for d in self._parent.findChildren(HistoryDialog) if d.isVisible()]

    def _dialog_for(self, decision_id: str) -> HistoryDialog | None:
        return next((d for d in self._history_dialogs() if d.decision_id == decision_id), None)

    # showing the versions ----------------------------------------------------------------------

    @Slot(str, object)
    def _history_loaded(self, decision_id: str, _history: object) -> None:
        if decision_id in self.conflicted and self._dialog_for(decision_id) is not None:
            self._bridge.load_conflict(decision_id)

    @Slot(str, object)
    def _loaded(self, decision_id: str, view: ConflictVersions | None) -> None:
        dialog = self._dialog_for(decision_id)
        if view is None:
            self.views.pop(decision_id, None)
            if dialog is not None:
                dialog.clear_conflict("")
            return
        self.views[decision_id] = view
        if dialog is None:
            return
        panel = dialog.conflict_panel
        if not isinstance(panel, ConflictPanel):
            panel = ConflictPanel(dialog)
            panel.keep_chosen.connect(lambda machine: self.keep(decision_id, machine))
            panel.merge_chosen.connect(lambda machine: self.open_merge(decision_id, machine))
            panel.set_versions(view)
            dialog.host_conflict(panel)
        else:
            panel.set_versions(view)

    @Slot(str, str)
    def _failed(self, decision_id: str, message: str) -> None:
        dialog = self._dialog_for(decision_id)
        if dialog is not None:
            dialog.show_error(f"Could not read the versions of this decision: {message}")

    # choosing ----------------------------------------------------------------------------------

    def keep(self, decision_id: str, machine: str) -> None:
        view = self.views.get(decision_id)
        if view is not None:
            self._bridge.resolve_conflict(decision_id, machine, view.current.revision)

    def open_merge(self, decision_id: str, machine: str) -> None:
        """The correction form, filled with `machine`'s version; saving it resolves."""
        view = self.views.get(decision_id)
        if view is None:
            return
        if self.merge is not None and self.merge.isVisible():
            self.merge.raise_()
            self.merge.activateWindow()
            return
        parent = self._dialog_for(decision_id) or self._parent
        dialog = EditDialog(view.version(machine).record, parent)
        dialog.setWindowTitle(f"Edit to merge: start from {view.version(machine).title}")
        expected = view.current.revision

        def save(correction: Correction, _shown: int, note: str) -> None:
            self._bridge.resolve_conflict(decision_id, machine, expected, correction, note)

        dialog.save_requested.connect(save)
        dialog.finished.connect(lambda _result: self._forget_merge(dialog))
        self.merge = dialog
        dialog.open()

    def _forget_merge(self, dialog: EditDialog) -> None:
        if self.merge is dialog:
            self.merge = None
        dialog.deleteLater()

    @Slot(object)
    def _resolved(self, outcome: ConflictOutcome) -> None:
        merge = self.merge if outcome.action == MERGE else None
        dialog = self._dialog_for(outcome.decision_id)
        panel = dialog.conflict_panel if dialog is not None else None
        if outcome.resolution is not None:
            self._settled(outcome, merge, dialog)
            return
        if outcome.newer is not None:
            text = CHANGED_MEANWHILE.format(revision=outcome.newer.revision)
            self._bridge.load_conflict(outcome.decision_id)
            if self._view.is_shown(outcome.decision_id):
                self._view.show_record(outcome.newer)
        elif outcome.no_changes:
            text = NO_CHANGES_TEXT
        else:
            text = f"Could not resolve the conflict: {outcome.error}"
        if merge is not None:
            merge.show_failure(text, outcome.field)
        if isinstance(panel, ConflictPanel):
            panel.show_error(text)
        self._view.show_status(text)

    def _settled(
        self, outcome: ConflictOutcome, merge: EditDialog | None, dialog: HistoryDialog | None
    ) -> None:
        done = outcome.resolution
        assert done is not None
        view = self._view
        record = done.record
        if view.is_shown(record.id):
            view.show_record(record)
        else:
            view.update_row(record)
        text = resolved_text(outcome)
        if not done.cleared:
            text = ARRIVED_MEANWHILE.format(revision=record.revision)
        if done.note_warning:
            view.show_notice(f"Saved, with a problem: {done.note_warning}")
        view.show_status(text)
        if merge is not None:
            merge.saved(record)
        if dialog is not None:
            if done.cleared:
                dialog.clear_conflict(text)
            else:
                self._bridge.load_conflict(record.id)
            self._bridge.load_history(record.id)
        self._bridge.load_catalog()  # its answer lists the conflicts again

    def close_all(self) -> None:
        if self.merge is not None:
            self.merge.close()
