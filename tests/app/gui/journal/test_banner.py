"""The issue banner: a damaged record file is named with its runbook entry, healthy records stay."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QUrl
from pytestqt.qtbot import QtBot

from app.gui.journal.banner import REBUILDING_TEXT, RUNBOOK_UNREADABLE, Banner, FileIssue
from app.gui.journal.window import JournalWindow
from core.journal import Journal
from core.profile.model import ProfileStatus
from tests.app.support.journal_support import make_journal, open_window, record, shut_down

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
]


@pytest.fixture
def journal(tmp_path: Path) -> Journal:
    journal = make_journal(tmp_path / "journal", [record(1), record(2)])
    (journal.store.records_dir / "decision-broken.json").write_text("{not json")
    return journal


@pytest.fixture
def window(qtbot: QtBot, journal: Journal, tmp_path: Path) -> Iterator[JournalWindow]:
    window = open_window(qtbot, journal, tmp_path / "settings.ini")
    yield window
    shut_down(qtbot, window)


def test_unreadable_record_is_named_with_the_runbook_entry(
    qtbot: QtBot, window: JournalWindow
) -> None:
    qtbot.waitUntil(lambda: "could not be read" in window.banner.text, timeout=5000)
    lines = window.banner.text.splitlines()
    assert lines[0] == "1 decision file could not be read"
    assert lines[1] == (
        "decision-broken.json: Expecting property name enclosed in double quotes at line 1."
    )
    assert lines[2] == (
        "The other decisions are available. Export and profile rebuilds wait until the file is "
        f"repaired or moved aside (see {RUNBOOK_UNREADABLE})."
    )
    assert str(window.journal.root) not in window.banner.text
    assert window.banner.text.count("Expecting property name") == 1
    assert window.model.rowCount() == 2


def test_the_banner_offers_what_helps_and_not_a_rebuild_that_cannot(
    qtbot: QtBot, window: JournalWindow, journal: Journal
) -> None:
    qtbot.waitUntil(lambda: "could not be read" in window.banner.text, timeout=5000)
    qtbot.waitUntil(lambda: window.profile_label.text() != "", timeout=5000)
    banner = window.banner
    assert "Preference profile" not in banner.text
    assert not banner.rebuild_button.isVisible()
    assert banner.show_file_button.isVisible() and banner.move_aside_button.isVisible()
    broken = journal.store.records_dir / "decision-broken.json"
    banner.show_file_button.click()
    assert window.open_url.urls == [QUrl.fromLocalFile(str(journal.store.records_dir))]

    with qtbot.waitSignal(window.bridge.moved_aside, timeout=10_000):
        banner.move_aside_button.click()
    assert not broken.exists()
    moved = list((journal.root / "quarantine").rglob("decision-broken.json"))
    assert len(moved) == 1 and moved[0].read_text() == "{not json"
    assert moved[0].parent.name == "records"
    qtbot.waitUntil(lambda: not banner.issues, timeout=5000)
    assert "could not be read" not in banner.text
    assert window.notice.text().startswith("Moved decision-broken.json to ")
    assert window.model.rowCount() == 2


def test_moving_the_file_aside_rebuilds_the_profile_it_blocked(
    qtbot: QtBot, window: JournalWindow
) -> None:
    """The failed rebuild's error must not stay on screen once its cause was moved away."""
    qtbot.waitUntil(lambda: "could not be read" in window.banner.text, timeout=5000)
    window.bridge.request_rebuild()
    qtbot.waitUntil(lambda: window.bridge.profile_worker.status().state == "error", timeout=10_000)
    with qtbot.waitSignal(window.bridge.moved_aside, timeout=10_000):
        window.banner.move_aside_button.click()
    qtbot.waitUntil(
        lambda: window.bridge.profile_worker.status().state == "current", timeout=10_000
    )
    qtbot.waitUntil(window.banner.isHidden, timeout=5000)
    assert "needs attention" not in window.banner.text


def test_banner_repairs_itself_after_the_file_is_removed(
    qtbot: QtBot, window: JournalWindow, journal: Journal
) -> None:
    qtbot.waitUntil(lambda: "could not be read" in window.banner.text, timeout=5000)
    (journal.store.records_dir / "decision-broken.json").unlink()
    window.refresh()
    qtbot.waitUntil(lambda: "could not be read" not in window.banner.text, timeout=5000)


def test_banner_texts_for_each_profile_state(qtbot: QtBot) -> None:
    banner = Banner()
    qtbot.addWidget(banner)
    banner.set_profile_status(ProfileStatus("current"))
    assert banner.isHidden()
    banner.set_profile_status(ProfileStatus("rebuilding"))
    assert banner.text == REBUILDING_TEXT
    assert not banner.rebuild_button.isVisibleTo(banner)
    banner.set_profile_status(ProfileStatus("stale"))
    assert banner.text.startswith("Preference profile is stale")
    banner.set_profile_status(ProfileStatus("error", "profile.json is corrupt"))
    assert banner.text == (
        "Preference profile needs attention: profile.json is corrupt. Use Rebuild profile to retry."
    )
    banner.set_issues([FileIssue(f"/j/records/decision-{n}.json", "bad") for n in range(7)])
    assert banner.text.startswith("7 decision files could not be read\n")
    assert "…and 2 more." in banner.text and "until each file is repaired" in banner.text
    assert "/j/records" not in banner.text


def test_the_headline_is_bold_and_stands_alone(qtbot: QtBot) -> None:
    banner = Banner()
    qtbot.addWidget(banner)
    banner.set_issues([FileIssue("/j/records/decision-1.json", "parse decision-1.json: bad")])
    assert banner.headline.text() == "1 decision file could not be read"
    assert banner.headline.font().bold()
    assert banner.label.text().startswith("decision-1.json: bad.\n")
