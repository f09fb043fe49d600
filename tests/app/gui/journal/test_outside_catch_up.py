"""The window reloads whenever its rows are out of date, whoever brought the index up to date.

A sync writes record files; if another process (a `decision-journal list` loop in a terminal)
reconciles the shared index before the app does, the app's own reconcile finds nothing left to
read and counts nothing. The index generation still moved, and the window reloads on it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from app.gui.journal.window import JournalWindow
from core.index.journal_index import JournalIndex
from core.store.decisions import DecisionStore
from tests.app.support.journal_support import make_journal, open_window, record, shut_down

pytestmark = [pytest.mark.qt_log_level_fail("WARNING")]


@pytest.fixture
def window(qtbot: QtBot, tmp_path: Path) -> Iterator[JournalWindow]:
    """A window over a journal of one decision, reconciled once since it showed its page."""
    journal = make_journal(tmp_path / "journal", [record(1)])
    window = open_window(qtbot, journal, tmp_path / "settings.ini")
    with qtbot.waitSignal(window.bridge.files_read, timeout=10_000):
        window.bridge.read_changed_files()  # the window knows the index as it stands
    yield window
    shut_down(qtbot, window)


def test_records_another_process_indexed_first_still_reach_the_window(
    qtbot: QtBot, window: JournalWindow
) -> None:
    root = window.bridge.journal.root
    assert window.model.rowCount() == 1
    # a sync brings a record; a terminal's `list` (its own index) catches up first
    DecisionStore(root).put(record(2))
    elsewhere = JournalIndex(root, DecisionStore(root))
    try:
        assert elsewhere.read_changed_files().added == 1
    finally:
        elsewhere.close()
    # then the app's notice that records arrived: its reconcile has nothing left to read
    with qtbot.waitSignal(window.bridge.files_read, timeout=10_000) as caught:
        window.bridge.read_changed_files()
    report = caught.args[0]
    assert (report.added, report.changed, report.removed) == (0, 0, 0)
    qtbot.waitUntil(lambda: window.model.rowCount() == 2, timeout=5000)
    ids = {window.model.index(n, 0).data(window.model.DecisionIdRole) for n in range(2)}
    assert ids == {"decision-test-0001", "decision-test-0002"}


def test_a_reconcile_that_finds_the_index_as_shown_reloads_nothing(
    qtbot: QtBot, window: JournalWindow
) -> None:
    generation = window.bridge.index.read_changed_files().generation
    counted: list[object] = []
    window.scope_counted.connect(lambda: counted.append(True))
    with qtbot.waitSignal(window.bridge.files_read, timeout=10_000) as again:
        window.bridge.read_changed_files()
    assert again.args[0].generation == generation
    qtbot.wait(200)
    assert counted == []
