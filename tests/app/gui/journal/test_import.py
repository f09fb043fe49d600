"""Importing through the dialog, confirming imported records, and the derived outcome figures."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMenu
from pytestqt.qtbot import QtBot

from app.gui.journal.import_dialog import AUTO_TEXT, ImportDialog, kind_name
from app.gui.journal.outcome_tables import COUNTING, NO_FIGURES
from app.gui.journal.requests import SCOPE_ALL, SCOPE_CURRENT, FilterState
from app.gui.journal.window import JournalWindow
from core.importers import KINDS
from core.importers.base import ImportReport
from core.journal import Journal
from core.record.filters import ListFilter
from core.record.models import DecisionRecord
from tests.app.support.journal_support import make_journal, open_window, press, record, shut_down
from tests.factories import add_sync_conflict

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
]

DATA = Path(__file__).resolve().parents[3] / "data" / "importers"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project of its own holding the MADR folder and the decisions.md log: its `.git` is what
    makes it the project the imported records belong to (`core.importers.locate`), so the
    tests do not depend on the checkout they run from having one."""
    root = tmp_path / "adr-project"
    shutil.copytree(DATA / "madr" / "docs", root / "docs")
    shutil.copy2(DATA / "decisions_md" / "decisions.md", root / "decisions.md")
    (root / ".git").mkdir()
    return root


@pytest.fixture
def madr(project: Path) -> Path:
    return project / "docs"


@pytest.fixture
def decisions_md(project: Path) -> Path:
    return project / "decisions.md"


@pytest.fixture
def journal(tmp_path: Path) -> Journal:
    return make_journal(tmp_path / "journal", [record(1), record(2)])


@pytest.fixture
def window(qtbot: QtBot, journal: Journal, tmp_path: Path) -> Iterator[JournalWindow]:
    window = open_window(qtbot, journal, tmp_path / "settings.ini")
    yield window
    shut_down(qtbot, window)


def record_count(journal: Journal) -> int:
    return len(journal.store.list_with_issues(ListFilter()).records)


def all_projects(qtbot: QtBot, window: JournalWindow) -> None:
    window.filter_bar.set_state(FilterState(scope=SCOPE_ALL))
    with qtbot.waitSignal(window.scope_counted, timeout=10_000):
        window.reload_scope()


def open_dialog(qtbot: QtBot, window: JournalWindow) -> ImportDialog:
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    press(window, Qt.Key.Key_I, Qt.KeyboardModifier.ControlModifier)
    dialog = window.imports.dialog
    assert dialog is not None
    qtbot.waitUntil(dialog.isActiveWindow)
    assert dialog.source.hasFocus()
    return dialog


def choose_source(qtbot: QtBot, dialog: ImportDialog, source: Path, kind: str) -> None:
    dialog.set_source(str(source))
    qtbot.waitUntil(lambda: dialog.detected_kind == kind, timeout=5000)
    assert dialog.detected.text() == f"Detected: {kind_name(kind)}"
    assert dialog.kind.currentText() == AUTO_TEXT


def run(qtbot: QtBot, dialog: ImportDialog) -> ImportReport:
    values: list[int] = []
    dialog.progress.valueChanged.connect(values.append)
    with qtbot.waitSignal(dialog.import_finished, timeout=20_000) as blocker:
        dialog.start_button.click()
    report = blocker.args[0]
    assert isinstance(report, ImportReport)
    assert dialog.progress.value() == 100
    assert values and values[-1] == 100
    return report


def test_import_menu_action_is_in_the_journal_menu(window: JournalWindow) -> None:
    action = window.imports.import_action
    assert action.shortcut().toString() == "Ctrl+I"
    menus = {menu.title(): menu for menu in window.menuBar().findChildren(QMenu)}
    assert action in menus["&Journal"].actions()
    assert window.imports.confirm_all_action in menus["&Journal"].actions()
    assert window.imports.confirm_action in menus["&Decision"].actions()
    texts = [a.text().replace("&", "") for a in menus["&Journal"].actions()]
    assert texts == [
        "Import…",
        "Export…",
        "Confirm all imported in this scope…",
        "",
        "Rebuild profile",
        "Refresh",
        "",
        "Close",
    ]


