"""A real sync conflict, shown and resolved in the journal window: keep either side, or merge.

Two journals ("laptop" and "desk") sync through a bare git remote with the real engine; both
write revision 2 of one decision, so each ends with the conflict folder. The laptop's window
badges the decision, says so in the inspector, shows both versions side by side in the history
window and resolves through the keyboard; afterwards the record, its history, its note, the
conflict folder and the store's strict read are checked, and a sync brings the desk level.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtWidgets import QApplication, QMessageBox, QPushButton
from pytestqt.qtbot import QtBot

from app.gui.journal.conflict_view import HEADLINE, ConflictPanel
from app.gui.journal.decision_delegate import CONFLICT, badges
from app.gui.journal.decision_list_model import CONFLICT_TOOLTIP
from app.gui.journal.edit_dialog import EditDialog
from app.gui.journal.history_view import HistoryDialog, HtmlRole, RevisionModel
from app.gui.journal.window import JournalWindow
from app.gui.widgets import screen_fit
from app.gui.widgets.screen_fit import TITLE_BAR_ALLOWANCE
from core.journal import Journal
from core.store.correction_notes import CorrectionNotes
from core.sync import engine as engine_module
from core.sync.conflicts import Conflict
from core.sync.engine import SyncEngine
from core.sync.keystore import KeyLocation, load_key
from core.sync.resolution import ConflictVersion, ConflictVersions
from tests.app.support.journal_support import answer, confirmation, open_window, press, shut_down
from tests.factories import make_record
from tests.integration.sync_machines import Machine, assert_kernforge_valid, bare_remote

pytestmark = [pytest.mark.qt_log_level_fail("WARNING")]
ID = "decision-queue-0001"
LAPTOP_TEXT = "laptop wrote revision 2"
DESK_TEXT = "desk wrote revision 2"
ALT = Qt.KeyboardModifier.AltModifier
CTRL = Qt.KeyboardModifier.ControlModifier


def _named(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """The machine name sync records at init or join (both "machines" share one host)."""
    monkeypatch.setattr(engine_module, "machine_name", lambda: name)


def _conflicted_pair(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, notes: tuple[str, str] = ("", "")
) -> tuple[Machine, Machine]:
    """Both machines write revision 2 (each with its own "why corrected" note, if given) and
    sync until both hold the conflict."""
    _, url = bare_remote(tmp_path)
    laptop, desk = Machine.make(tmp_path, "laptop"), Machine.make(tmp_path, "desk")
    laptop.put(ID, "Choose the queue backend")
    laptop.key_file.parent.mkdir(parents=True, exist_ok=True)
    _named(monkeypatch, "laptop")
    SyncEngine(laptop.root).init(url, encrypt=True, key_file=str(laptop.key_file))
    _named(monkeypatch, "desk")
    desk.key_file.parent.mkdir(parents=True, exist_ok=True)
    desk.key_file.write_text(laptop.key_file.read_text())
    desk.key_file.chmod(0o600)
    key = load_key(KeyLocation("file", "", str(desk.key_file)))
    SyncEngine(desk.root).join(url, key=key, key_file=str(desk.key_file))
    for machine, text, note in ((laptop, LAPTOP_TEXT, notes[0]), (desk, DESK_TEXT, notes[1])):
        machine.edit(ID, text)
        CorrectionNotes(machine.root).write(ID, 2, note)
    SyncEngine(laptop.root).sync()
    assert SyncEngine(desk.root).sync().new_conflicts == [ID]
    SyncEngine(laptop.root).sync()
    assert (laptop.root / "sync-conflicts" / ID / "conflict.json").is_file()
    return laptop, desk


@pytest.fixture(scope="module")
def conflicted_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The conflicted pair, synced once per module (a real encrypted sync over a bare remote
    takes seconds), and a pristine copy of it that every test starts from."""
    base = tmp_path_factory.mktemp("conflicted")
    with pytest.MonkeyPatch.context() as patch:
        _conflicted_pair(base / "live", patch)
    shutil.copytree(base / "live", base / "pristine", symlinks=True)
    return base


@pytest.fixture
def machines(conflicted_template: Path) -> tuple[Machine, Machine]:
    """The pair as the sync left it: restored from the pristine copy at the same paths (the
    sync state holds the remote's path), so no test sees another's edits or resolutions."""
    live = conflicted_template / "live"
    shutil.rmtree(live)
    shutil.copytree(conflicted_template / "pristine", live, symlinks=True)
    return Machine.make(live, "laptop"), Machine.make(live, "desk")


