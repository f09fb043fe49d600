"""The window reloads whenever its rows are out of date, whoever brought the index up to date.

A sync writes record files; if another process (a `decision-journal list` loop in a terminal)
reconciles the shared index before the app does, the app's own reconcile finds nothing left to
read and counts nothing. The index generation still moved, and the window reloads on it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from core.index.journal_index import JournalIndex
from core.store.decisions import DecisionStore
from tests.app.support.journal_support import make_journal, open_window, record, shut_down

pytestmark = [pytest.mark.qt_log_level_fail("WARNING")]


def test_records_another_process_indexed_first_still_reach_the_window(
    qtbot: QtBot, tmp_path: Path
) -> None:
    journal = make_journal(tmp_path / "journal", [record(1)])
    window = open_window(qtbot, journal, tmp_path / "settings.ini")
    try:
        qtbot.waitUntil(lambda: window.model.rowCount() == 1, timeout=5000)
        with qtbot.waitSignal(window.bridge.reconciled, timeout=10_000):
            window.bridge.reconcile()  # the window knows the index as it stands
        # a sync brings a record; a terminal's `list` (its own index) catches up first
        DecisionStore(journal.root).put(record(2))
        elsewhere = JournalIndex(journal.root, DecisionStore(journal.root))
        try:
            assert elsewhere.reconcile().added == 1
        finally:
            elsewhere.close()
        # then the app's notice that records arrived: its reconcile has nothing left to read
        with qtbot.waitSignal(window.bridge.reconciled, timeout=10_000) as caught:
            window.bridge.reconcile()
        report = caught.args[0]
        assert (report.added, report.changed, report.removed) == (0, 0, 0)
        qtbot.waitUntil(lambda: window.model.rowCount() == 2, timeout=5000)
        ids = {window.model.index(n, 0).data(window.model.DecisionIdRole) for n in range(2)}
        assert ids == {"decision-test-0001", "decision-test-0002"}
    finally:
        shut_down(qtbot, window)


def test_a_reconcile_that_finds_the_index_as_shown_reloads_nothing(
    qtbot: QtBot, tmp_path: Path
) -> None:
    journal = make_journal(tmp_path / "journal", [record(1)])
    window = open_window(qtbot, journal, tmp_path / "settings.ini")
    try:
        with qtbot.waitSignal(window.bridge.reconciled, timeout=10_000) as first:
            window.bridge.reconcile()
        counted: list[object] = []
        window.scope_counted.connect(counted.append)
        with qtbot.waitSignal(window.bridge.reconciled, timeout=10_000) as second:
            window.bridge.reconcile()
        assert second.args[0].generation == first.args[0].generation
        qtbot.wait(200)
        assert counted == []
    finally:
        shut_down(qtbot, window)