def test_import_through_the_dialog_shows_the_report_and_the_records(
    qtbot: QtBot, window: JournalWindow, journal: Journal, madr: Path
) -> None:
    all_projects(qtbot, window)
    dialog = open_dialog(qtbot, window)
    choose_source(qtbot, dialog, madr, "madr")
    report = run(qtbot, dialog)
    assert report.imported == 5
    assert not report.dry_run
    text = dialog.report_view.toPlainText()
    assert dialog.report_view.isVisible()
    for caption in ("Read: 6", "Imported: 5", "Unchanged: 0", "Skipped: 1", "Conflicts: 0"):
        assert caption in text
    assert "Errors: 0" in text
    assert record_count(journal) == 7
    qtbot.waitUntil(lambda: window.model.rowCount() == 7, timeout=10_000)
    assert "Imported 5" in window.statusBar().currentMessage()

    again = run(qtbot, dialog)  # a second run adds nothing
    assert again.imported == 0
    assert again.unchanged == 5
    assert record_count(journal) == 7
    press(dialog, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not dialog.isVisible())


def test_an_import_into_another_project_shows_it_as_the_current_one(
    qtbot: QtBot, window: JournalWindow, madr: Path
) -> None:
    """The window keeps its current project while open, but an import is what the user wants
    to see next: the list moves to the project the import just filled."""
    assert window.filter_bar.state.scope == SCOPE_CURRENT
    qtbot.waitUntil(lambda: window.filter_bar.scope.itemText(0) == "Current: alpha", timeout=5000)
    dialog = open_dialog(qtbot, window)
    choose_source(qtbot, dialog, madr, "madr")
    assert run(qtbot, dialog).imported == 5
    qtbot.waitUntil(lambda: window.model.rowCount() == 5, timeout=10_000)
    imported = {window.model.list_row(n).project_id for n in range(5)}
    assert len(imported) == 1 and "project-00000000000000aa" not in imported
    qtbot.waitUntil(lambda: window.filter_bar.scope.itemText(0) != "Current: alpha", timeout=5000)
    press(dialog, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not dialog.isVisible())


def test_dry_run_writes_nothing(
    qtbot: QtBot, window: JournalWindow, journal: Journal, decisions_md: Path
) -> None:
    dialog = open_dialog(qtbot, window)
    choose_source(qtbot, dialog, decisions_md, "decisions-md")
    dialog.dry_run.setChecked(True)
    report = run(qtbot, dialog)
    assert report.dry_run
    assert report.imported == 9
    assert "Dry run: nothing was written." in dialog.report_view.toPlainText()
    assert "Would import: 9" in dialog.report_view.toPlainText()
    assert record_count(journal) == 2
    assert not (journal.root / "imports").exists() or not any((journal.root / "imports").iterdir())


def test_kind_can_be_overridden(
    qtbot: QtBot, window: JournalWindow, journal: Journal, madr: Path
) -> None:
    dialog = open_dialog(qtbot, window)
    choose_source(qtbot, dialog, madr, "madr")
    dialog.kind.setCurrentIndex(dialog.kind.findData("decider"))
    assert dialog.kind.currentText() == "Owner-decision ledger (SQLite)"
    with qtbot.waitSignal(dialog.import_finished, timeout=10_000) as blocker:
        dialog.start_button.click()
    report = blocker.args[0]
    assert report.kind == "decider"
    assert record_count(journal) == 2