@pytest.fixture
def window(
    qtbot: QtBot, machines: tuple[Machine, Machine], tmp_path: Path
) -> Iterator[JournalWindow]:
    window = open_window(qtbot, Journal(machines[0].root), tmp_path / "settings.ini")
    qtbot.waitUntil(lambda: window.record is not None and window.record.id == ID, timeout=5000)
    qtbot.waitUntil(lambda: ID in window.conflicts.conflicted, timeout=5000)
    yield window
    shut_down(qtbot, window)


def _open_versions(qtbot: QtBot, window: JournalWindow) -> tuple[HistoryDialog, ConflictPanel]:
    """The inspector's notice, then "Choose a version…" by its mnemonic."""
    inspector = window.inspector
    assert inspector.conflict_bar.isVisible()
    assert inspector.conflict_headline.text() == "Changed on two machines: choose a version"
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    press(window, Qt.Key.Key_C, ALT)
    qtbot.waitUntil(lambda: window.findChild(HistoryDialog) is not None, timeout=5000)
    dialog = window.findChild(HistoryDialog)
    assert dialog is not None
    qtbot.waitUntil(lambda: dialog.conflict_panel is not None, timeout=10_000)
    panel = dialog.conflict_panel
    assert panel is not None and panel.view is not None
    qtbot.waitUntil(dialog.isActiveWindow)
    return dialog, panel


def _reason_row(panel: ConflictPanel) -> int:
    labels = [panel.model.index(n, 0).data() for n in range(panel.model.rowCount())]
    return labels.index("Why it was selected")


def test_the_list_and_the_inspector_mark_the_conflict(window: JournalWindow) -> None:
    model = window.model
    index = model.index(model.row_of(ID))
    assert index.data(model.ConflictRole) is True
    row = index.data(model.RowRole)
    light, dark = badges(row, conflicted=True)[0], badges(row, conflicted=True, dark=True)[0]
    assert light[0] == dark[0] == CONFLICT and light[1] != dark[1]
    assert CONFLICT not in [text for text, _colour in badges(row)]
    tooltip = index.data(Qt.ItemDataRole.ToolTipRole)
    assert tooltip.startswith(f"{CONFLICT_TOOLTIP}\n{row.problem}\n")
    spoken = index.data(Qt.ItemDataRole.AccessibleTextRole)
    assert spoken.endswith(", changed on two machines, choose a version")


def test_the_marks_leave_a_row_once_it_has_no_conflict(qtbot: QtBot, window: JournalWindow) -> None:
    model = window.model
    index = model.index(model.row_of(ID))
    with qtbot.waitSignal(model.dataChanged) as changed:
        model.set_conflicted(frozenset())
    assert changed.args[0].row() == index.row()
    assert index.data(model.ConflictRole) is False
    assert CONFLICT_TOOLTIP not in index.data(Qt.ItemDataRole.ToolTipRole)
    assert "two machines" not in index.data(Qt.ItemDataRole.AccessibleTextRole)


def test_the_inspectors_notice_is_reached_by_tab_and_named_for_a_screen_reader(
    qtbot: QtBot, window: JournalWindow
) -> None:
    inspector = window.inspector
    bar, button = inspector.conflict_bar, inspector.conflict_button
    assert bar.accessibleName() == "Changed on two machines: choose a version"
    assert "Both versions are kept" in bar.accessibleDescription()
    assert button.accessibleDescription().startswith("Changed on two machines: choose a version.")
    assert "Both versions are kept" in button.accessibleDescription()
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    inspector.history_button.setFocus()
    reached = []
    for _ in range(6):
        press(window, Qt.Key.Key_Tab)
        reached.append(QApplication.focusWidget())
        if reached[-1] is button:
            break
    assert reached[-1] is button, [w.objectName() for w in reached]
    press(window, Qt.Key.Key_Space)
    qtbot.waitUntil(lambda: window.findChild(HistoryDialog) is not None, timeout=5000)
    dialog = window.findChild(HistoryDialog)
    assert dialog is not None
    qtbot.waitUntil(lambda: dialog.conflict_panel is not None, timeout=10_000)
    dialog.close()


