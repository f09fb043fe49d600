"""The decision on screen is never swapped under the reader, whichever answer lands last.

The case that once did swap it: an imported decision outside the list's scope (opened from
elsewhere) is confirmed on a revision that changed meanwhile. Two answers then race: the
confirmation's "changed elsewhere" and the reload the commit (or F5) started. Each order is
forced here: the reload is held back (its settle timer stopped, or F5 pressed later), or the
confirmation is (its revise waits on an event), so the test does not depend on timing.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from app.gui.journal import conflict_jobs
from app.gui.journal.inspector import OUTSIDE_TEXT
from app.gui.journal.requests import SCOPE_CURRENT
from app.gui.journal.window import JournalWindow
from core.journal import Journal
from core.record.models import Provenance
from tests.app.support.journal_support import (
    PROJECT_B,
    make_journal,
    open_window,
    record,
    shut_down,
)

OUTSIDE = "decision-test-0001"
"""Imported into another project, older than the others: never in "Current project"."""
SOON_MS = 5000


@pytest.fixture
def journal(tmp_path: Path) -> Journal:
    imported = record(
        1,
        project_id=PROJECT_B,
        project_alias="beta",
        tags=["imported"],
        provenance=Provenance(options="imported", selection="imported", rationale="imported"),
    )
    return make_journal(tmp_path / "journal", [imported, record(2), record(3)])


@pytest.fixture
def window(qtbot: QtBot, journal: Journal, tmp_path: Path) -> Iterator[JournalWindow]:
    window = open_window(qtbot, journal, tmp_path / "settings.ini")
    assert window.filter_bar.state.scope == SCOPE_CURRENT
    yield window
    shut_down(qtbot, window)


def _listed(window: JournalWindow) -> list[str]:
    return [window.model.list_row(n).id for n in range(window.model.rowCount())]


def _show_outside(qtbot: QtBot, window: JournalWindow) -> None:
    window.open_decision(OUTSIDE)
    qtbot.waitUntil(lambda: window.is_shown(OUTSIDE), timeout=SOON_MS)
    assert OUTSIDE not in _listed(window)
    assert window.inspector.confirm_button.isVisible()


def _change_elsewhere(qtbot: QtBot, window: JournalWindow, journal: Journal) -> None:
    """Revision 2 lands while the window shows revision 1; its reload is held back."""
    journal.store.revise(OUTSIDE, 1, lambda r: setattr(r, "risk_level", "high"))
    qtbot.waitUntil(window.change_timer.isActive, timeout=SOON_MS)
    window.change_timer.stop()


def _reload(qtbot: QtBot, window: JournalWindow, how: str) -> None:
    """Lets the held-back reload land: the commit's own, or the one F5 asks for."""
    with qtbot.waitSignal(window.scope_counted, timeout=SOON_MS):
        if how == "commit":
            window.change_timer.start(0)
        else:
            window.refresh_now()
    qtbot.waitUntil(lambda: window.record is not None and window.record.revision == 2)


def _assert_kept(window: JournalWindow) -> None:
    assert window.is_shown(OUTSIDE)
    assert window.record is not None and window.record.revision == 2
    assert "changed elsewhere" in window.notice.text()
    assert OUTSIDE not in _listed(window) and window.model.rowCount() == 2
    assert not window.list_view.currentIndex().isValid()
    label = window.inspector.outside_label
    assert label.isVisible() and label.text() == OUTSIDE_TEXT


@pytest.mark.parametrize("how", ["commit", "refresh"])
def test_a_reload_landing_after_the_stale_confirm_keeps_the_decision(
    qtbot: QtBot, window: JournalWindow, journal: Journal, how: str
) -> None:
    _show_outside(qtbot, window)
    _change_elsewhere(qtbot, window, journal)
    with qtbot.waitSignal(window.bridge.mutation_finished, timeout=SOON_MS) as blocker:
        window.inspector.confirm_button.click()
    assert blocker.args[0].newer is not None
    _reload(qtbot, window, how)
    qtbot.wait(100)  # the list's selection timer would have loaded another decision by now
    _assert_kept(window)
    assert journal.store.get(OUTSIDE).provenance.selection == "imported"


@pytest.mark.parametrize("how", ["commit", "refresh"])
def test_a_stale_confirm_answer_landing_after_the_reload_keeps_the_decision(
    qtbot: QtBot,
    window: JournalWindow,
    journal: Journal,
    monkeypatch: pytest.MonkeyPatch,
    how: str,
) -> None:
    release = threading.Event()
    revise = conflict_jobs.revise

    def held_back(*args: Any, **kwargs: Any) -> Any:
        assert release.wait(SOON_MS / 1000)
        return revise(*args, **kwargs)

    monkeypatch.setattr(conflict_jobs, "revise", held_back)
    _show_outside(qtbot, window)
    _change_elsewhere(qtbot, window, journal)
    answers: list[object] = []
    window.bridge.mutation_finished.connect(answers.append)
    window.inspector.confirm_button.click()  # asks on revision 1; its answer waits
    _reload(qtbot, window, how)
    assert not answers
    with qtbot.waitSignal(window.bridge.mutation_finished, timeout=SOON_MS):
        release.set()
    qtbot.wait(100)
    _assert_kept(window)


def test_a_read_older_than_the_revision_on_screen_is_dropped(
    qtbot: QtBot, window: JournalWindow, journal: Journal
) -> None:
    """A reload's read that began before a save's answer arrived must not undo it."""
    _show_outside(qtbot, window)
    first = journal.store.get(OUTSIDE)
    _change_elsewhere(qtbot, window, journal)
    window.show_record(journal.store.get(OUTSIDE))
    window.bridge.record_loaded.emit(first)
    assert window.record is not None and window.record.revision == 2


def test_choosing_another_filter_shows_its_newest_instead(
    qtbot: QtBot, window: JournalWindow
) -> None:
    """What the reader chose is not a swap: a filter that leaves the decision out moves on."""
    _show_outside(qtbot, window)
    qtbot.waitUntil(window.inspector.outside_label.isVisible, timeout=SOON_MS)
    window.filter_bar.search.setFocus()
    with qtbot.waitSignal(window.scope_counted, timeout=SOON_MS):
        qtbot.keyClicks(window.filter_bar.search, "number 2")
        window.filter_bar.flush()
    qtbot.waitUntil(lambda: window.is_shown("decision-test-0002"), timeout=SOON_MS)
    assert not window.inspector.outside_label.isVisible()
