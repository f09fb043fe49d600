"""History people can read: field labels in words, changed words marked, and the "why
corrected" note typed in the edit dialog shown with its author and time."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from app.gui.journal.edit_dialog import EditDialog
from app.gui.journal.history_diff import changed_words, field_label, field_value, word_diff
from app.gui.journal.history_view import HistoryDialog, HtmlRole, diff_records
from app.gui.journal.window import JournalWindow
from core.journal import Journal
from core.store.correction_notes import CorrectionNotes
from tests.app.support.journal_support import make_journal, open_window, press, record, shut_down

pytestmark = [pytest.mark.qt_log_level_fail("WARNING")]
DECISION = "decision-test-0001"
CTRL = Qt.KeyboardModifier.ControlModifier


@pytest.fixture
def journal(tmp_path: Path) -> Journal:
    return make_journal(tmp_path / "journal", [record(1)])


@pytest.fixture
def window(qtbot: QtBot, journal: Journal, tmp_path: Path) -> Iterator[JournalWindow]:
    window = open_window(qtbot, journal, tmp_path / "settings.ini")
    qtbot.waitUntil(lambda: window.record is not None, timeout=5000)
    yield window
    shut_down(qtbot, window)


def test_fields_have_labels_in_words() -> None:
    before = record(1)
    assert field_label("selection_reason_raw", before) == "Why it was selected"
    assert field_label("summary_sentence", before) == "Summary (stored Korean sentence)"
    assert field_label("rejected_reasons[sqlite].reason", before) == "Why not “SQLite database”"
    assert field_label("options[single].label", before) == "Approach “Single document”: name"
    assert field_value("selected_option_id", "sqlite", before) == "SQLite database"
    assert "+0000" not in field_value("updated_at", "2025-10-09T08:53:20Z", before)
    assert field_value("tags", "", before) == "—"


def test_only_the_changed_words_are_marked() -> None:
    old, new = word_diff(
        "independent files avoid lost updates", "independent files avoid lost writes\nlater"
    )
    assert changed_words(old) == ["updates"]
    assert changed_words(new) == ["writes", "later"]
    assert "".join(s.text for s in old) == "independent files avoid lost updates"
    same_old, same_new = word_diff("a  b", "a b")
    assert changed_words(same_old) == [] and changed_words(same_new) == []


def test_diff_rows_read_as_words_and_mark_changes(qtmodeltester: ModelTester, qtbot: QtBot) -> None:
    before = record(1)
    after = record(
        1, revision=2, selection_reason_raw="independent files avoid lost writes", tags=["x"]
    )
    dialog = HistoryDialog(DECISION, before.problem)
    qtbot.addWidget(dialog)
    dialog.set_revisions([before, after])
    qtmodeltester.check(dialog.diff)
    rows = {
        dialog.diff.index(n, 0).data(): n
        for n in range(dialog.diff.rowCount())
        if dialog.diff.index(n, 0).data()
    }
    assert "selection_reason_raw" not in rows and "Why it was selected" in rows
    row = rows["Why it was selected"]
    assert dialog.diff.index(row, 0).data(Qt.ItemDataRole.ToolTipRole) == "selection_reason_raw"
    removed = dialog.diff.index(row, 1).data(HtmlRole)
    added = dialog.diff.index(row, 2).data(HtmlRole)
    assert "line-through" in removed and ">updates</span>" in removed
    assert ">writes</span>" in added and "independent files avoid lost " in added
    assert dialog.diff_table.rowHeight(row) > 0
    labels = {change.label for change in diff_records(before, after) if change.changed}
    assert labels == {"Revision", "Why it was selected", "Tags"}


def test_a_correction_note_is_saved_and_shown_in_history(
    qtbot: QtBot, window: JournalWindow, journal: Journal
) -> None:
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    window.dialogs.edit_current()
    dialog = window.findChild(EditDialog)
    assert dialog is not None
    qtbot.waitUntil(dialog.isActiveWindow)
    dialog.reason.setPlainText("independent files avoid lost writes")
    dialog.note.setPlainText("the agent's summary of my reason was wrong")
    assert dialog.counters[dialog.note].count == len("the agent's summary of my reason was wrong")
    with qtbot.waitSignal(window.bridge.mutation_finished, timeout=10_000):
        press(dialog, Qt.Key.Key_S, CTRL)
    qtbot.waitUntil(lambda: not dialog.isVisible())
    stored = journal.store.get(DECISION)
    assert stored.revision == 2
    assert "the agent's summary" not in stored.model_dump_json()  # the record is untouched
    note = CorrectionNotes(journal.root).read(DECISION)[2]
    assert note.note == "the agent's summary of my reason was wrong"

    qtbot.waitUntil(lambda: window.record is not None and window.record.revision == 2)
    window.dialogs.show_history()
    history = window.findChild(HistoryDialog)
    assert history is not None
    qtbot.waitUntil(lambda: history.revisions.rowCount() == 2, timeout=5000)
    assert history.status.text().startswith("2 revisions.")
    assert history.revisions.index(1, 4).data() == note.note
    tooltip = history.revisions.index(1, 4).data(Qt.ItemDataRole.ToolTipRole)
    assert note.note in tooltip and (f"by {note.author}" in tooltip or not note.author)
    assert history.note_label.isVisible()
    assert history.note_label.text().startswith("Why revision 2 was made (")
    assert history.note_label.text().endswith(note.note)
    history.compare(1, 1)
    assert not history.note_label.isVisible()
    history.close()


def test_a_note_over_its_limit_is_marked(qtbot: QtBot, window: JournalWindow) -> None:
    window.dialogs.edit_current()
    dialog = window.findChild(EditDialog)
    assert dialog is not None
    dialog.tags.setText("layout, reviewed")
    dialog.note.setPlainText("가" * 1400)
    dialog.try_save()
    assert dialog.marked_fields() == [dialog.note]
    assert dialog.message_text == "Why corrected is 4,200 bytes; the limit is 4,096 bytes."
    dialog.close()