def test_both_versions_side_by_side_with_machine_time_and_word_diff(
    qtbot: QtBot, window: JournalWindow
) -> None:
    dialog, panel = _open_versions(qtbot, window)
    assert panel.headline.text() == HEADLINE
    assert panel.left_caption.text().startswith("laptop (this machine) · revision 2 · ")
    assert panel.right_caption.text().startswith("desk · revision 2 · ")
    assert "becomes revision 3" in panel.detail.text()
    row = _reason_row(panel)
    assert panel.model.index(row, 1).data() == LAPTOP_TEXT
    assert panel.model.index(row, 2).data() == DESK_TEXT
    left_html = panel.model.index(row, 1).data(HtmlRole)
    assert "underline" in left_html and ">laptop</span>" in left_html
    assert "line-through" not in left_html
    fields = {panel.model.index(n, 0).data() for n in range(panel.model.rowCount())}
    assert not fields & {"Revision", "Updated", "Created", "Decision ID"}
    assert panel.model.headerData(1, Qt.Orientation.Horizontal) == "laptop (this machine)"
    assert panel.keep_left.hasFocus()
    focus_chain = [panel.keep_left]
    for _ in range(3):
        press(dialog, Qt.Key.Key_Tab)
        focus_chain.append(dialog.focusWidget())
    assert focus_chain == [panel.keep_left, panel.keep_right, panel.merge_button, panel.table]
    dialog.close()


@pytest.mark.parametrize(
    "side",
    [(Qt.Key.Key_K, LAPTOP_TEXT, "laptop"), (Qt.Key.Key_P, DESK_TEXT, "desk")],
    ids=["keep-local", "keep-remote"],
)
def test_keeping_one_version_writes_revision_3_and_clears_the_conflict(
    qtbot: QtBot,
    window: JournalWindow,
    machines: tuple[Machine, Machine],
    side: tuple[Qt.Key, str, str],
) -> None:
    """Alt+K keeps this machine's version (left), Alt+P the other machine's (right)."""
    laptop, desk = machines
    key, kept, name = side
    dialog, _panel = _open_versions(qtbot, window)
    with qtbot.waitSignal(window.bridge.conflict_resolved, timeout=10_000) as resolved:
        press(dialog, key, ALT)
    assert resolved.args[0].resolution is not None
    _assert_resolved(qtbot, window, dialog, laptop, kept)
    assert dialog.status.text().startswith(f"Kept the version from {name}: revision 3.")
    note = CorrectionNotes(laptop.root).read(ID)[3].note
    other = "desk" if name == "laptop" else "laptop"
    assert (
        note
        == f"Sync conflict: kept the version written on {name}; set aside the version from {other}."
    )
    _assert_desk_follows(laptop, desk, kept)
    dialog.close()


def test_edit_to_merge_starts_from_this_machines_version_and_resolves(
    qtbot: QtBot, window: JournalWindow, machines: tuple[Machine, Machine]
) -> None:
    laptop, desk = machines
    dialog, _panel = _open_versions(qtbot, window)
    press(dialog, Qt.Key.Key_M, ALT)
    qtbot.waitUntil(lambda: window.conflicts.merge is not None, timeout=5000)
    form = window.conflicts.merge
    assert isinstance(form, EditDialog)
    qtbot.waitUntil(form.isActiveWindow)
    assert form.reason.toPlainText() == LAPTOP_TEXT  # this machine's version
    merged = "laptop and desk, merged by hand"
    form.reason.setPlainText(merged)
    form.note.setPlainText("both were half right")
    with qtbot.waitSignal(window.bridge.conflict_resolved, timeout=10_000):
        press(form, Qt.Key.Key_S, CTRL)
    qtbot.waitUntil(lambda: not form.isVisible(), timeout=5000)
    _assert_resolved(qtbot, window, dialog, laptop, merged)
    assert dialog.status.text().startswith("Merged from the version from laptop: revision 3.")
    note = CorrectionNotes(laptop.root).read(ID)[3].note
    assert note == (
        "Sync conflict: merged by hand from the version written on laptop; set aside the version "
        "from desk. both were half right"
    )
    _assert_desk_follows(laptop, desk, merged)
    dialog.close()