def test_cancel_stops_the_import(
    qtbot: QtBot, window: JournalWindow, journal: Journal, tmp_path: Path
) -> None:
    source = tmp_path / "goals"
    source.mkdir()
    for number in range(60):
        lines = [
            json.dumps(
                {
                    "ts": "2026-08-26T10:00:00.000Z",
                    "decision": f"Decision {number}-{line}",
                    "why": "because the test says so",
                }
            )
            for line in range(300)
        ]
        (source / f"goal-{number:03d}.jsonl").write_text("\n".join(lines) + "\n")
    dialog = open_dialog(qtbot, window)
    choose_source(qtbot, dialog, source, "goal-jsonl")
    with qtbot.waitSignal(dialog.import_finished, timeout=60_000) as blocker:
        dialog.start_button.click()
        qtbot.waitUntil(dialog.cancel_button.isVisible)
        assert dialog.cancel_button.hasFocus()
        press(dialog, Qt.Key.Key_Space)
        assert dialog.status.text() == "Cancelling…"
    report = blocker.args[0]
    assert report.cancelled
    assert report.read < 60 * 300
    assert dialog.status.text() == "Import cancelled."
    assert not dialog.cancel_button.isVisible()
    assert dialog.start_button.isEnabled()


def imported_window(qtbot: QtBot, window: JournalWindow, madr: Path) -> None:
    all_projects(qtbot, window)
    dialog = open_dialog(qtbot, window)
    choose_source(qtbot, dialog, madr, "madr")
    run(qtbot, dialog)
    dialog.close()
    qtbot.waitUntil(lambda: window.model.rowCount() == 7, timeout=10_000)


def show(qtbot: QtBot, window: JournalWindow, decision_id: str) -> None:
    window.open_decision(decision_id)
    qtbot.waitUntil(lambda: window.is_shown(decision_id), timeout=5000)


def imported_record(
    qtbot: QtBot, window: JournalWindow, journal: Journal, madr: Path
) -> DecisionRecord:
    """After `imported_window`: the first imported record."""
    imported_window(qtbot, window, madr)
    return next(
        r for r in journal.store.list_with_issues(ListFilter()).records if "imported" in r.tags
    )


def test_confirm_button_makes_an_imported_record_the_users(
    qtbot: QtBot, window: JournalWindow, journal: Journal, madr: Path
) -> None:
    target = imported_record(qtbot, window, journal, madr)
    show(qtbot, window, target.id)
    button = window.inspector.confirm_button
    assert button.isVisible()
    assert window.imports.confirm_action.isEnabled()
    with qtbot.waitSignal(window.bridge.mutation_finished, timeout=10_000) as blocker:
        button.click()
    assert blocker.args[0].record is not None
    stored = journal.store.get(target.id)
    assert stored.revision == target.revision + 1
    assert stored.provenance.selection == "user"
    assert stored.provenance.rationale == "user"
    assert len(journal.store.history(target.id)) == 2
    qtbot.waitUntil(lambda: not window.inspector.confirm_button.isVisible())
    assert not window.imports.confirm_action.isEnabled()


def test_confirm_on_a_stale_revision_says_so_and_reloads(
    qtbot: QtBot, window: JournalWindow, journal: Journal, madr: Path
) -> None:
    target = imported_record(qtbot, window, journal, madr)
    show(qtbot, window, target.id)
    journal.store.revise(target.id, target.revision, lambda r: setattr(r, "risk_level", "high"))
    with qtbot.waitSignal(window.bridge.mutation_finished, timeout=10_000) as blocker:
        window.inspector.confirm_button.click()
    assert blocker.args[0].newer is not None
    assert "changed elsewhere" in window.notice.text()
    assert window.record is not None and window.record.revision == target.revision + 1
    assert journal.store.get(target.id).provenance.selection == "imported"


