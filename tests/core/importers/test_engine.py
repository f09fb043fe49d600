"""The import engine and its helpers: dry runs, --since, progress, cancel, detection,
confirmation, shaping limits and the ledger."""

from __future__ import annotations

import dataclasses
import threading
from pathlib import Path

import pytest

import core.bulk.parallel_read
from core.errors import NoChanges, RevisionConflict, UnknownSource
from core.gocompat.gotime import GoTime
from core.importers import KINDS, make_importer
from core.importers.base import ImportOptions, ImportProgress
from core.importers.confirm import (
    confirm_batch,
    confirm_record,
    is_unconfirmed_import,
    unconfirmed_imports,
)
from core.importers.detect import detect_kind
from core.importers.engine import run_import
from core.importers.shaping import SourceDecision, SourceOption, record_from_source
from core.importers.watch import watch
from core.journal import Journal
from core.profile.derive import evidence_of
from core.record import fields
from core.record.corrections import Correction
from core.record.identity import project_identity
from tests.factories import make_record

DATA = Path(__file__).resolve().parents[2] / "data" / "importers"
CLAUDE = DATA / "claude" / "projects"
MD = DATA / "decisions_md" / "decisions.md"


@pytest.fixture
def journal(tmp_path: Path) -> Journal:
    return Journal(tmp_path / "journal")


def test_dry_run_writes_nothing_and_reports_the_same_counts(journal: Journal) -> None:
    dry = run_import(journal, make_importer("decisions-md"), MD, ImportOptions(dry_run=True))
    assert dry.dry_run and dry.imported == 9
    assert not journal.root.exists() or not any(journal.root.rglob("*.json*"))
    real = run_import(journal, make_importer("decisions-md"), MD)
    assert (real.imported, real.written) == (dry.imported, dry.written)
    again = run_import(journal, make_importer("decisions-md"), MD, ImportOptions(dry_run=True))
    assert again.imported == 0 and again.unchanged == 9


def test_since_skips_older_items_with_a_reason(journal: Journal) -> None:
    since = GoTime.parse("2026-10-05T00:00:00Z")
    report = run_import(journal, make_importer("claude-code"), CLAUDE, ImportOptions(since=since))
    assert dict(report.skipped_by_reason())["older than --since"] == 5
    assert report.imported == 3
    assert report.read == report.accounted


def test_progress_reaches_the_total_and_cancel_stops(journal: Journal) -> None:
    ticks: list[ImportProgress] = []
    options = ImportOptions(progress=ticks.append, progress_interval=0.0)
    run_import(journal, make_importer("claude-code"), CLAUDE, options)
    assert ticks[0].total == 3 and ticks[-1].finished and ticks[-1].done == 3
    assert ticks[-1].fraction == 1.0 and ticks[-1].imported == 8
    cancel = threading.Event()
    cancel.set()
    stopped = run_import(
        Journal(journal.root.parent / "other"),
        make_importer("claude-code"),
        CLAUDE,
        ImportOptions(cancel=cancel),
    )
    assert stopped.cancelled and stopped.imported == 0


def test_watch_runs_passes_until_cancelled(journal: Journal) -> None:
    cancel = threading.Event()
    passes: list[int] = []

    def on_pass(report: object) -> None:
        passes.append(1)
        if len(passes) == 2:
            cancel.set()

    total = watch(
        journal, CLAUDE, options=ImportOptions(cancel=cancel), interval=0.01, on_pass=on_pass
    )
    assert len(passes) == 2 and total.cancelled
    assert total.imported == 7  # the unterminated last line of a live file waits


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        (CLAUDE, "claude-code"),
        (CLAUDE / "-home-dev-work-shop" / "sess-a.jsonl", "claude-code"),
        (MD, "decisions-md"),
        (DATA / "madr" / "docs" / "decisions", "madr"),
        (DATA / "madr" / "docs" / "decisions" / "0003-nygard-logging.md", "madr"),
        (DATA / "goal_jsonl", "goal-jsonl"),
        (DATA / "memory_journal" / "journal.ndjson", "memory-journal"),
    ],
)
def test_detect_kind(path: Path, kind: str) -> None:
    assert detect_kind(path) == kind


def test_detect_kind_for_journals_ledgers_and_arrays(tmp_path: Path) -> None:
    Journal(tmp_path / "j").store.put(make_record())
    assert detect_kind(tmp_path / "j") == "kernforge"
    (tmp_path / "a.json").write_text(" [ ]")
    assert detect_kind(tmp_path / "a.json") == "json"
    import sqlite3

    sqlite3.connect(tmp_path / "l.db").executescript("CREATE TABLE ledger (key TEXT);")
    assert detect_kind(tmp_path / "l.db") == "decider"
    (tmp_path / "x.txt").write_text("hello")
    with pytest.raises(UnknownSource):
        detect_kind(tmp_path / "x.txt")
    with pytest.raises(UnknownSource):
        detect_kind(tmp_path / "missing")
    assert set(KINDS) >= {"json", "kernforge", "decider"}


