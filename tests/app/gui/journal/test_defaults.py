"""What the journal window opens on and keeps: scope, per-journal settings, order, the detail
pane's place, local times, clickable evidence and the summary language, driven through the
real widgets."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QLocale, Qt, QUrl
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from app.gui.journal.decision_delegate import badges
from app.gui.journal.decision_details import SUMMARY_KOREAN, evidence_url
from app.gui.journal.decision_list_model import DecisionListModel
from app.gui.journal.formatting import count_text, display_time, display_time_precise
from app.gui.journal.requests import (
    SCOPE_ALL,
    SCOPE_CURRENT,
    SORT_OLDEST,
    SORT_PROBLEM,
    FilterState,
)
from app.gui.journal.window import JournalWindow
from app.gui.journal.window_settings import journal_settings_group
from core.capture.machine import CaptureService
from core.gocompat.gotime import GoTime
from core.journal import Journal
from tests.app.support.journal_support import (
    BASE_NS,
    PROJECT_B,
    UrlSpy,
    make_journal,
    open_window,
    record,
    remember_filters,
    settings_at,
    shut_down,
)
from tests.factories import proposal_dict

pytestmark = [pytest.mark.qt_log_level_fail("WARNING")]
BETA = {"project_id": PROJECT_B, "project_alias": "beta", "workspace": "/src/beta"}


def problems(window: JournalWindow) -> list[str]:
    return [window.model.list_row(n).problem for n in range(window.model.rowCount())]


def _two_projects(root: Path) -> Journal:
    return make_journal(
        root,
        [
            record(1, problem="Pick a cache eviction policy"),
            record(2, problem="Name the socket file", **BETA),
            record(3, problem="Choose the retry schedule"),
        ],
    )


def test_current_project_is_the_newest_decisions_not_a_waiting_one(
    qtbot: QtBot, tmp_path: Path
) -> None:
    journal = _two_projects(tmp_path / "journal")
    CaptureService(journal.store, journal.pending).begin(
        proposal_dict(problem="A question from another workspace"),
        workspace=str(tmp_path / "elsewhere"),
        session_id="session-waiting",
        agent="Codex",
    )
    window = open_window(qtbot, journal, tmp_path / "settings.ini")
    try:
        assert window.filter_bar.state.scope == SCOPE_CURRENT
        assert problems(window) == ["Choose the retry schedule", "Pick a cache eviction policy"]
        assert window.caption.text() == "2 of 2 decisions loaded"
        qtbot.waitUntil(lambda: "alpha" in window.filter_bar.scope.itemText(0), timeout=5000)
    finally:
        shut_down(qtbot, window)


def test_an_empty_remembered_scope_opens_on_all_projects_then_offers_one_click(
    qtbot: QtBot, tmp_path: Path
) -> None:
    journal = _two_projects(tmp_path / "journal")
    settings = remember_filters(
        tmp_path / "settings.ini", journal, FilterState(scope=SCOPE_CURRENT, query="socket")
    )
    window = JournalWindow(journal, settings=settings_at(settings), open_url=UrlSpy())
    try:
        with qtbot.waitSignal(window.scope_counted, timeout=10_000):
            window.present()
        qtbot.waitUntil(lambda: problems(window) == ["Name the socket file"], timeout=5000)
        assert window.filter_bar.state.scope == SCOPE_ALL
        assert window.filter_bar.scope.currentData() == SCOPE_ALL

        with qtbot.waitSignal(window.scope_counted, timeout=5000):
            window.filter_bar.scope.setCurrentIndex(0)
            window.filter_bar.scope.activated.emit(0)
        assert window.list_stack.currentWidget() is window.empty_page
        assert window.elsewhere_button.isVisible()
        assert window.elsewhere_button.text() == "Show 1 decision in other projects"
        with qtbot.waitSignal(window.scope_counted, timeout=5000):
            QTest.mouseClick(window.elsewhere_button, Qt.MouseButton.LeftButton)
        assert problems(window) == ["Name the socket file"]
        assert window.filter_bar.state.scope == SCOPE_ALL
    finally:
        shut_down(qtbot, window)


def test_settings_are_kept_per_journal(qtbot: QtBot, tmp_path: Path) -> None:
    settings = tmp_path / "settings.ini"
    first_journal = _two_projects(tmp_path / "first")
    second_journal = _two_projects(tmp_path / "second")
    first = open_window(qtbot, first_journal, settings)
    try:
        with qtbot.waitSignal(first.scope_counted, timeout=5000):
            QTest.keyClicks(first.filter_bar.search, "retry")
        assert problems(first) == ["Choose the retry schedule"]
    finally:
        shut_down(qtbot, first)
    second = open_window(qtbot, second_journal, settings)
    try:
        assert second.filter_bar.search.text() == ""
        assert len(problems(second)) == 2
    finally:
        shut_down(qtbot, second)
    again = open_window(qtbot, first_journal, settings)
    try:
        assert again.filter_bar.search.text() == "retry"
        assert problems(again) == ["Choose the retry schedule"]
        again.profile_panel.table.horizontalHeader().resizeSection(3, 333)
    finally:
        shut_down(qtbot, again)
    third = open_window(qtbot, first_journal, settings)
    try:
        assert third.profile_panel.table.horizontalHeader().sectionSize(3) == 333
    finally:
        shut_down(qtbot, third)
    stored = settings_at(settings)
    group = journal_settings_group(first_journal.root)
    assert stored.value(f"{group}/path") == str(first_journal.root)


def test_the_sort_box_orders_every_match(qtbot: QtBot, tmp_path: Path) -> None:
    journal = _two_projects(tmp_path / "journal")
    settings = remember_filters(tmp_path / "s.ini", journal, FilterState(scope=SCOPE_ALL))
    window = open_window(qtbot, journal, settings)
    try:
        sort = window.filter_bar.sort
        assert sort.currentText() == "Newest first"
        for value, expected in (
            (
                SORT_OLDEST,
                [
                    "Pick a cache eviction policy",
                    "Name the socket file",
                    "Choose the retry schedule",
                ],
            ),
            (
                SORT_PROBLEM,
                [
                    "Choose the retry schedule",
                    "Name the socket file",
                    "Pick a cache eviction policy",
                ],
            ),
        ):
            with qtbot.waitSignal(window.scope_counted, timeout=5000):
                sort.setCurrentIndex(sort.findData(value))
                sort.activated.emit(sort.currentIndex())
            assert problems(window) == expected
            assert window.caption.text() == "3 of 3 decisions loaded"
    finally:
        shut_down(qtbot, window)


def test_another_decision_opens_at_its_fork(qtbot: QtBot, tmp_path: Path) -> None:
    long_reason = " ".join(["a long rationale that fills the pane"] * 80)
    journal = make_journal(
        tmp_path / "journal",
        [record(1, selection_reason_raw=long_reason), record(2, selection_reason_raw=long_reason)],
    )
    window = open_window(qtbot, journal, tmp_path / "settings.ini")
    try:
        window.resize(1000, 600)
        qtbot.waitUntil(lambda: window.record is not None, timeout=5000)
        bar = window.inspector.scroll_area.verticalScrollBar()
        qtbot.waitUntil(lambda: bar.maximum() > 0, timeout=5000)
        bar.setValue(bar.maximum())
        window.list_view.setCurrentIndex(window.model.index(1))
        qtbot.waitUntil(
            lambda: window.record is not None and window.record.id == "decision-test-0001"
        )
        assert bar.value() == 0
    finally:
        shut_down(qtbot, window)


def test_times_are_local_and_in_the_locales_format() -> None:
    previous = QLocale()
    QLocale.setDefault(QLocale(QLocale.Language.English, QLocale.Country.UnitedStates))
    try:
        moment = GoTime(BASE_NS)
        local = moment.to_datetime().astimezone()
        shown = display_time(moment)
        assert "+0000" not in shown and "+" not in display_time_precise(moment)
        assert shown.startswith(f"{local.month}/{local.day}/{local.strftime('%y')}")
        assert display_time_precise(moment).endswith(local.tzname() or "")
        assert f":{local.second:02d}" in display_time_precise(moment)
    finally:
        QLocale.setDefault(previous)
    assert count_text(1, "decision") == "1 decision"
    assert count_text(4375, "decision") == "4,375 decisions"


def test_evidence_references_open_files_and_addresses(qtbot: QtBot, tmp_path: Path) -> None:
    workspace = tmp_path / "alpha"
    (workspace / "core").mkdir(parents=True)
    (workspace / "core" / "store.py").write_text("x = 1\n")
    refs = ["core/store.py:10", "https://example.org/adr/12", "missing/file.py", "ticket 42"]
    journal = make_journal(
        tmp_path / "journal", [record(1, workspace=str(workspace), evidence_refs=refs)]
    )
    spy = UrlSpy()
    window = open_window(qtbot, journal, tmp_path / "settings.ini", open_url=spy)
    try:
        qtbot.waitUntil(lambda: window.record is not None, timeout=5000)
        details = window.inspector.details
        shown = details.text("evidence")
        assert shown.count("<a href=") == 3 and "ticket 42" in shown
        details.activate_evidence(0)
        details.activate_evidence(1)
        assert spy.urls == [
            QUrl.fromLocalFile(str(workspace / "core" / "store.py")),
            QUrl("https://example.org/adr/12"),
        ]
        details.activate_evidence(2)
        assert len(spy.urls) == 2
        assert "does not exist" in window.statusBar().currentMessage()
    finally:
        shut_down(qtbot, window)
    assert evidence_url("ticket 42", "/w") is None
    assert evidence_url("/abs/path.py:3:7", "") == QUrl.fromLocalFile("/abs/path.py")


def test_the_summary_language_shown_first_is_a_remembered_setting(
    qtbot: QtBot, tmp_path: Path
) -> None:
    journal = make_journal(tmp_path / "journal", [record(1)])
    settings = tmp_path / "settings.ini"
    window = open_window(qtbot, journal, settings)
    try:
        details = window.inspector.details
        assert details.summary_order() == ["summary-en", "summary-ko"]
        window.summary_actions[SUMMARY_KOREAN].trigger()
        assert details.summary_order() == ["summary-ko", "summary-en"]
    finally:
        shut_down(qtbot, window)
    again = open_window(qtbot, journal, settings)
    try:
        assert again.inspector.details.summary_order() == ["summary-ko", "summary-en"]
        assert again.summary_actions[SUMMARY_KOREAN].isChecked()
    finally:
        shut_down(qtbot, again)


def test_without_a_locale_times_are_iso() -> None:
    previous = QLocale()
    QLocale.setDefault(QLocale.c())
    try:
        moment = GoTime(BASE_NS)
        local = moment.to_datetime().astimezone()
        assert display_time(moment) == local.strftime("%Y-%m-%d %H:%M")
        assert display_time_precise(moment) == local.strftime("%Y-%m-%d %H:%M:%S %Z").rstrip()
    finally:
        QLocale.setDefault(previous)


def test_a_first_window_fits_the_screen(qtbot: QtBot, tmp_path: Path) -> None:
    journal = make_journal(tmp_path / "journal", [record(1)])
    window = open_window(qtbot, journal, tmp_path / "settings.ini")
    try:
        free = window.screen().availableGeometry()
        assert window.frameGeometry().height() <= free.height()
        assert window.height() <= int(free.height() * 0.94)
    finally:
        shut_down(qtbot, window)


def test_a_long_scope_is_elided_with_the_whole_name_in_the_tooltip(
    qtbot: QtBot, tmp_path: Path
) -> None:
    alias = "a-rather-long-project-alias-for-the-billing-service"
    journal = make_journal(tmp_path / "journal", [record(1, project_alias=alias)])
    window = open_window(qtbot, journal, tmp_path / "settings.ini")
    try:
        scope = window.filter_bar.scope
        qtbot.waitUntil(lambda: alias in scope.itemText(0), timeout=5000)
        assert scope.itemText(0) == f"Current: {alias}"
        assert scope.shown_text().endswith("…") and len(scope.shown_text()) < len(alias)
        assert scope.toolTip() == f"Scope: Current: {alias}"
        assert scope.itemData(0, Qt.ItemDataRole.ToolTipRole) == f"Current: {alias}"
    finally:
        shut_down(qtbot, window)


def test_a_stored_control_character_shows_as_its_code_in_the_list_and_the_inspector(
    qtbot: QtBot, tmp_path: Path
) -> None:
    """A record from before the proposal rule (or from sync or an import) must read in the
    window as it is stored: no bidi override reorders it, no escape hides part of it."""
    hostile = record(1, problem="Pick \u202eevil\u202c \x1b[31mred", decision_kind="k\u2066ind")
    hostile.options[0].label = "\u202eetadpu ton od"
    journal = make_journal(tmp_path / "journal", [hostile])
    window = open_window(qtbot, journal, tmp_path / "settings.ini")
    try:
        qtbot.waitUntil(lambda: window.record is not None, timeout=5000)
        assert window.inspector.problem_label.text() == ("Pick \\u202eevil\\u202c \\u001b[31mred")
        tree = window.inspector.fork.tree
        assert tree is not None and tree.problem == window.inspector.problem_label.text()
        assert tree.branches[0].label == "\\u202eetadpu ton od"
        meta, _when = window.model.index(0).data(DecisionListModel.MetaRole)
        assert meta.startswith("Selected: \\u202eetadpu ton od")
        row = window.model.index(0).data(DecisionListModel.RowRole)
        assert badges(row)[0][0] == "k\\u2066ind"
    finally:
        shut_down(qtbot, window)
