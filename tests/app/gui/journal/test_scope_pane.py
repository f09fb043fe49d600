"""The list side around the list: empty state, notice, and the caption while indexing."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QListView
from pytestqt.qtbot import QtBot

from app.gui.journal import scope_pane
from app.gui.journal.scope_pane import ScopePane


@pytest.fixture
def pane(qtbot: QtBot) -> ScopePane:
    shown = ScopePane(QListView(), notice_ms=60)
    qtbot.addWidget(shown)
    shown.show()
    return shown


def test_an_empty_scope_offers_the_other_projects_only_when_scoped(
    qtbot: QtBot, pane: ScopePane
) -> None:
    pane.show_list_or_empty(0, 3, scoped=True)
    assert pane.list_stack.currentWidget() is pane.empty_page
    assert pane.elsewhere_button.isVisible()
    assert pane.elsewhere_button.text() == "Show 3 decisions in other projects"
    with qtbot.waitSignal(pane.elsewhere_requested):
        pane.elsewhere_button.click()
    pane.show_list_or_empty(0, 3, scoped=False)
    assert not pane.elsewhere_button.isVisible()
    pane.show_list_or_empty(5, 0, scoped=True)
    assert pane.list_stack.currentWidget() is pane.list_view


def test_a_notice_clears_itself(qtbot: QtBot, pane: ScopePane) -> None:
    pane.show_notice("Something to read")
    assert pane.notice.isVisible() and pane.notice.text() == "Something to read"
    qtbot.waitUntil(lambda: not pane.notice.isVisible(), timeout=2000)


def test_the_caption_waits_while_the_index_reads_files(
    pane: ScopePane, monkeypatch: pytest.MonkeyPatch
) -> None:
    pane.set_caption("3 of 3 decisions loaded")
    pane.indexing(10, 20)  # a small catch-up says nothing
    assert pane.caption.text() == "3 of 3 decisions loaded"
    monkeypatch.setattr(scope_pane, "INDEXING_NOTICE_MIN", 10)
    pane.indexing(10, 20)
    assert pane.caption.text() == "Reading the journal: 10 of 20 decisions…"
    pane.set_caption("4 of 4 decisions loaded")  # kept for afterwards
    assert pane.caption.text().startswith("Reading the journal")
    pane.indexing_done()
    assert pane.caption.text() == "4 of 4 decisions loaded"
    pane.stop()