def _assert_resolved(
    qtbot: QtBot, window: JournalWindow, dialog: HistoryDialog, laptop: Machine, reason: str
) -> None:
    record = laptop.store.get(ID)
    assert (record.revision, record.selection_reason_raw) == (3, reason)
    history = laptop.store.history(ID)
    assert [r.revision for r in history] == [1, 2, 3]
    assert history[1].selection_reason_raw == DESK_TEXT  # revision 2 is kept as it was
    assert not (laptop.root / "sync-conflicts" / ID).exists()
    assert assert_kernforge_valid(laptop)[ID] == [1, 2, 3]
    qtbot.waitUntil(lambda: dialog.conflict_panel is None, timeout=5000)
    qtbot.waitUntil(lambda: dialog.revisions.rowCount() == 3, timeout=5000)
    qtbot.waitUntil(lambda: not window.conflicts.conflicted, timeout=5000)
    assert not window.inspector.conflict_bar.isVisible()
    assert window.record is not None and window.record.revision == 3


def _assert_desk_follows(laptop: Machine, desk: Machine, reason: str) -> None:
    """After a sync each way the desk has revision 3 and no conflict either."""
    SyncEngine(laptop.root).sync()
    SyncEngine(desk.root).sync()
    assert desk.store.get(ID).selection_reason_raw == reason
    assert not (desk.root / "sync-conflicts" / ID).exists()
    assert assert_kernforge_valid(desk)[ID] == [1, 2, 3]
    assert desk.store.history(ID) == laptop.store.history(ID)


def test_a_third_machines_version_is_chosen_on_the_right(qtbot: QtBot) -> None:
    """Three machines wrote the revision: the right side picks among the two others."""
    base = make_record(id=ID, revision=2, selection_reason_raw="here")
    versions = [
        ConflictVersion("0a0a0a0a", "laptop", base, here=True),
        ConflictVersion("0d0d0d0d", "desk", base.model_copy(update={"tags": ["desk"]}), False),
        ConflictVersion("0e0e0e0e", "", base.model_copy(update={"tags": ["vm"]}), False),
    ]
    conflict = Conflict(ID, 2, "0a0a0a0a", {v.machine: {"name": v.name} for v in versions})
    panel = ConflictPanel()
    qtbot.addWidget(panel)
    panel.set_versions(ConflictVersions(conflict, base, versions))
    assert not panel.right_choice.isHidden() and panel.right_caption.isHidden()
    assert [panel.right_choice.itemText(n) for n in range(2)] == ["desk", "0e0e0e0e"]
    assert "written on laptop (this machine), desk and 0e0e0e0e" in panel.detail.text()
    panel.right_choice.setCurrentIndex(1)
    assert panel.model.headerData(2, Qt.Orientation.Horizontal) == "0e0e0e0e"
    assert panel.model.index(0, 2).data() == "vm"
    with qtbot.waitSignal(panel.keep_chosen) as chosen:
        panel.keep_right.click()
    assert chosen.args == ["0e0e0e0e"]
    assert not panel.keep_left.isEnabled() and panel.message.text() == "Saving…"
    panel.show_error("the disk is full")
    assert panel.keep_left.isEnabled() and panel.message.text() == "the disk is full"


