"""Corrections from the edit dialog: CAS saves, no-op saves, and conflicts with other writers.

The other writers are real: a second journal window in this process, and the real CLI in a
subprocess, each committing between the moment the dialog loaded the record and the save.
"""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QScreen
from pytestqt.qtbot import QtBot

from app.gui.journal.edit_dialog import CUSTOM, NO_CHANGES_TEXT, EditDialog
from app.gui.journal.window import JournalWindow
from app.gui.widgets.screen_fit import TITLE_BAR_ALLOWANCE
from core.journal import Journal
from core.record import fields
from tests.app.support.journal_support import make_journal, open_window, press, record, shut_down

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
]
REPO = Path(__file__).resolve().parents[4]
DECISION = "decision-test-0001"
CTRL = Qt.KeyboardModifier.ControlModifier


@pytest.fixture
def journal(tmp_path: Path) -> Journal:
    return make_journal(tmp_path / "journal", [record(1)])


@pytest.fixture
def window(qtbot: QtBot, journal: Journal, tmp_path: Path) -> Iterator[JournalWindow]:
    window = open_window(qtbot, journal, tmp_path / "settings.ini")
    yield window
    shut_down(qtbot, window)


def open_editor(qtbot: QtBot, window: JournalWindow) -> EditDialog:
    qtbot.waitUntil(lambda: window.record is not None, timeout=5000)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    window.list_view.setFocus()
    press(window, Qt.Key.Key_E, CTRL)
    dialog = window.findChild(EditDialog)
    assert dialog is not None and dialog.isVisible()
    qtbot.waitUntil(dialog.isActiveWindow)
    return dialog


def save(qtbot: QtBot, window: JournalWindow, dialog: EditDialog) -> None:
    dialog.activateWindow()
    qtbot.waitUntil(dialog.isActiveWindow)
    with qtbot.waitSignal(window.bridge.mutation_finished, timeout=10_000):
        press(dialog, Qt.Key.Key_S, CTRL)


def run_cli(journal: Journal, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app.cli.main", "--journal", str(journal.root), *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_saving_a_correction_writes_the_next_revision(
    qtbot: QtBot, window: JournalWindow, journal: Journal
) -> None:
    dialog = open_editor(qtbot, window)
    dialog.reason.setPlainText("files can be merged by hand when they conflict")
    dialog.tags.setText("layout, reviewed")
    save(qtbot, window, dialog)
    qtbot.waitUntil(lambda: not dialog.isVisible())
    stored = journal.store.get(DECISION)
    assert stored.revision == 2
    assert stored.selection_reason_raw == "files can be merged by hand when they conflict"
    assert stored.tags == ["layout", "reviewed"]
    assert stored.provenance.rationale == "user"
    assert window.statusBar().currentMessage() == (
        "Saved “Choose the storage layout number 1” (revision 2)."
    )
    assert window.inspector.revision_label.text() == "REVISION 2"
    assert window.model.list_row(0).revision == 2


def test_changing_the_selection_to_other_needs_every_rejection(
    qtbot: QtBot, window: JournalWindow, journal: Journal
) -> None:
    dialog = open_editor(qtbot, window)
    dialog.selection.setCurrentIndex(dialog.selection.findData(CUSTOM))
    assert dialog.custom.isVisible()
    assert dialog.rejections["per-record"].isVisible()
    dialog.custom.setText("An append-only log")
    press(dialog, Qt.Key.Key_S, CTRL)
    rejection = dialog.rejections["per-record"]
    assert dialog.message_text == (
        "Why Per-record JSON was not selected is empty; write 1 to 4,096 bytes."
    )
    assert dialog.marked_fields() == [rejection]
    assert rejection.property("invalid") and "border" in rejection.styleSheet()
    assert rejection.hasFocus()
    assert rejection.accessibleDescription() == dialog.message_text
    rejection.setPlainText("too many small files")
    assert dialog.marked_fields() == [] and rejection.styleSheet() == ""
    save(qtbot, window, dialog)
    stored = journal.store.get(DECISION)
    assert stored.custom_selection == "An append-only log"
    assert stored.selected_option_id == ""
    assert {r.option_id: r.reason for r in stored.rejected_reasons}["per-record"] == (
        "too many small files"
    )


