"""The decider never answers from a profile that is out of date with the journal: an edit, an
overrule or an import the profile has not folded in yet keeps every question with the person,
and the debug log says why."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from core.capture.machine import NeedsHuman, Recorded
from core.decider.ledger import DeciderLedger, LedgerRead
from core.decider.service import staleness, with_modes
from core.profile.model import PreferenceProfile
from core.profile.query import EvidenceResult, query_evidence
from core.record.corrections import Correction, apply_correction
from core.record.origin import is_automatic
from tests.core.decider.support import KIND, Journal, database_proposal


@pytest.fixture
def auto_journal(tmp_path: Path) -> Journal:
    journal = Journal(tmp_path / "journal")
    journal.answer_many(12)
    journal.decider.set_mode(KIND, "auto")
    return journal


def test_an_edit_not_yet_in_the_profile_is_asked_until_the_rebuild(
    auto_journal: Journal, caplog: pytest.LogCaptureFixture
) -> None:
    person = next(r for r in auto_journal.store.list() if not is_automatic(r))
    correction = Correction(tags=["reviewed"])
    auto_journal.store.revise(person.id, person.revision, lambda r: apply_correction(r, correction))
    with caplog.at_level(logging.DEBUG, logger="core.decider.service"):
        asked = auto_journal.present(database_proposal(700))
    assert isinstance(asked, NeedsHuman)
    assert "out of date with the journal" in caplog.text and "database" in caplog.text.lower()
    auto_journal.profile.rebuild()
    answered = auto_journal.present(database_proposal(701))
    assert isinstance(answered, Recorded) and is_automatic(answered.record)


def test_a_record_written_by_another_process_makes_the_profile_stale(
    auto_journal: Journal, tmp_path: Path
) -> None:
    """A second journal object on the same folder is another process (the CLI, an import,
    sync): its record reaches the files but not this profile."""
    other = Journal(auto_journal.root)
    other.service._on_recorded = None  # that process does not rebuild this profile
    other.answer(database_proposal(800, risk_level="high"), "sqlite")  # asked there
    assert isinstance(auto_journal.present(database_proposal(801)), NeedsHuman)
    reason = staleness(auto_journal.profile.load(), auto_journal.profile)
    assert "asked until it is rebuilt" in reason


def test_an_unreadable_record_file_is_never_current(auto_journal: Journal) -> None:
    (auto_journal.root / "records" / "broken.json").write_bytes(b"{not a record")
    reason = staleness(auto_journal.profile.load(), auto_journal.profile)
    assert reason.startswith("the journal cannot be compared with the preference profile")
    assert isinstance(auto_journal.present(database_proposal(900)), NeedsHuman)


def test_a_profile_never_built_is_stale(auto_journal: Journal) -> None:
    assert staleness(PreferenceProfile.empty(), auto_journal.profile) == (
        "the preference profile has not been built yet"
    )


def test_a_current_profile_is_not_stale(auto_journal: Journal) -> None:
    assert staleness(auto_journal.profile.load(), auto_journal.profile) == ""


def test_preferences_carry_each_rules_mode_from_its_own_ledger_lines(
    auto_journal: Journal, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = _evidence(auto_journal)
    monkeypatch.setattr(DeciderLedger, "read", _no_full_read)
    [match, *_] = with_modes(result, auto_journal.decider)["matches"]
    assert (match["mode"], match["scored_predictions"], match["agreement"]) == ("auto", 10, 1.0)
    assert match["auto_recommended"] and "mode_problem" not in match


def test_preferences_say_ask_when_a_mode_line_cannot_be_read(auto_journal: Journal) -> None:
    DeciderLedger(auto_journal.root).log.append(
        [{"type": "mode", "at": "soon", "kind": "databaseengine", "mode": "auto"}]
    )
    result = _evidence(auto_journal)
    [match, *_] = with_modes(result, auto_journal.decider)["matches"]
    assert match["mode"] == "ask" and "cannot be read" in match["mode_problem"]
    assert isinstance(auto_journal.present(database_proposal(950)), NeedsHuman)


def _evidence(journal: Journal) -> EvidenceResult:
    profile = journal.profile.load()
    rule = profile.rules[0]
    return query_evidence(profile, kind=rule.criterion, project_id=rule.support_project_ids[0])


def _no_full_read(_ledger: DeciderLedger) -> LedgerRead:
    raise AssertionError("the whole ledger was read")
