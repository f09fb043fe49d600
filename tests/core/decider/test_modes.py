"""Each kind's mode is its newest change among the ledger's `mode` lines: nothing is rewritten,
so two machines' changes merge; ties and unreadable lines fail closed, and modes kept in the
older `decider/modes.json` are still read and move into the ledger at the next change."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from core.decider.ledger import DeciderLedger
from core.decider.modes import ModeBook
from core.errors import JournalDamaged

NOW = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)


def test_changes_are_ledger_lines_and_the_newest_wins(tmp_path: Path) -> None:
    book = ModeBook(tmp_path)
    book.set("Merge-Gate", "auto", reason="set to auto: x", now=NOW)
    book.set("merge gate", "ask", reason="set to ask", now=NOW + timedelta(minutes=1))
    assert book.mode_of("MERGE_GATE") == "ask"
    assert not book.path.exists()
    lines = [e for e in DeciderLedger(tmp_path).read().events if e.type == "mode"]
    assert [(e.kind, e.mode) for e in lines] == [("mergegate", "auto"), ("mergegate", "ask")]
    entry = book.entry_of("merge-gate")
    assert entry is not None and entry.kind_label == "Merge-Gate"
    assert [c.mode for c in entry.history] == ["auto", "ask"]
    assert book.read()["mergegate"].mode == "ask"


def test_an_older_change_merged_later_does_not_override_a_newer_one(tmp_path: Path) -> None:
    """Another machine's lines arrive after ours in the file, but count by their time."""
    book = ModeBook(tmp_path)
    book.set("kind", "ask", reason="demoted: 2 overrules", now=NOW + timedelta(hours=1))
    book.set("kind", "auto", reason="set to auto: on the other machine", now=NOW)
    assert book.mode_of("kind") == "ask"


def test_two_changes_in_one_second_resolve_to_ask(tmp_path: Path) -> None:
    book = ModeBook(tmp_path)
    book.set("kind", "ask", reason="demoted", now=NOW)
    book.set("kind", "auto", reason="set to auto", now=NOW)
    assert book.mode_of("kind") == "ask"


def test_an_unreadable_mode_line_asks_every_question_of_that_kind(tmp_path: Path) -> None:
    book = ModeBook(tmp_path)
    book.set("kind", "auto", reason="set to auto", now=NOW)
    bad = {"type": "mode", "at": "later", "decision_id": "", "kind": "kind", "kind_label": "k"}
    DeciderLedger(tmp_path).log.append([{**bad, "rule_id": "", "mode": "ask"}])
    with pytest.raises(JournalDamaged, match="1 mode change cannot be read"):
        book.mode_of("kind")
    with pytest.raises(JournalDamaged, match="every kind is asked"):
        book.read()
    assert ModeBook(tmp_path).mode_of("other kind") == "ask"


def test_modes_kept_in_the_older_file_are_read_and_moved_at_the_next_change(
    tmp_path: Path,
) -> None:
    book = ModeBook(tmp_path)
    book.path.parent.mkdir(mode=0o700)
    legacy = {
        "kinds": {
            "databaseengine": {
                "kind_label": "Database-Engine",
                "mode": "auto",
                "history": [{"at": "2026-11-01T08:00:00Z", "mode": "auto", "reason": "set"}],
            }
        }
    }
    book.path.write_text(json.dumps(legacy), encoding="utf-8")
    assert book.mode_of("database engine") == "auto"
    book.set("Other", "ask", reason="set to ask", now=NOW)
    assert not book.path.exists()
    assert book.mode_of("database engine") == "auto"
    moved = [e for e in DeciderLedger(tmp_path).read().events if e.kind == "databaseengine"]
    assert [(e.at, e.mode, e.reason) for e in moved] == [("2026-11-01T08:00:00Z", "auto", "set")]