def test_saving_without_changes_writes_nothing(
    qtbot: QtBot, window: JournalWindow, journal: Journal
) -> None:
    dialog = open_editor(qtbot, window)
    dialog.tags.setText("layout,  Layout ")  # the same list once cleaned
    press(dialog, Qt.Key.Key_S, CTRL)
    assert dialog.message_text == NO_CHANGES_TEXT
    assert dialog.isVisible()
    assert journal.store.get(DECISION).revision == 1
    assert not (journal.root / "history" / DECISION).exists()
    press(dialog, Qt.Key.Key_Escape)
    assert not dialog.isVisible()


def test_conflict_with_another_window_keeps_the_text_and_applies_it_on_retry(
    qtbot: QtBot, window: JournalWindow, journal: Journal, tmp_path: Path
) -> None:
    other = open_window(qtbot, journal, tmp_path / "other.ini")
    try:
        mine = open_editor(qtbot, window)
        theirs = open_editor(qtbot, other)
        theirs.tags.setText("layout, from-the-other-window")
        save(qtbot, other, theirs)
        assert journal.store.get(DECISION).revision == 2

        mine.reason.setPlainText("my careful explanation")
        save(qtbot, window, mine)
        assert mine.isVisible()
        assert "it is now revision 2" in mine.message_text
        assert mine.newer_box.isVisible()
        assert "from-the-other-window" in mine.newer_text.text()
        assert mine.reason.toPlainText() == "my careful explanation"
        assert mine.expected_revision == 2
        assert window.inspector.revision_label.text() == "REVISION 2"

        save(qtbot, window, mine)
        qtbot.waitUntil(lambda: not mine.isVisible())
        stored = journal.store.get(DECISION)
        assert stored.revision == 3
        assert stored.selection_reason_raw == "my careful explanation"
        assert stored.tags == ["layout", "from-the-other-window"]  # not reverted
    finally:
        shut_down(qtbot, other)


def test_conflict_with_the_cli(qtbot: QtBot, window: JournalWindow, journal: Journal) -> None:
    dialog = open_editor(qtbot, window)
    result = run_cli(journal, "edit", DECISION, "--expected-revision", "1", "--risk", "high")
    assert result.returncode == 0, result.stderr
    assert "revision 2" in result.stdout
    dialog.alias.setText("alpha-renamed")
    save(qtbot, window, dialog)
    assert "changed elsewhere: it is now revision 2" in dialog.message_text
    assert "Risk: high" in dialog.newer_text.text()
    assert dialog.alias.text() == "alpha-renamed"
    save(qtbot, window, dialog)
    stored = journal.store.get(DECISION)
    assert (stored.revision, stored.risk_level, stored.project_alias) == (
        3,
        "high",
        "alpha-renamed",
    )


def test_a_conflicting_save_that_would_change_nothing_says_so(
    qtbot: QtBot, window: JournalWindow, journal: Journal
) -> None:
    dialog = open_editor(qtbot, window)
    result = run_cli(journal, "edit", DECISION, "--expected-revision", "1", "--risk", "high")
    assert result.returncode == 0, result.stderr
    dialog.risk.setCurrentIndex(dialog.risk.findData("high"))
    save(qtbot, window, dialog)
    assert "revision 2" in dialog.message_text
    press(dialog, Qt.Key.Key_S, CTRL)
    assert dialog.message_text == NO_CHANGES_TEXT
    assert journal.store.get(DECISION).revision == 2


