"""memory-journal importer: outcome signals on matching decisions, notes for the rest."""

from __future__ import annotations

from pathlib import Path

import pytest

import core.bulk.parallel_read
from core.importers import make_importer
from core.importers.engine import run_import
from core.importers.sources.memory_journal import _Decisions
from core.journal import Journal
from core.outcomes.signals import OutcomeLog
from tests.factories import make_record

DATA = Path(__file__).resolve().parents[3] / "data" / "importers" / "memory_journal"


@pytest.fixture
def journal(tmp_path: Path) -> Journal:
    journal = Journal(tmp_path / "journal")
    journal.store.put(make_record())
    journal.store.put(
        make_record(id="decision-test-2", problem="Pick a cache invalidation strategy")
    )
    return journal


def test_events_about_decisions_become_signals(journal: Journal) -> None:
    report = run_import(journal, make_importer("memory-journal"), DATA)
    assert report.written == {"signals": 3, "notes": 2}
    assert dict(report.skipped_by_reason()) == {"torn or unreadable line (not a JSON object)": 1}
    assert len(report.errors) == 1 and "eval score" in report.errors[0].message
    assert report.read == report.accounted == 7
    signals = OutcomeLog(journal.root).read().signals
    by_decision = {(s.decision_id, s.at.format()): s for s in signals}
    explicit = by_decision[("decision-test-1", "2026-10-01T12:00:00Z")]
    assert (explicit.ci, explicit.accepted, explicit.eval_score) == ("pass", True, 0.9)
    assert explicit.outcome == "success" and explicit.source == "import:memory-journal"
    mentioned = by_decision[("decision-test-2", "2026-10-02T12:00:00Z")]
    assert mentioned.ci == "fail" and mentioned.accepted is None
    by_task = by_decision[("decision-test-2", "2026-10-03T12:00:00Z")]
    assert by_task.accepted is False and by_task.outcome == "failure"


def test_records_are_never_touched_and_reruns_add_nothing(journal: Journal) -> None:
    before = [r.revision for r in journal.store.list()]
    run_import(journal, make_importer("memory-journal"), DATA)
    again = run_import(journal, make_importer("memory-journal"), DATA)
    assert again.imported == 0 and again.unchanged == 5
    assert len(OutcomeLog(journal.root).read().signals) == 3
    assert [r.revision for r in journal.store.list()] == before


def test_a_task_names_the_newest_active_decision_with_its_problem(
    journal: Journal, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Asked again later, the same problem points at the later decision; a deleted one is
    never matched. Read by worker processes, the answer is the same."""
    store = journal.store
    store.put(make_record(id="decision-test-3", problem="Pick a cache  invalidation strategy"))
    store.put(make_record(id="decision-test-4", problem="Choose a queue"))
    store.soft_delete("decision-test-4", 1)
    here = _Decisions(store)._problems()
    assert here["pick a cache invalidation strategy"] == "decision-test-3"
    assert "choose a queue" not in here
    monkeypatch.setattr(core.bulk.parallel_read, "PARALLEL_MIN_FILES", 1)
    monkeypatch.setenv(core.bulk.parallel_read.WORKERS_ENV, "2")
    assert _Decisions(store)._problems() == here