def test_confirm_sets_user_provenance_with_history(journal: Journal) -> None:
    run_import(journal, make_importer("claude-code"), CLAUDE)
    waiting = unconfirmed_imports(journal.store, "claude-code")
    assert len(waiting) == 8 and all(evidence_of(r) is None for r in waiting)
    record = waiting[0]
    confirmed = confirm_record(record.id, 1, revise=journal.store.revise)
    assert confirmed.revision == 2 and confirmed.status == "corrected"
    assert (confirmed.provenance.selection, confirmed.provenance.rationale) == ("user", "user")
    assert not is_unconfirmed_import(confirmed) and evidence_of(confirmed) is not None
    assert [r.provenance.selection for r in journal.store.history(record.id)] == [
        "imported",
        "user",
    ]
    with pytest.raises(NoChanges):
        confirm_record(record.id, 2, revise=journal.store.revise)
    with pytest.raises(RevisionConflict):
        confirm_record(waiting[1].id, 5, revise=journal.store.revise)
    again = run_import(journal, make_importer("claude-code"), CLAUDE)
    assert again.imported == 0 and again.conflicts == []


def test_confirm_with_a_reason_and_in_a_batch(journal: Journal) -> None:
    run_import(journal, make_importer("claude-code"), CLAUDE)
    first, *rest = unconfirmed_imports(journal.store)
    fixed = confirm_record(
        first.id,
        1,
        Correction(selection_reason="it keeps the checkout fast"),
        revise=journal.store.revise,
    )
    assert fixed.selection_reason_raw == "it keeps the checkout fast"
    ticks: list[tuple[int, int]] = []
    report = confirm_batch(
        journal.store,
        [r.id for r in rest] + [first.id],
        revise=journal.store.revise,
        progress=lambda d, t: ticks.append((d, t)),
    )
    assert len(report.confirmed) == 7 and report.already == [first.id] and not report.failed
    assert ticks[-1] == (8, 8)
    assert unconfirmed_imports(journal.store) == []


def test_waiting_imports_are_the_same_when_read_by_worker_processes(
    journal: Journal, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only the waiting records come back from the reading processes, as full models, newest
    first; confirmed, deleted and other sources' records stay behind."""
    run_import(journal, make_importer("claude-code"), CLAUDE)
    here = unconfirmed_imports(journal.store, "claude-code")
    confirm_record(here[0].id, 1, revise=journal.store.revise)
    journal.store.soft_delete(here[1].id, 1)
    monkeypatch.setattr(core.bulk.parallel_read, "PARALLEL_MIN_FILES", 1)
    monkeypatch.setenv(core.bulk.parallel_read.WORKERS_ENV, "2")
    there = unconfirmed_imports(journal.store, "claude-code")
    assert there == here[2:]
    assert unconfirmed_imports(journal.store, "decider") == []


def test_reimport_after_a_lost_ledger_keeps_confirmed_records(journal: Journal) -> None:
    run_import(journal, make_importer("claude-code"), CLAUDE)
    record = unconfirmed_imports(journal.store)[0]
    confirm_record(record.id, 1, revise=journal.store.revise)
    for ledger in (journal.root / "imports").glob("*.ndjson"):
        ledger.unlink()
    again = run_import(journal, make_importer("claude-code"), CLAUDE)
    assert again.imported == 0 and again.unchanged == 8 and again.conflicts == []
    assert journal.store.get(record.id).provenance.selection == "user"


def _decision(**overrides: object) -> SourceDecision:
    values: dict[str, object] = {
        "importer": "test",
        "key": "test:1",
        "problem": "Which?",
        "decision_kind": "k",
        "options": (SourceOption("A"), SourceOption("B")),
        "identity": project_identity("/srv/x"),
        "chosen": 0,
    }
    values.update(overrides)
    return SourceDecision(**values)  # type: ignore[arg-type]


def test_shaping_skips_what_cannot_be_a_record() -> None:
    assert record_from_source(_decision(chosen=None)).reason == "no answer recorded in the source"  # type: ignore[union-attr]
    single = record_from_source(_decision(options=(SourceOption("A"),)))
    assert single.reason == "names 1 option; a decision record needs 2 to 4 options"  # type: ignore[union-attr]
    long_label = record_from_source(_decision(options=(SourceOption("x" * 400), SourceOption("B"))))
    record = long_label.record  # type: ignore[union-attr]
    assert len(record.options[0].label.encode()) <= 256 and record.options[0].description
    assert record.options[0].label.endswith("…")


def test_shaping_fits_records_to_the_field_table_as_it_stands(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name, most in (("option.label", 8), ("options", 3)):
        monkeypatch.setitem(
            fields.FIELDS, name, dataclasses.replace(fields.FIELDS[name], most=most)
        )
    four = tuple(SourceOption(label) for label in ("A long label", "B", "C", "D"))
    record = record_from_source(_decision(options=four)).record  # type: ignore[union-attr]
    assert len(record.options) == 3 and record.options[2].description == "C; D"  # merged
    assert all(len(option.label.encode()) <= 8 for option in record.options[:2])
    single = record_from_source(_decision(options=(SourceOption("A"),)))
    assert single.reason.endswith("needs 2 to 3 options")  # type: ignore[union-attr]


def test_shaping_ids_are_stable_and_valid() -> None:
    twins = (SourceOption("Ünïcode!"), SourceOption("Ünïcode!"))
    first = record_from_source(_decision(options=twins))
    second = record_from_source(_decision(options=twins))
    record = first.record  # type: ignore[union-attr]
    assert [o.id for o in record.options] == ["n-code", "n-code-2"]
    assert record.id == second.record.id  # type: ignore[union-attr]
    other = record_from_source(_decision(key="test:2")).record  # type: ignore[union-attr]
    assert other.id != record.id