def test_each_versions_note_is_shown_beside_it_and_kept_in_the_history(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both notes of revision 2 share a path in corrections/: each stays with its version, in
    the panel and, after keeping one, in the history window's "Why corrected"."""
    laptop, desk = _conflicted_pair(tmp_path, monkeypatch, ("laptop edit", "desk edit"))
    window = open_window(qtbot, Journal(laptop.root), tmp_path / "settings.ini")
    try:
        qtbot.waitUntil(lambda: window.record is not None and window.record.id == ID, timeout=5000)
        qtbot.waitUntil(lambda: ID in window.conflicts.conflicted, timeout=5000)
        qtbot.waitUntil(window.inspector.conflict_bar.isVisible, timeout=5000)
        dialog, panel = _open_versions(qtbot, window)
        assert [panel.model.index(0, n).data() for n in range(3)] == [
            "Why corrected",
            "laptop edit",
            "desk edit",
        ]
        notes = [dialog.revisions.index(n, RevisionModel.NOTE).data() for n in range(2)]
        assert notes == ["", "desk edit"]  # revision 2 as it stands is the desk's
        with qtbot.waitSignal(window.bridge.conflict_resolved, timeout=10_000):
            press(dialog, Qt.Key.Key_K, ALT)
        _assert_resolved(qtbot, window, dialog, laptop, LAPTOP_TEXT)
        qtbot.waitUntil(
            lambda: "laptop edit" in str(dialog.revisions.index(2, RevisionModel.NOTE).data()),
            timeout=5000,
        )
        assert dialog.revisions.index(2, RevisionModel.NOTE).data() == (
            'Sync conflict: kept the version written on laptop (noted: "laptop edit"); set '
            'aside the version from desk (noted: "desk edit").'
        )
        assert dialog.revisions.index(1, RevisionModel.NOTE).data() == "desk edit"
        dialog.close()
        _assert_desk_follows(laptop, desk, LAPTOP_TEXT)
        assert CorrectionNotes(desk.root).read(ID)[2].note == "desk edit"
    finally:
        shut_down(qtbot, window)


# correcting, deleting, restoring a conflicted decision the ordinary way -----------------------


def _open_form(qtbot: QtBot, window: JournalWindow) -> EditDialog:
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    press(window, Qt.Key.Key_E, CTRL)
    qtbot.waitUntil(lambda: window.dialogs.edit is not None, timeout=5000)
    form = window.dialogs.edit
    assert form is not None
    qtbot.waitUntil(form.isActiveWindow)
    return form


def _assert_settled(
    qtbot: QtBot, window: JournalWindow, laptop: Machine, how: str, words: str = ""
) -> None:
    """One revision (3) on the current record, the conflict gone, a note naming both sides."""
    record = laptop.store.get(ID)
    assert record.revision == 3
    assert [r.revision for r in laptop.store.history(ID)] == [1, 2, 3]
    assert not (laptop.root / "sync-conflicts" / ID).exists()
    assert assert_kernforge_valid(laptop)[ID] == [1, 2, 3]
    note = CorrectionNotes(laptop.root).read(ID)[3].note
    expected = (
        f"Sync conflict: settled by {how} the current version (written on desk); the version "
        "from laptop set aside."
    )
    assert note == (f"{expected} {words}" if words else expected)
    qtbot.waitUntil(lambda: not window.conflicts.conflicted, timeout=5000)
    qtbot.waitUntil(lambda: not window.dialogs.conflicted, timeout=5000)
    assert not window.inspector.conflict_bar.isVisible()


def test_the_correction_form_says_saving_settles_it_and_saves_one_revision(
    qtbot: QtBot, window: JournalWindow, machines: tuple[Machine, Machine]
) -> None:
    laptop, desk = machines
    form = _open_form(qtbot, window)
    assert form.conflict_notice.isVisible() and form.settles_conflict
    assert form.conflict_notice.accessibleName() == "Changed on two machines"
    assert "Saving settles this" in form.conflict_notice.accessibleDescription()
    assert form.windowTitle() == "Correct decision (revision 2, changed on two machines)"
    assert form.reason.toPlainText() == DESK_TEXT  # the current version, as the list shows it
    assert form.versions_button.hasFocus()  # read first: before any field, what saving does
    assert "Saving settles this" in form.versions_button.accessibleDescription()
    press(form, Qt.Key.Key_Tab)
    assert form.selection.hasFocus()
    form.tags.setText("queue, settled")
    form.note.setPlainText("tags were missing")
    with qtbot.waitSignal(window.bridge.mutation_finished, timeout=10_000) as finished:
        press(form, Qt.Key.Key_S, CTRL)
    assert finished.args[0].settled and finished.args[0].record.revision == 3
    qtbot.waitUntil(lambda: not form.isVisible(), timeout=5000)
    _assert_settled(qtbot, window, laptop, "correcting", "tags were missing")
    record = laptop.store.get(ID)
    assert (record.selection_reason_raw, record.tags) == (DESK_TEXT, ["queue", "settled"])
    assert (
        window.statusBar()
        .currentMessage()
        .endswith(
            "(revision 3). Its sync conflict is settled: the other machine's version is set aside."
        )
    )
    _assert_desk_follows(laptop, desk, DESK_TEXT)


def test_choose_a_version_from_the_form_shows_both_and_keeps_the_form(
    qtbot: QtBot, window: JournalWindow
) -> None:
    form = _open_form(qtbot, window)
    form.tags.setText("typed before comparing")
    press(form, Qt.Key.Key_H, ALT)
    qtbot.waitUntil(lambda: window.findChild(HistoryDialog) is not None, timeout=5000)
    dialog = window.findChild(HistoryDialog)
    assert dialog is not None
    qtbot.waitUntil(lambda: dialog.conflict_panel is not None, timeout=10_000)
    assert form.isVisible() and form.tags.text() == "typed before comparing"
    dialog.close()
    form.reject()


def test_a_save_from_a_form_that_did_not_know_of_the_conflict_is_refused_then_settles(
    qtbot: QtBot, window: JournalWindow, machines: tuple[Machine, Machine]
) -> None:
    """The form opened before the window heard of the conflict: the core refuses the save,
    the form shows the notice, and the next Save settles it."""
    laptop, _desk = machines
    form = _open_form(qtbot, window)
    form.set_sync_conflict(False)  # as opened before the listing arrived
    form.tags.setText("late")
    with qtbot.waitSignal(window.bridge.mutation_finished, timeout=10_000) as refused:
        press(form, Qt.Key.Key_S, CTRL)
    assert refused.args[0].settled and refused.args[0].record is None
    assert laptop.store.get(ID).revision == 2
    assert form.isVisible() and form.conflict_notice.isVisible() and form.settles_conflict
    assert form.message_text.startswith(f"Decision {ID} was changed on 2 machines (")
    assert form.message_text.endswith("Save again to settle it, or choose a version first.")
    with qtbot.waitSignal(window.bridge.mutation_finished, timeout=10_000) as saved:
        press(form, Qt.Key.Key_S, CTRL)
    assert saved.args[0].record is not None and saved.args[0].record.revision == 3
    _assert_settled(qtbot, window, laptop, "correcting")


def _confirm(qtbot: QtBot, window: JournalWindow) -> QMessageBox:
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    window.list_view.setFocus()
    press(window.list_view, Qt.Key.Key_Delete)
    return confirmation(qtbot, window)


def test_soft_delete_says_it_settles_the_conflict_and_offers_the_versions_first(
    qtbot: QtBot, window: JournalWindow, machines: tuple[Machine, Machine]
) -> None:
    laptop, desk = machines
    box = _confirm(qtbot, window)
    assert "Soft-deleting settles that, on the version shown" in box.informativeText()
    choose = next(b for b in box.findChildren(QPushButton) if b.text() == "Choose a version…")
    choose.click()
    qtbot.waitUntil(lambda: window.findChild(QMessageBox, "confirm-box") is None, timeout=5000)
    qtbot.waitUntil(lambda: window.findChild(HistoryDialog) is not None, timeout=5000)
    dialog = window.findChild(HistoryDialog)
    assert dialog is not None
    dialog.close()
    assert laptop.store.get(ID).revision == 2
    answer(qtbot, window, _confirm(qtbot, window), "Soft-delete")
    assert laptop.store.get(ID).is_deleted
    _assert_settled(qtbot, window, laptop, "soft-deleting")
    SyncEngine(laptop.root).sync()
    SyncEngine(desk.root).sync()
    assert desk.store.get(ID) == laptop.store.get(ID) and desk.store.get(ID).is_deleted
    assert not (desk.root / "sync-conflicts" / ID).exists()
    assert assert_kernforge_valid(desk)[ID] == [1, 2, 3]


def test_the_versions_window_fits_a_laptop_screen_with_close_on_it(
    qtbot: QtBot, window: JournalWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both versions want 980 by 760; a 1366 by 768 laptop has 741 under its panel, and the
    window's Close must stay on the screen, title bar included."""
    laptop = QRect(0, 27, 1366, 741)
    monkeypatch.setattr(screen_fit, "free_area", lambda _window: laptop)
    window.move(0, 20)
    dialog, _panel = _open_versions(qtbot, window)
    assert dialog.width() >= 980
    assert dialog.height() <= laptop.height() - TITLE_BAR_ALLOWANCE
    close = next(
        button
        for button in dialog.findChildren(QPushButton)
        if button.text().replace("&", "") == "Close"
    )
    corner = close.mapTo(dialog, close.rect().bottomRight())
    assert dialog.rect().contains(corner)
    frame = dialog.frameGeometry()
    assert laptop.top() <= frame.top()
    assert frame.top() + dialog.height() + TITLE_BAR_ALLOWANCE // 2 <= laptop.bottom() + 1
