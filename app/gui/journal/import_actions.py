"""The journal window's import side: the Import dialog, confirming imports, outcome figures.

Why a separate object: the window stays wiring; this class owns the one import dialog (kept
for the window's lifetime, so a late worker result always finds it), the batch confirmation
and the profile panel's acceptance and rule-outcome tables. It sees the window only as a
`JournalView`; all disk work is the bridge's, and its answers arrive as the bridge's signals.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Slot
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu, QMessageBox, QWidget

from app.gui.journal.bridge import JournalBridge
from app.gui.journal.decision_dialogs import TITLE
from app.gui.journal.formatting import count_text
from app.gui.journal.import_dialog import ImportDialog
from app.gui.journal.outcome_tables import OutcomeTables
from app.gui.journal.requests import OutcomeFigures
from app.gui.journal.view import JournalView
from app.gui.widgets import palette
from core.importers.base import ImportReport
from core.importers.confirm import ConfirmReport, is_unconfirmed_import
from core.record.models import DecisionRecord

CONFIRM_ALL_QUESTION = (
    "Confirm every imported decision in the journal's current filter as your own? Each one "
    "gets a new revision (kept in history) and starts counting as preference evidence."
)


class ImportActions(QObject):
    """Owned by the journal window; `install` adds its actions to the window's menus.

    Args:
        view: the window, as far as imports need it.
        bridge: runs the imports, confirmations and outcome counts.
        outcomes: the profile tab's acceptance and rule-outcome tables.
        parent: the window as a widget: the actions' and dialogs' parent.
    """

    def __init__(
        self, view: JournalView, bridge: JournalBridge, outcomes: OutcomeTables, parent: QWidget
    ) -> None:
        super().__init__(parent)
        self._view = view
        self._parent = parent
        self._bridge = bridge
        self._outcomes = outcomes
        self.dialog: ImportDialog | None = None
        self.confirm_box: QMessageBox | None = None
        self._confirming = False
        self.import_action = QAction("&Import…", parent)
        self.import_action.setShortcut(QKeySequence("Ctrl+I"))
        self.import_action.triggered.connect(self.open_import)
        self.confirm_action = QAction("Con&firm as my decision", parent)
        self.confirm_action.triggered.connect(self.confirm_current)
        self.confirm_all_action = QAction("Confirm all imported in this scope…", parent)
        self.confirm_all_action.triggered.connect(self.confirm_all)
        for action in (self.import_action, self.confirm_action, self.confirm_all_action):
            parent.addAction(action)
        bridge.imports_confirmed.connect(self._confirmed)
        bridge.imports_unconfirmed.connect(self._unconfirmed)
        bridge.outcomes_loaded.connect(self._outcomes_loaded)
        bridge.outcomes_failed.connect(outcomes.show_error)
        self.update(None)

    def install(self, journal_menu: QMenu, decision_menu: QMenu, *, before: QAction) -> None:
        """Import and "Confirm all" go with Export, ahead of `before` in the Journal menu."""
        journal_menu.insertAction(journal_menu.actions()[0], self.import_action)
        journal_menu.insertAction(before, self.confirm_all_action)
        decision_menu.addAction(self.confirm_action)

    def update(self, record: DecisionRecord | None) -> None:
        self.confirm_action.setEnabled(
            record is not None and not record.is_deleted and is_unconfirmed_import(record)
        )

    def close_all(self) -> None:
        for dialog in (self.dialog, self.confirm_box):
            if dialog is not None:
                dialog.close()

    def shutdown(self) -> None:
        if self.dialog is not None:
            self.dialog.cancel()

    # importing ---------------------------------------------------------------------------------

    @Slot()
    def open_import(self) -> None:
        if self.dialog is None:
            self.dialog = ImportDialog(self._bridge, self._parent)
            self.dialog.import_finished.connect(self._imported)
        self.dialog.open()
        self.dialog.raise_()
        self.dialog.source.setFocus()

    @Slot(object)
    def _imported(self, report: ImportReport) -> None:
        verb = "Dry run: would import" if report.dry_run else "Imported"
        self._view.show_status(f"{verb} {report.imported:,} of {count_text(report.read, 'item')}.")
        if not report.dry_run:
            self._bridge.forget_current_project()  # the list moves to what was just imported
            self.refresh()

    def refresh(self) -> None:
        """The list, catalog, waiting decisions and outcome figures after the journal changed."""
        self._bridge.read_changed_files()
        self._view.reload_scope()
        self._bridge.load_catalog()
        self._bridge.load_pending()
        if self._view.profile_shown():
            self.load_outcomes()

    # confirming --------------------------------------------------------------------------------

    @Slot()
    def confirm_current(self) -> None:
        record = self._view.record
        if record is None or record.is_deleted or not is_unconfirmed_import(record):
            return
        self._bridge.confirm_import(record.id, record.revision)

    @Slot()
    def confirm_all(self) -> None:
        """Cancel is the default button: Enter never confirms a whole scope by accident."""
        if self.confirm_box is not None or self._confirming:
            return
        box = QMessageBox(
            QMessageBox.Icon.Question, TITLE, CONFIRM_ALL_QUESTION, parent=self._parent
        )
        box.setObjectName("confirm-all-box")
        yes = box.addButton("Confirm all", QMessageBox.ButtonRole.AcceptRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        palette.adopt(box)

        def finished(_result: int) -> None:
            if box.clickedButton() is yes:
                self._run_confirm_all()
            if self.confirm_box is box:
                self.confirm_box = None
            box.deleteLater()

        box.finished.connect(finished)
        self.confirm_box = box
        box.open()

    def _run_confirm_all(self) -> None:
        self._confirming = True
        self._view.show_status("Confirming imported decisions…")
        self._bridge.confirm_imported(self._view.scope_filter())

    @Slot(object)
    def _confirmed(self, report: ConfirmReport) -> None:
        self._confirming = False
        text = f"Confirmed {count_text(len(report.confirmed), 'imported decision')}"
        if report.already:
            text += f"; {len(report.already):,} already confirmed"
        if report.failed:
            first_id, message = report.failed[0]
            text += f"; {len(report.failed):,} failed (first: {first_id}: {message})"
        self._view.show_notice(text + ".")
        self.refresh()
        record = self._view.record
        if record is not None:
            self._bridge.load_record(record.id)

    @Slot(str)
    def _unconfirmed(self, message: str) -> None:
        self._confirming = False
        self._view.show_notice(f"Could not confirm: {message}")

    # outcome figures ---------------------------------------------------------------------------

    @Slot(int)
    def tab_changed(self, _index: int) -> None:
        """Counts the outcome figures whenever the profile tab comes to the front."""
        if self._view.profile_shown():
            self.load_outcomes()

    def load_outcomes(self) -> None:
        """Acceptance per kind over active records, and per-rule Beta mean and Elo."""
        self._outcomes.show_counting()
        self._bridge.load_outcomes()

    @Slot(object)
    def _outcomes_loaded(self, figures: OutcomeFigures) -> None:
        self._outcomes.set_acceptance(figures.acceptance)
        self._outcomes.set_rule_outcomes(figures.rules)
