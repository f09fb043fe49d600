"""The profile panel: rules with evidence, overrides saved with CAS, conflicts, rebuilds."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from app.gui.journal.outcome_tables import NO_RULE_FIGURES, RULE_HEADERS
from app.gui.journal.profile_panel import EMPTY_TEXT, NO_RULE_SELECTED, RuleModel, rule_name
from app.gui.journal.window import JournalWindow
from app.gui.widgets.palette import MARK_CONTRAST
from core.journal import Journal
from core.outcomes.reward import INITIAL_PATTERN_SCORE
from core.outcomes.rule_scores import RuleOutcome
from core.profile.model import ProfileRule, ProfileStatus
from tests.app.support.capture_support import max_contrast
from tests.app.support.journal_support import make_journal, open_window, press, record, shut_down

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
]


@pytest.fixture
def journal(tmp_path: Path) -> Journal:
    records = [record(n) for n in range(1, 5)]
    records.append(
        record(
            5,
            selected_option_id="single",
            rejected_reasons=[
                r.model_copy(update={"option_id": "per-record", "reason": "too many files"})
                if r.option_id == "single"
                else r
                for r in record(5).rejected_reasons
            ],
        )
    )
    journal = make_journal(tmp_path / "journal", records)
    journal.profile.rebuild()
    return journal


@pytest.fixture
def window(qtbot: QtBot, journal: Journal, tmp_path: Path) -> Iterator[JournalWindow]:
    window = open_window(qtbot, journal, tmp_path / "settings.ini")
    window.tabs.setCurrentWidget(window.profile_panel)
    qtbot.waitUntil(lambda: window.profile_panel.rules.rowCount() > 0, timeout=5000)
    yield window
    shut_down(qtbot, window)


def project_rule(window: JournalWindow) -> tuple[int, ProfileRule]:
    model = window.profile_panel.rules
    row = next(n for n in range(model.rowCount()) if model.rule(n).scope == "project")
    return row, model.rule(row)


def toggle_with_space(qtbot: QtBot, window: JournalWindow, row: int, column: int) -> None:
    table = window.profile_panel.table
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    table.setFocus()
    table.setCurrentIndex(table.model().index(row, column))
    press(table, Qt.Key.Key_Space)


def test_rules_show_scope_evidence_and_strength(
    qtmodeltester: ModelTester, qtbot: QtBot, window: JournalWindow
) -> None:
    panel = window.profile_panel
    qtmodeltester.check(panel.rules)
    row, rule = project_rule(window)
    qtbot.waitUntil(lambda: panel.rules.index(row, 2).data() == "alpha …0000aa", timeout=5000)
    assert panel.rules.index(row, 2).data(Qt.ItemDataRole.ToolTipRole) == rule.scope_key
    values = [panel.rules.index(row, c).data() for c in range(9)]
    assert values[0] == rule_name(rule.id) and rule.id.endswith(values[0][2:])
    assert panel.rules.index(row, 0).data(Qt.ItemDataRole.ToolTipRole) == rule.id
    assert values[1:5] == ["project", "alpha …0000aa", "storage_backend", "Per-record JSON"]
    assert values[5:7] == ["4", "1"]
    assert values[7] == f"{rule.confidence:.0%}"
    assert 0 < float(values[8]) < 1
    assert panel.rules.index(row, RuleModel.ENABLED).data(Qt.ItemDataRole.CheckStateRole) == (
        Qt.CheckState.Checked
    )
    assert panel.state_label.text().startswith("Profile current · revision 1")
    assert not panel.empty_label.isVisible()


def test_evidence_lists_open_in_the_fork_view(
    qtmodeltester: ModelTester, qtbot: QtBot, window: JournalWindow
) -> None:
    panel = window.profile_panel
    row, rule = project_rule(window)
    panel.table.selectRow(row)
    assert panel.support.ids() == rule.support_decision_ids
    assert panel.contradictions.ids() == ["decision-test-0005"]
    qtmodeltester.check(panel.support)
    qtbot.waitUntil(
        lambda: panel.contradictions.index(0).data() == "Choose the storage layout number 5",
        timeout=5000,
    )
    view = panel.contradiction_view
    view.setFocus()
    view.setCurrentIndex(panel.contradictions.index(0))
    press(view, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.tabs.currentIndex() == 0)
    qtbot.waitUntil(lambda: window.record is not None and window.record.id == "decision-test-0005")
    assert window.inspector.fork.tree is not None


def test_disabling_a_rule_is_saved_with_cas(
    qtbot: QtBot, window: JournalWindow, journal: Journal
) -> None:
    row, rule = project_rule(window)
    with qtbot.waitSignal(window.bridge.profile_loaded, timeout=5000):
        toggle_with_space(qtbot, window, row, RuleModel.ENABLED)
    stored = journal.profile.load()
    assert stored.revision == 2
    saved = stored.rule(rule.id)
    assert saved is not None and not saved.enabled
    assert not stored.overrides[rule.id].enabled
    assert window.profile_panel.rules.revision == 2


def test_a_profile_changed_elsewhere_is_reported_and_reloaded(
    qtbot: QtBot, window: JournalWindow, journal: Journal
) -> None:
    row, rule = project_rule(window)
    journal.profile.set_rule(rule.id, 1, pinned=True)  # another process got there first
    with qtbot.waitSignal(window.bridge.profile_conflicted, timeout=5000):
        toggle_with_space(qtbot, window, row, RuleModel.ENABLED)
    panel = window.profile_panel
    assert panel.message.text().startswith("The profile changed elsewhere (now revision 2)")
    qtbot.waitUntil(lambda: panel.rules.revision == 2, timeout=5000)
    reloaded = panel.rules.rule(panel.rules.row_of(rule.id))
    assert reloaded.enabled and reloaded.pinned  # the lost change is not shown as saved
    stored = journal.profile.load().rule(rule.id)
    assert stored is not None and stored.enabled


def test_a_private_note_is_saved(qtbot: QtBot, window: JournalWindow, journal: Journal) -> None:
    panel = window.profile_panel
    row, rule = project_rule(window)
    panel.table.selectRow(row)
    panel.note_edit.setText("matches our team guideline")
    with qtbot.waitSignal(window.bridge.profile_loaded, timeout=5000):
        panel.save_note_button.click()
    stored = journal.profile.load().rule(rule.id)
    assert stored is not None and stored.user_note == "matches our team guideline"
    qtbot.waitUntil(lambda: panel.note_edit.text() == "matches our team guideline")


def test_rebuild_now_runs_in_the_background(
    qtbot: QtBot, window: JournalWindow, journal: Journal
) -> None:
    states: list[str] = []
    window.bridge.profile_state_changed.connect(lambda status: states.append(status.state))
    window.profile_panel.rebuild_button.click()
    qtbot.waitUntil(lambda: "current" in states, timeout=10_000)
    assert states[0] == "rebuilding"
    qtbot.waitUntil(lambda: window.profile_panel.rules.revision == 2, timeout=5000)
    assert journal.profile.load().revision == 2


def test_a_mutation_schedules_a_rebuild_and_shows_the_state(
    qtbot: QtBot, window: JournalWindow, journal: Journal
) -> None:
    states: list[str] = []
    window.bridge.profile_state_changed.connect(lambda status: states.append(status.state))
    window.bridge.soft_delete("decision-test-0001", 1)
    qtbot.waitUntil(lambda: states[-1:] == ["current"], timeout=10_000)
    assert "rebuilding" in states
    assert journal.profile.load().revision == 2


def test_empty_profile_asks_for_more_evidence(qtbot: QtBot, tmp_path: Path) -> None:
    journal = make_journal(tmp_path / "empty", [record(1)])
    window = open_window(qtbot, journal, tmp_path / "empty.ini")
    try:
        window.tabs.setCurrentWidget(window.profile_panel)
        qtbot.waitUntil(window.profile_panel.empty_label.isVisible, timeout=5000)
        assert window.profile_panel.empty_label.text() == EMPTY_TEXT
        header = window.profile_panel.table.horizontalHeader()
        clipped = [
            name
            for column, name in enumerate(RuleModel.HEADERS)
            if header.sectionSize(column) < header.fontMetrics().horizontalAdvance(name)
        ]
        assert not clipped, f"column names cut short with no rules yet: {clipped}"
    finally:
        shut_down(qtbot, window)


def test_records_changed_by_another_process_rebuild_the_profile_on_refresh(
    qtbot: QtBot, window: JournalWindow, journal: Journal
) -> None:
    elsewhere = Journal.open(journal.root)  # the CLI: its own store, no listener of ours
    elsewhere.store.soft_delete("decision-test-0001", 1)
    assert journal.profile.status().state == "stale"
    states: list[str] = []
    window.bridge.profile_state_changed.connect(lambda status: states.append(status.state))
    window.bridge.read_changed_files()
    qtbot.waitUntil(lambda: states[-1:] == ["current"], timeout=10_000)
    assert journal.profile.status().state == "current"
    assert journal.profile.load().revision == 2


def test_a_refresh_without_outside_changes_does_not_rebuild(
    qtbot: QtBot, window: JournalWindow, journal: Journal
) -> None:
    with qtbot.waitSignal(window.bridge.files_read, timeout=10_000):
        window.bridge.read_changed_files()
    assert not window.bridge.profile_worker.busy
    assert journal.profile.load().revision == 1


def test_statistics_have_plain_names_explained_in_tooltips(window: JournalWindow) -> None:
    rules = window.profile_panel.rules
    headers = [rules.headerData(n, Qt.Orientation.Horizontal) for n in range(rules.columnCount())]
    assert "Wilson strength" not in headers and "Strength" in headers
    strength = headers.index("Strength")
    tip = rules.headerData(strength, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole)
    assert tip.startswith("Wilson strength: the lower bound of the 95% Wilson interval")
    right = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    for column in RuleModel.NUMERIC:
        assert rules.index(0, column).data(Qt.ItemDataRole.TextAlignmentRole) == right
    outcome_headers = window.profile_panel.outcomes.rules
    titles = [outcome_headers.horizontalHeaderItem(n).text() for n in range(len(RULE_HEADERS))]
    assert "Beta mean" not in titles and "Elo" not in titles
    assert outcome_headers.horizontalHeaderItem(4).toolTip().startswith("Beta mean:")
    assert outcome_headers.horizontalHeaderItem(5).toolTip().startswith("Elo rating:")


def test_rule_outcomes_name_rules_as_the_rules_table_does(
    qtbot: QtBot, window: JournalWindow
) -> None:
    panel = window.profile_panel
    row, rule = project_rule(window)
    outcomes = panel.outcomes
    outcomes.set_rule_outcomes({rule.id: RuleOutcome(rule.id, 4, 0, INITIAL_PATTERN_SCORE)})
    table = outcomes.rules
    assert table.item(0, 0).text() == panel.rules.index(row, 0).data() == rule_name(rule.id)
    assert table.item(0, 0).toolTip() == rule.id
    assert table.item(0, 1).text() == "Per-record JSON"
    assert table.item(0, 4).textAlignment() == int(
        Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
    )
    panel.table.clearSelection()
    panel.detail_tabs.setCurrentWidget(outcomes.rules_page)
    table.cellActivated.emit(0, 0)
    assert panel.selected_rule() is not None and panel.selected_rule().id == rule.id
    assert panel.detail_tabs.currentIndex() == 0
    outcomes.set_rule_outcomes({})
    assert table.hint == NO_RULE_FIGURES and table.rowCount() == 0


def test_the_panel_fits_a_laptop_screen(qtbot: QtBot, window: JournalWindow) -> None:
    window.resize(1366, 740)  # 1366 by 768 less a title bar
    panel = window.profile_panel
    table = panel.table
    row = table.verticalHeader().defaultSectionSize()
    qtbot.waitUntil(lambda: table.viewport().height() // row >= 12, timeout=2000)
    assert panel.detail_tabs.height() >= panel.fontMetrics().height() * 9
    panel.table.clearSelection()
    assert panel.support_view.hint == NO_RULE_SELECTED


def test_remembered_widths_too_narrow_for_a_name_are_widened(
    qtbot: QtBot, window: JournalWindow
) -> None:
    """Widths saved before names were kept whole (every column 100 pixels) come back wide
    enough to read; a wider column stays as the user left it."""
    panel = window.profile_panel
    header = panel.table.horizontalHeader()
    for column in range(header.count()):
        header.resizeSection(column, 100)
    header.resizeSection(1, 260)
    saved = header.saveState()
    panel.restore_columns(saved)
    metrics = header.fontMetrics()
    assert header.sectionSize(4) >= metrics.horizontalAdvance(RuleModel.HEADERS[4])
    assert header.sectionSize(1) == 260


def test_remembered_widths_never_cut_a_rules_key_and_the_note_takes_the_rest(
    qtbot: QtBot, window: JournalWindow
) -> None:
    """Widths saved while the table held other rules (or none) kept the rule and the scope
    at their names' width: "R-884…", "proj…". The keys come back whole; the note, empty,
    is the column that gives way."""
    panel = window.profile_panel
    table = panel.table
    header = table.horizontalHeader()
    for column in range(header.count()):
        header.resizeSection(column, header.sectionSizeHint(column))
    saved = header.saveState()
    panel.restore_columns(saved)
    with qtbot.waitSignal(window.bridge.profile_loaded, timeout=5000):
        window.bridge.load_profile()
    metrics = table.fontMetrics()
    note = panel.rules.columnCount() - 1
    for column in range(note):
        for row in range(panel.rules.rowCount()):
            text = str(panel.rules.index(row, column).data() or "")
            assert header.sectionSize(column) >= metrics.horizontalAdvance(text), (column, text)


def test_column_widths_survive_a_reloaded_profile(qtbot: QtBot, window: JournalWindow) -> None:
    header = window.profile_panel.table.horizontalHeader()
    header.resizeSection(4, 321)
    with qtbot.waitSignal(window.bridge.profile_loaded, timeout=5000):
        window.bridge.load_profile()
    assert header.sectionSize(4) == 321


def test_the_status_bar_names_the_profile_state_in_words(
    qtbot: QtBot, window: JournalWindow
) -> None:
    qtbot.waitUntil(lambda: window.profile_label.text() == "Profile: up to date", timeout=5000)
    window.panels.profile_state_changed(ProfileStatus("error", "the last rebuild failed"))
    assert window.profile_label.text() == "Profile: needs attention"
    assert window.profile_label.toolTip() == "the last rebuild failed"


def test_enabled_and_pinned_boxes_stand_out_in_the_dark(
    qtbot: QtBot, journal: Journal, tmp_path: Path
) -> None:
    """The table's check cells draw the clear indicators: an unpinned rule's empty box is a
    ring that reads on the dark base, not a shade of it."""
    window = open_window(qtbot, journal, tmp_path / "dark.ini", color_scheme=Qt.ColorScheme.Dark)
    try:
        window.tabs.setCurrentWidget(window.profile_panel)
        panel = window.profile_panel
        qtbot.waitUntil(lambda: panel.rules.rowCount() > 0, timeout=5000)
        table = panel.table
        table.clearSelection()
        row = next(n for n in range(panel.rules.rowCount()) if not panel.rules.rule(n).pinned)
        cell = table.visualRect(panel.rules.index(row, RuleModel.PINNED))
        image = table.viewport().grab(cell).toImage()
        base = table.palette().color(QPalette.ColorRole.Base)
        assert max_contrast(image, base) >= MARK_CONTRAST
    finally:
        shut_down(qtbot, window)
