"""The profile tab's work without a window: a damaged file is described, never raised."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.gui.journal import profile_jobs
from app.gui.journal.requests import OverrideRequest
from core.errors import InvalidDecision, ModeRefused
from core.journal import Journal
from tests.app.support.journal_support import make_journal, record


@pytest.fixture
def journal(tmp_path: Path) -> Iterator[Journal]:
    journal = make_journal(tmp_path / "journal", [record(1), record(2)])
    yield journal


def test_the_profile_and_its_state_are_read_together(journal: Journal) -> None:
    worker = journal.start_profile_worker()
    try:
        view = profile_jobs.profile_view(journal, worker)
    finally:
        worker.stop()
    assert view.error == "" and view.status is not None
    assert view.profile.revision == journal.profile.load().revision


def test_a_damaged_profile_is_shown_as_a_message_beside_an_empty_one(journal: Journal) -> None:
    journal.profile.path.parent.mkdir(parents=True, exist_ok=True)
    journal.profile.path.write_text("{damaged")
    worker = journal.start_profile_worker()
    try:
        view = profile_jobs.profile_view(journal, worker)
    finally:
        worker.stop()
    assert view.error and view.profile.revision == 0 and view.profile.rules == []


def test_an_override_of_an_unknown_rule_raises_for_the_bridge_to_describe(
    journal: Journal,
) -> None:
    with pytest.raises(Exception) as caught:
        profile_jobs.save_override(journal, OverrideRequest("rule-missing", 0, enabled=False))
    view = profile_jobs.failed_override(caught.value)
    assert view.error and view.status is None


def test_modes_are_listed_and_auto_is_refused_without_a_recommendation(
    journal: Journal,
) -> None:
    assert profile_jobs.modes(journal).error == ""
    with pytest.raises(ModeRefused):
        profile_jobs.set_mode(journal, "storage_backend", "auto")
    asked = profile_jobs.set_mode(journal, "storage_backend", "ask")
    assert asked.error == ""
    assert profile_jobs.failed_modes(InvalidDecision("mode must be ask or auto")).error == (
        "mode must be ask or auto"
    )
