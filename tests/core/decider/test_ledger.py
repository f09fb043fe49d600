"""The decider ledger: routing reads only the lines of the decision or kind it needs, through
the ledger's index, and a missing or damaged index is rebuilt from the log with the same
answers."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.capture.machine import NeedsHuman, Recorded
from core.decider.ledger import LEDGER_INDEX, DeciderLedger, LedgerRead
from tests.core.decider.support import KIND, Journal, database_proposal


@pytest.fixture
def journal(tmp_path: Path) -> Journal:
    journal = Journal(tmp_path / "journal")
    journal.answer_many(12)
    return journal


def _no_full_read(_ledger: DeciderLedger) -> LedgerRead:
    raise AssertionError("the whole ledger was read")


def test_a_question_and_its_answer_never_read_the_whole_ledger(
    journal: Journal, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = len(DeciderLedger(journal.root).read().events)
    monkeypatch.setattr(DeciderLedger, "read", _no_full_read)
    recorded = journal.answer(database_proposal(50), "sqlite")  # predicted, then overruled
    monkeypatch.undo()
    events = DeciderLedger(journal.root).of_decision(recorded.record.id)
    assert [(e.type, e.outcome) for e in events] == [("prediction", ""), ("scored", "overrule")]
    assert len(DeciderLedger(journal.root).read().events) == before + 2


def test_an_automatic_answer_and_its_overrule_read_only_their_lines(
    journal: Journal, monkeypatch: pytest.MonkeyPatch
) -> None:
    journal.decider.set_mode(KIND, "auto")
    monkeypatch.setattr(DeciderLedger, "read", _no_full_read)
    outcome = journal.present(database_proposal(60))
    assert isinstance(outcome, Recorded)
    journal.decider.overrule(journal.store, outcome.record.id, "SQLite")
    monkeypatch.undo()
    kinds = [e.type for e in DeciderLedger(journal.root).of_decision(outcome.record.id)]
    assert kinds == ["automatic", "overruled"]


@pytest.mark.parametrize("damage", ["delete", "garbage"])
def test_a_missing_or_damaged_index_is_rebuilt_with_the_same_answers(
    journal: Journal, damage: str
) -> None:
    ledger = DeciderLedger(journal.root)
    full = ledger.read().events
    index = journal.root / LEDGER_INDEX
    assert index.exists()
    if damage == "delete":
        index.unlink()
    else:
        index.write_bytes(b"not a database at all")
    some = full[-1]
    assert ledger.of_decision(some.decision_id) == [
        e for e in full if e.decision_id == some.decision_id
    ]
    assert ledger.of_kind(some.kind) == [e for e in full if e.kind == some.kind]
    # and a prediction is still logged once per decision
    first = journal.present(database_proposal(70))
    assert isinstance(first, NeedsHuman)
    journal.present(database_proposal(70))
    predictions = [e for e in ledger.read().events if e.type == "prediction"]
    assert len({e.decision_id for e in predictions}) == len(predictions)
