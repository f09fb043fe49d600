"""The issue banner: a damaged record file is named with its runbook entry, healthy records stay."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from app.gui.banner import REBUILDING_TEXT, RUNBOOK_UNREADABLE, Banner, FileIssue
from app.gui.journal_window import JournalWindow
from core.journal import Journal
from core.profile_model import ProfileStatus
from tests.app.journal_support import make_journal, open_window, record, shut_down

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
    text = window.banner.text
    assert text.startswith(f"1 journal file(s) could not be read (see {RUNBOOK_UNREADABLE})")
    assert "decision-broken.json: " in text
    assert "Healthy records remain available" in text
    assert window.model.rowCount() == 2


def test_profile_needs_attention_while_a_record_is_unreadable(
    qtbot: QtBot, window: JournalWindow
) -> None:
    qtbot.waitUntil(lambda: "Preference profile" in window.banner.text, timeout=5000)
    assert "Use Rebuild profile" in window.banner.text
    assert window.banner.rebuild_button.isVisible()
    assert window.profile_label.text() in ("Profile: error", "Profile: stale")


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
    assert "7 journal file(s)" in banner.text
    assert "…and 2 more." in banner.text