def test_byte_counters_follow_the_text_and_name_the_limit(
    qtbot: QtBot, window: JournalWindow, journal: Journal
) -> None:
    dialog = open_editor(qtbot, window)
    counter = dialog.counters[dialog.reason]
    assert counter.text() == "36 / 4,096 bytes"
    dialog.custom.setText("a choice of my own")
    assert dialog.custom_counter.text() == "18 / 1,024 bytes"  # one way to write every count
    selected = dialog.counters[dialog.rejections["per-record"]]  # the selected option's
    assert not selected.isVisibleTo(dialog)
    assert dialog.counters[dialog.rejections["single"]].isVisibleTo(dialog)
    dialog.reason.setPlainText("결정")
    assert counter.count == 6  # two Hangul syllables are six UTF-8 bytes
    dialog.kind.setText("k" * 130)
    assert dialog.counters[dialog.kind].is_over
    dialog.reason.setPlainText("")
    press(dialog, Qt.Key.Key_S, CTRL)
    assert dialog.marked_fields() == [dialog.reason, dialog.kind]
    assert dialog.message_text == (
        "Why this approach was selected is empty; write 1 to 4,096 bytes. "
        "The decision kind is 130 bytes; the limit is 128 bytes."
    )
    assert journal.store.get(DECISION).revision == 1


def test_too_many_tags_and_a_store_error_mark_their_field(
    qtbot: QtBot, window: JournalWindow
) -> None:
    dialog = open_editor(qtbot, window)
    dialog.tags.setText(", ".join(f"tag{n}" for n in range(70)))
    dialog.try_save()
    assert dialog.marked_fields() == [dialog.tags]
    assert dialog.message_text == "The tag list has 70 tags; the limit is 64 tags."
    dialog.tags.setText("layout")
    assert dialog.marked_fields() == []
    dialog.show_failure("project_alias is 2,000 bytes; the limit is 1,024 bytes", "project_alias")
    assert dialog.marked_fields() == [dialog.alias] and dialog.save_button.isEnabled()
    dialog.show_failure("the store refused the tags", "tags[3]")
    assert dialog.tags in dialog.marked_fields()


def test_the_dialog_fits_the_screens_free_area(
    qtbot: QtBot, window: JournalWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 1366 by 768 laptop has less free height than the dialog's preferred 760 pixels once a
    panel and the title bar are drawn: Save and Cancel must stay on the screen."""
    free = QRect(0, 0, 1366, 768 - 24)
    monkeypatch.setattr(QScreen, "availableGeometry", lambda _screen: free)
    dialog = open_editor(qtbot, window)
    assert dialog.height() <= free.height() - TITLE_BAR_ALLOWANCE
    assert dialog.width() == 720, "only what does not fit shrinks"


def test_an_overrule_opens_the_correction_of_that_decision_once_it_is_loaded(
    qtbot: QtBot, tmp_path: Path
) -> None:
    """The tray's and the notification's "Overrule": the correction is the one asked for,
    never the decision the window showed before the asked one had loaded."""
    journal = make_journal(tmp_path / "journal", [record(1), record(2)])
    window = open_window(qtbot, journal, tmp_path / "settings.ini")
    try:
        qtbot.waitUntil(lambda: window.record is not None, timeout=5000)
        assert window.record is not None and window.record.id == "decision-test-0002"
        window.open_decision("decision-missing-0001", edit=True)  # cannot be read: no dialog
        window.open_decision(DECISION, edit=True)
        qtbot.waitUntil(lambda: window.findChild(EditDialog) is not None, timeout=5000)
        dialog = window.findChild(EditDialog)
        assert dialog is not None and dialog._original.id == DECISION
        assert window.record is not None and window.record.id == DECISION
        dialog.reject()
        window.open_decision("decision-missing-0002", edit=True)
        qtbot.waitUntil(lambda: window._edit_when_loaded == "", timeout=5000)
    finally:
        shut_down(qtbot, window)


def test_a_changed_field_limit_changes_the_dialogs_check_and_words(
    qtbot: QtBot, window: JournalWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The dialog checks the record's field table when it runs, so it refuses what a save
    would refuse and states the same number."""
    dialog = open_editor(qtbot, window)  # the record loads under the format's own limits
    kind = fields.FIELDS["decision_kind"]
    monkeypatch.setitem(fields.FIELDS, "decision_kind", dataclasses.replace(kind, most=10))
    dialog.kind.setText("k" * 11)
    dialog.try_save()
    assert dialog.marked_fields() == [dialog.kind]
    assert dialog.message_text == "The decision kind is 11 bytes; the limit is 10 bytes."
