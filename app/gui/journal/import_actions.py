"""The journal window's import side: the Import dialog, confirming imports, outcome figures.

Why a separate object: the window stays wiring; this class owns the one import dialog (kept
for the window's lifetime, so a late worker result always finds it), the batch confirmation
and the profile panel's acceptance and rule-outcome tables. All disk work runs in the
bridge's worker pools; the callbacks run on the GUI thread.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Slot
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu, QMessageBox

from app.gui.journal.decision_dialogs import NOTICE_MS, TITLE
from app.gui.journal.formatting import count_text
from app.gui.journal.import_dialog import ImportDialog
from app.gui.widgets import palette
from core.importers.base import ImportReport
from core.importers.confirm import ConfirmReport, confirm_batch, is_unconfirmed_import
from core.index.query import IndexFilter
from core.outcomes.rule_scores import RuleOutcome, journal_rule_outcomes
from core.outcomes.verdict import KindAcceptance, acceptance_by_kind
from core.profile.store import describe_error
from core.record.models import DecisionRecord

if TYPE_CHECKING:
    from app.gui.journal.window import JournalWindow

CONFIRM_ALL_QUESTION = (
    "Confirm every imported decision in the journal's current filter as your own? Each one "
    "gets a new revision (kept in history) and starts counting as preference evidence."
)


@dataclass(frozen=True, slots=True)
class OutcomeFigures:
    acceptance: list[KindAcceptance]
    rules: dict[str, RuleOutcome]
    rules_error: str = ""


class ImportActions(QObject):
    """Owned by the journal window; `install` adds its actions to the window's menus."""

    def __init__(self, window: JournalWindow) -> None:
        super().__init__(window)
        self._window = window
        self._bridge = window.bridge
        self.dialog: ImportDialog | None = None
        self.confirm_box: QMessageBox | None = None
        self._confirming = False
        self.import_action = QAction("&Import…", window)
        self.import_action.setShortcut(QKeySequence("Ctrl+I"))
        self.import_action.triggered.connect(self.open_import)
        self.confirm_action = QAction("Con&firm as my decision", window)
        self.confirm_action.triggered.connect(self.confirm_current)
        self.confirm_all_action = QAction("Confirm all imported in this scope…", window)
        self.confirm_all_action.triggered.connect(self.confirm_all)
        for action in (self.import_action, self.confirm_action, self.confirm_all_action):
            window.addAction(action)
        window.inspector.confirm_requested.connect(self.confirm_current)
        window.tabs.currentChanged.connect(self._tab_changed)
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
            self.dialog = ImportDialog(self._bridge, self._window)
            self.dialog.import_finished.connect(self._imported)
        self.dialog.open()
        self.dialog.raise_()
        self.dialog.source.setFocus()

    @Slot(object)
    def _imported(self, report: ImportReport) -> None:
        verb = "Dry run: would import" if report.dry_run else "Imported"
        self._window.statusBar().showMessage(
            f"{verb} {report.imported:,} of {count_text(report.read, 'item')}.", NOTICE_MS
        )
        if not report.dry_run:
            self._bridge.forget_current_project()  # the list moves to what was just imported
            self.refresh()

    def refresh(self) -> None:
        """The list, catalog, waiting decisions and outcome figures after the journal changed."""
        if self._bridge._closed:
            return
        self._bridge.reconcile()
        self._window.reload_scope()
        self._bridge.load_catalog()
        self._bridge.load_pending()
        if self._window.tabs.currentWidget() is self._window.profile_panel:
            self.load_outcomes()

    # confirming --------------------------------------------------------------------------------

    @Slot()
    def confirm_current(self) -> None:
        record = self._window.record
        if record is None or record.is_deleted or not is_unconfirmed_import(record):
            return
        self._bridge.confirm_import(record.id, record.revision)

    @Slot()
    def confirm_all(self) -> None:
        """Cancel is the default button: Enter never confirms a whole scope by accident."""
        if self.confirm_box is not None or self._confirming:
            return
        box = QMessageBox(
            QMessageBox.Icon.Question, TITLE, CONFIRM_ALL_QUESTION, parent=self._window
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
        window = self._window
        flt = window.filter_bar.state.to_index_filter(window.current_project)
        journal = self._bridge.journal
        self._confirming = True
        window.statusBar().showMessage("Confirming imported decisions…")

        def work() -> ConfirmReport:
            records = journal.index.list_records(flt)
            ids = [r.id for r in records if not r.is_deleted and is_unconfirmed_import(r)]
            return confirm_batch(journal.store, ids)

        def done(report: ConfirmReport) -> None:
            self._confirming = False
            text = f"Confirmed {count_text(len(report.confirmed), 'imported decision')}"
            if report.already:
                text += f"; {len(report.already):,} already confirmed"
            if report.failed:
                first_id, message = report.failed[0]
                text += f"; {len(report.failed):,} failed (first: {first_id}: {message})"
            window.show_notice(text + ".")
            self.refresh()
            if window.record is not None:
                self._bridge.load_record(window.record.id)

        def failed(exc: BaseException) -> None:
            self._confirming = False
            window.show_notice(f"Could not confirm: {describe_error(exc)}")

        self._bridge.writes.submit(work, self._alive(done), self._alive(failed))

    def _alive(self, callback: Callable[[Any], None]) -> Callable[[Any], None]:
        def deliver(value: Any) -> None:
            if not self._bridge._closed:
                callback(value)

        return deliver

    # outcome figures ---------------------------------------------------------------------------

    @Slot(int)
    def _tab_changed(self, _index: int) -> None:
        if self._window.tabs.currentWidget() is self._window.profile_panel:
            self.load_outcomes()

    def load_outcomes(self) -> None:
        """Acceptance per kind over active records, and per-rule Beta mean and Elo."""
        journal = self._bridge.journal
        panel = self._window.profile_panel.outcomes

        def work() -> OutcomeFigures:
            acceptance = acceptance_by_kind(journal.index.list_shapes(IndexFilter()))
            try:
                rules = journal_rule_outcomes(journal)
            except Exception as exc:  # a damaged profile or log: the acceptance still shows
                return OutcomeFigures(acceptance, {}, describe_error(exc))
            return OutcomeFigures(acceptance, rules)

        def done(figures: OutcomeFigures) -> None:
            panel.set_acceptance(figures.acceptance)
            panel.set_rule_outcomes(figures.rules)

        panel.show_counting()
        self._bridge.reads.submit(
            work, self._alive(done), self._alive(lambda exc: panel.show_error(describe_error(exc)))
        )
