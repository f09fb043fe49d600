"""The journal window's dialogs: history, correction, delete/restore confirmation, export.

Why a separate object: each dialog is non-modal (`open()` plus `finished`), may outlive the
record it was opened for, and receives its result later through the bridge. This class keeps
at most one of each, routes each bridge answer to the dialog it belongs to, and forgets a
dialog before Qt deletes it, so no stale wrapper is ever touched.

A decision changed on two machines (a sync conflict) is corrected, deleted or restored only
as the settling of that conflict (`core.sync.resolution.revise`): the correction form and
the confirmation say so first and offer "Choose a version…", and their change is then sent
asking to settle it. A conflict that arrives while the form is open puts the notice in it;
a save the core refused for that reason shows the notice and needs one more Save.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Qt, Slot
from PySide6.QtWidgets import QDialog, QMessageBox, QWidget

from app.gui.journal.bridge import JournalBridge
from app.gui.journal.edit_dialog import NO_CHANGES_TEXT, EditDialog
from app.gui.journal.export_dialog import ExportDialog
from app.gui.journal.history_view import HistoryDialog
from app.gui.journal.requests import MutationResult, RevisionHistory
from app.gui.journal.view import JournalView
from app.gui.widgets import palette
from core.record.models import DecisionRecord
from core.sync.resolution import DELETING, RESTORING

TITLE = "Decision Journal"
DELETE_QUESTION = "Soft-delete “{problem}”?"
DELETE_DETAIL = (
    "It leaves browsing, export and the preference profile; its revision history stays, and "
    "Restore brings it back."
)
RESTORE_QUESTION = "Restore “{problem}”?"
RESTORE_DETAIL = "It will be included in browsing, export and the profile again."
SETTLE_DETAIL = (
    "It was changed on two machines and waits for a choice of version. {verb} settles that, "
    "on the version shown (the current one), and the other machine's version is set aside. "
    "Choose a version… compares them first."
)
SETTLED_TEXT = " Its sync conflict is settled: the other machine's version is set aside."
PROBLEM_SHOWN = 90
"""Characters of the problem a confirmation quotes; the rest is elided with "…"."""
NOTICE_MS = 8000
_SETTLING = {"Soft-delete": DELETING.capitalize(), "Restore": RESTORING.capitalize()}
"""How the confirmation names its change when it settles a sync conflict."""
_VERBS = {
    "edit": "Saved",
    "delete": "Soft-deleted",
    "restore": "Restored",
    "confirm": "Confirmed as your decision:",
}


def quoted_problem(problem: str) -> str:
    """The problem on one line, cut at a word near `PROBLEM_SHOWN` characters."""
    text = " ".join(problem.split())
    if len(text) <= PROBLEM_SHOWN:
        return text
    return text[:PROBLEM_SHOWN].rsplit(" ", 1)[0] + "…"


class DecisionDialogs(QObject):
    """Owned by the journal window; its slots are the window's Edit/History/Delete/… actions.

    Args:
        view: the window, as far as the dialogs need it.
        bridge: where the dialogs' requests go and their answers come from.
        parent: the window as a widget: the dialogs' parent.
    """

    def __init__(self, view: JournalView, bridge: JournalBridge, parent: QWidget) -> None:
        super().__init__(parent)
        self._view = view
        self._parent = parent
        self._bridge = bridge
        self.edit: EditDialog | None = None
        self.history: HistoryDialog | None = None
        self.export: ExportDialog | None = None
        self.confirm: QMessageBox | None = None
        self.conflicted: frozenset[str] = frozenset()
        """Decisions waiting for a choice of version, as the bridge last listed them."""
        bridge.conflicts_listed.connect(self._conflicts_listed)
        bridge.history_loaded.connect(self._history_loaded)
        bridge.history_failed.connect(self._history_failed)
        bridge.mutation_finished.connect(self._mutation_finished)

    def close_all(self) -> None:
        for dialog in (self.edit, self.history, self.export, self.confirm):
            if dialog is not None:
                dialog.close()

    def _dispose_when_finished(self, dialog: QDialog, attribute: str) -> None:
        def finished(_result: int) -> None:
            if getattr(self, attribute) is dialog:
                setattr(self, attribute, None)
            dialog.deleteLater()

        dialog.finished.connect(finished)

    # history -----------------------------------------------------------------------------------

    @Slot()
    def show_history(self) -> None:
        record = self._view.record
        if record is None:
            return
        if self.history is not None:
            self.history.close()
        self.history = HistoryDialog(record.id, record.problem, self._parent)
        self._dispose_when_finished(self.history, "history")
        self.history.open()
        self._bridge.load_history(record.id)

    @Slot(str, object)
    def _history_loaded(self, decision_id: str, history: RevisionHistory) -> None:
        if self.history is not None and self.history.decision_id == decision_id:
            self.history.set_revisions(history.revisions, history.notes)

    @Slot(str, str)
    def _history_failed(self, decision_id: str, message: str) -> None:
        if self.history is not None and self.history.decision_id == decision_id:
            self.history.show_error(message)

    # sync conflicts ----------------------------------------------------------------------------

    @Slot(object)
    def _conflicts_listed(self, ids: frozenset[str]) -> None:
        """An open correction form follows: a conflict that arrived (or was settled elsewhere)
        shows (or takes away) its notice before the user saves."""
        self.conflicted = ids
        if self.edit is not None and self.edit.isVisible():
            self.edit.set_sync_conflict(self.edit.decision_id in ids)

    # corrections, delete, restore --------------------------------------------------------------

    @Slot()
    def edit_current(self) -> None:
        record = self._view.record
        if record is None:
            return
        if self.edit is not None and self.edit.isVisible():
            self.edit.raise_()
            self.edit.activateWindow()
            return
        dialog = EditDialog(record, self._parent)
        dialog.set_sync_conflict(record.id in self.conflicted)
        decision_id = record.id
        dialog.save_requested.connect(
            lambda correction, expected, note: self._bridge.save_correction(
                decision_id, expected, correction, note, settle=dialog.settles_conflict
            )
        )
        dialog.versions_requested.connect(self.show_history)
        self.edit = dialog
        self._dispose_when_finished(dialog, "edit")
        dialog.open()

    @Slot()
    def delete_current(self) -> None:
        record = self._view.record
        if record is not None and not record.is_deleted:
            self._confirm_then(
                record, (DELETE_QUESTION, DELETE_DETAIL), "Soft-delete", self._bridge.soft_delete
            )

    @Slot()
    def restore_current(self) -> None:
        record = self._view.record
        if record is not None and record.is_deleted:
            self._confirm_then(
                record, (RESTORE_QUESTION, RESTORE_DETAIL), "Restore", self._bridge.restore
            )

    def _confirm_then(
        self,
        record: DecisionRecord,
        texts: tuple[str, str],
        verb: str,
        run: Callable[..., None],
    ) -> None:
        """Names the decision; Cancel is the default: Enter never deletes by accident. A
        decision with a sync conflict says that the change settles it, and offers to compare
        the versions instead."""
        question = texts[0].format(problem=quoted_problem(record.problem))
        box = QMessageBox(QMessageBox.Icon.Question, TITLE, question, parent=self._parent)
        box.setTextFormat(Qt.TextFormat.PlainText)
        settle = record.id in self.conflicted
        detail = texts[1]
        if settle:
            detail = f"{detail}\n\n{SETTLE_DETAIL.format(verb=_SETTLING[verb])}"
        box.setInformativeText(detail)
        box.setObjectName("confirm-box")
        yes = box.addButton(verb, QMessageBox.ButtonRole.AcceptRole)
        compare = (
            box.addButton("Choose a version…", QMessageBox.ButtonRole.ActionRole)
            if settle
            else None
        )
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        palette.adopt(box)

        def finished(_result: int) -> None:
            clicked = box.clickedButton()
            if clicked is yes:
                run(record.id, record.revision, settle=settle)
            elif compare is not None and clicked is compare:
                self.show_history()
            if self.confirm is box:
                self.confirm = None
            box.deleteLater()

        box.finished.connect(finished)
        self.confirm = box
        box.open()

    @Slot(object)
    def _mutation_finished(self, result: MutationResult) -> None:
        window = self._view
        dialog = self.edit if result.action == "edit" else None
        if result.record is not None:
            record = result.record
            if window.is_shown(record.id):
                window.show_record(record)
            else:
                window.update_row(record)
            settled = SETTLED_TEXT if result.settled else ""
            window.show_status(
                f"{_VERBS[result.action]} “{quoted_problem(record.problem)}” "
                f"(revision {record.revision}).{settled}"
            )
            if result.warning:
                window.show_notice(f"Saved, with a problem: {result.warning}")
            if result.action == "delete":
                window.drop_deleted(record.id)
            if dialog is not None:
                dialog.saved(record)
            self._bridge.load_catalog()
        elif result.settled:
            self._refused_for_conflict(result, dialog)
        elif result.no_changes:
            if dialog is not None:
                dialog.show_failure(NO_CHANGES_TEXT)
            window.show_status(NO_CHANGES_TEXT)
        elif result.newer is not None:
            if window.is_shown(result.decision_id):
                window.show_record(result.newer)
            if dialog is not None and dialog.isVisible():
                dialog.show_conflict(result.newer)
            else:
                window.show_notice(
                    f"This decision changed elsewhere (now revision {result.newer.revision}); "
                    "review it and try again."
                )
        else:
            if dialog is not None and dialog.isVisible():
                dialog.show_failure(result.error, result.field)
            window.show_notice(f"Could not save: {result.error}")

    def _refused_for_conflict(self, result: MutationResult, dialog: EditDialog | None) -> None:
        """A conflict arrived after the form or the confirmation was shown: the form gets the
        notice (the next Save settles it); a delete or restore is asked again."""
        text = f"{result.error[0].upper()}{result.error[1:]}."
        self.conflicted = self.conflicted | {result.decision_id}
        self._bridge.list_conflicts()
        if dialog is not None and dialog.isVisible():
            dialog.set_sync_conflict(True)
            dialog.show_failure(f"{text} Save again to settle it, or choose a version first.")
        else:
            self._view.show_notice(f"{text} Choose a version, or try again to settle it.")

    # export ------------------------------------------------------------------------------------

    @Slot()
    def open_export(self) -> None:
        if self.export is not None and self.export.isVisible():
            self.export.raise_()
            return
        view = self._view
        dialog = ExportDialog(
            self._bridge,
            view.scope_filter(),
            view.scope_total(),
            self._parent,
            open_url=view.open_url,
            language=view.summary_language(),
        )
        self.export = dialog
        self._dispose_when_finished(dialog, "export")
        dialog.open()
