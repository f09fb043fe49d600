"""Recall: BM25 relevance, recency decay with an injected clock, notes, filters, the seam."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.agents.notes import NoteStore
from core.agents.recall import (
    RECENCY_FLOOR,
    IndexSource,
    RecallEntry,
    RecallOptions,
    StoreScan,
    recall,
    recall_journal,
    recency,
)
from core.gocompat.gotime import GoTime
from core.journal import Journal
from core.record.models import DecisionRecord
from tests.factories import make_record

NOW = GoTime.parse("2026-12-01T00:00:00Z")
DAY = 86_400 * 1_000_000_000


def _at(days_ago: float) -> GoTime:
    return GoTime(NOW.unix_ns - int(days_ago * DAY))


def _put(journal: Journal, record_id: str, problem: str, days_ago: float, **extra: object) -> None:
    record = make_record(id=record_id, problem=problem, created_at=_at(days_ago), **extra)
    journal.store.put(record)


@pytest.fixture
def journal(tmp_path: Path) -> Journal:
    journal = Journal(tmp_path / "journal")
    _put(journal, "decision-both", "Postgres connection pooling for the queue workers", 10)
    _put(journal, "decision-one", "Postgres backups on a schedule", 10)
    _put(journal, "decision-old", "Postgres connection pooling in the API", 400)
    _put(journal, "decision-none", "Pick a logging library", 1)
    _put(journal, "decision-elsewhere", "Connection pooling for Redis", 5, project_id="project-b")
    return journal


def _ids(entries: list[RecallEntry]) -> list[str]:
    return [entry.id for entry in entries]


def test_recency_factor() -> None:
    assert recency(None, NOW, 30) == 1.0
    assert recency(NOW, NOW, 30) == 1.0
    assert recency(_at(30), NOW, 30) == pytest.approx(RECENCY_FLOOR + (1 - RECENCY_FLOOR) / 2)
    assert recency(_at(3000), NOW, 30) == pytest.approx(RECENCY_FLOOR, abs=1e-9)


def test_more_matching_terms_rank_higher_and_recency_decays(journal: Journal) -> None:
    options = RecallOptions(now=NOW)
    found = recall(journal.store, "postgres connection pooling", options)
    ids = _ids(found)
    assert ids[0] == "decision-both"
    # 400 days old, the three-word match falls behind a fresh two-word match
    assert ids.index("decision-elsewhere") < ids.index("decision-old")
    assert "decision-none" not in _ids(found)
    assert found[0].kind == "decision" and found[0].outcome == "accept"
    assert found[0].text.startswith("Postgres connection pooling for the queue workers -> ")
    assert found[0].score > found[1].score > 0
    later = recall(journal.store, "postgres connection pooling", RecallOptions(now=_at(-2000)))
    assert set(_ids(later)[:2]) == {"decision-both", "decision-old"}  # all old: relevance decides


def test_recency_breaks_near_ties(journal: Journal) -> None:
    _put(journal, "decision-new-backup", "Postgres backups on a schedule again", 1)
    found = recall(journal.store, "backups", RecallOptions(now=NOW))
    assert _ids(found) == ["decision-new-backup", "decision-one"]


def test_project_filter_deleted_records_and_limit(journal: Journal) -> None:
    options = RecallOptions(project_id="project-b", now=NOW)
    assert _ids(recall(journal.store, "pooling", options)) == ["decision-elsewhere"]
    journal.store.soft_delete("decision-both", 1)
    assert "decision-both" not in _ids(recall(journal.store, "pooling", RecallOptions(now=NOW)))
    assert len(recall(journal.store, "postgres", RecallOptions(now=NOW, limit=1))) == 1
    assert recall(journal.store, "  ?! ", RecallOptions(now=NOW)) == []


def test_index_and_scan_rank_alike(journal: Journal) -> None:
    options = RecallOptions(now=NOW)
    by_scan = recall(journal.store, "postgres pooling", options, source=StoreScan(journal.store))
    by_index = recall(journal.store, "postgres pooling", options, source=IndexSource(journal.index))
    assert by_scan == by_index and by_scan


def test_notes_are_recalled_too(journal: Journal) -> None:
    NoteStore(journal.root).append(
        workspace="/srv/app", decision="Chose pgbouncer for pooling", why="fewer connections"
    )
    found = recall_journal(journal, "pgbouncer", RecallOptions(now=NOW))
    assert [(e.kind, e.text, e.reason, e.provenance) for e in found] == [
        ("note", "Chose pgbouncer for pooling", "fewer connections", "model")
    ]
    without = recall_journal(journal, "pgbouncer", RecallOptions(now=NOW, include_notes=False))
    assert without == []


def test_a_long_lived_journal_recalls_records_other_processes_wrote(journal: Journal) -> None:
    """The MCP server keeps its journal (and index) open for a whole agent session."""
    assert recall_journal(journal, "zebra", RecallOptions(now=NOW)) == []
    other = Journal(journal.root)  # another process: this journal's index is not told
    other.store.put(make_record(id="decision-zebra", problem="Store zebra files"))
    found = recall_journal(journal, "zebra", RecallOptions(now=NOW))
    assert [e.id for e in found] == ["decision-zebra"]


def test_entries_are_plain_json(journal: Journal) -> None:
    entry = recall(journal.store, "logging", RecallOptions(now=NOW))[0]
    data = entry.to_dict()
    assert set(data) == {
        "score",
        "kind",
        "id",
        "project_id",
        "project_alias",
        "when",
        "text",
        "chosen",
        "reason",
        "outcome",
        "provenance",
    }
    assert isinstance(DecisionRecord, type)