def test_confirm_all_in_scope(
    qtbot: QtBot, window: JournalWindow, journal: Journal, madr: Path
) -> None:
    imported_window(qtbot, window, madr)
    window.imports.confirm_all_action.trigger()
    box = window.imports.confirm_box
    assert box is not None
    qtbot.waitUntil(box.isVisible)
    yes = next(b for b in box.buttons() if b.text() == "Confirm all")
    yes.click()
    qtbot.waitUntil(lambda: "Confirmed 5 imported" in window.notice.text(), timeout=10_000)
    records = journal.store.list_with_issues(ListFilter()).records
    assert all(r.provenance.selection == "user" for r in records)


def test_details_show_the_outcome(qtbot: QtBot, window: JournalWindow) -> None:
    show(qtbot, window, "decision-test-0001")
    text = window.inspector.details.text("outcome")
    assert text.startswith("redirect")
    assert not window.inspector.confirm_button.isVisible()


def test_profile_panel_shows_acceptance_by_kind(qtbot: QtBot, window: JournalWindow) -> None:
    window.tabs.setCurrentWidget(window.profile_panel)
    table = window.profile_panel.outcomes.acceptance
    qtbot.waitUntil(lambda: table.rowCount() == 1, timeout=10_000)
    cells = [table.model().index(0, column).data() for column in range(table.columnCount())]
    assert cells[:4] == ["storage_backend", "0", "0", "2"]


def test_outcome_figures_say_they_are_counted_until_they_arrive(
    qtbot: QtBot, window: JournalWindow
) -> None:
    """On a large journal the figures take seconds; "no decisions" meanwhile would be wrong."""
    outcomes = window.profile_panel.outcomes
    window.tabs.setCurrentWidget(window.profile_panel)
    assert outcomes.message.text() == COUNTING and not outcomes.message.isHidden()
    qtbot.waitUntil(lambda: outcomes.acceptance.rowCount() == 1, timeout=10_000)
    assert outcomes.message.isHidden()


def test_outcome_figures_of_a_journal_without_recommendations(qtbot: QtBot, tmp_path: Path) -> None:
    empty = make_journal(tmp_path / "empty", [])
    window = open_window(qtbot, empty, tmp_path / "empty-settings.ini")
    try:
        outcomes = window.profile_panel.outcomes
        window.tabs.setCurrentWidget(window.profile_panel)
        qtbot.waitUntil(lambda: outcomes.message.text() == NO_FIGURES, timeout=10_000)
        assert not outcomes.message.isHidden() and outcomes.acceptance.rowCount() == 0
    finally:
        shut_down(qtbot, window)


def test_kinds_are_listed_by_name_with_auto_detect_first(
    qtbot: QtBot, window: JournalWindow, journal: Journal, madr: Path
) -> None:
    dialog = open_dialog(qtbot, window)
    names = [dialog.kind.itemText(n) for n in range(dialog.kind.count())]
    assert names[0] == AUTO_TEXT and dialog.kind.currentIndex() == 0
    assert not any(kind in names for kind in KINDS)
    assert len(names) == len(KINDS) + 1
    assert all(dialog.kind.itemData(n, Qt.ItemDataRole.ToolTipRole) for n in range(len(names)))
    dialog.source.setText(str(madr))  # typed, never detected: Auto-detect decides at start
    report = run(qtbot, dialog)
    assert report.kind == "madr" and report.imported == 5
    press(dialog, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not dialog.isVisible())


def test_confirm_of_a_decision_in_a_sync_conflict_is_refused_as_a_correction_is(
    qtbot: QtBot, window: JournalWindow, journal: Journal, madr: Path
) -> None:
    target = imported_record(qtbot, window, journal, madr)
    add_sync_conflict(journal.root, target.id)
    before = journal.store.get(target.id)
    show(qtbot, window, target.id)
    with qtbot.waitSignal(window.bridge.mutation_finished, timeout=10_000) as blocker:
        window.bridge.confirm_import(target.id, before.revision)
    result = blocker.args[0]
    assert result.record is None and result.settled
    assert "waits for a choice of version; nothing was written" in result.error
    after = journal.store.get(target.id)
    assert (after.revision, after.provenance.selection) == (before.revision, "imported")
