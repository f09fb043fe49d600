"""kernforge and json importers: merging our own format by ID, conflicts never overwrite."""

from __future__ import annotations

from pathlib import Path

from core.exporters.json_export import export_journal
from core.importers import make_importer
from core.importers.engine import run_import
from core.journal import Journal
from core.store.decisions import DecisionStore
from tests.factories import make_record


def _other_journal(root: Path) -> DecisionStore:
    store = DecisionStore(root)
    store.put(make_record())
    store.put(make_record(id="decision-test-2", problem="Pick a cache invalidation strategy"))
    return store


def test_merge_is_idempotent_and_keeps_provenance(tmp_path: Path) -> None:
    _other_journal(tmp_path / "other")
    journal = Journal(tmp_path / "mine")
    first = run_import(journal, make_importer("kernforge"), tmp_path / "other")
    assert first.written == {"records": 2}
    again = run_import(journal, make_importer("kernforge"), tmp_path / "other")
    assert again.imported == 0 and again.unchanged == 2
    assert {r.provenance.selection for r in journal.store.list()} == {"user"}


def test_different_content_under_one_id_is_a_conflict(tmp_path: Path) -> None:
    other = _other_journal(tmp_path / "other")
    journal = Journal(tmp_path / "mine")
    run_import(journal, make_importer("kernforge"), tmp_path / "other")
    other.revise("decision-test-1", 1, lambda r: setattr(r, "selection_reason_raw", "changed"))
    report = run_import(journal, make_importer("kernforge"), tmp_path / "other")
    assert [c.target for c in report.conflicts] == ["decision-test-1"]
    assert journal.store.get("decision-test-1").selection_reason_raw != "changed"


def test_unreadable_record_files_are_errors(tmp_path: Path) -> None:
    _other_journal(tmp_path / "other")
    (tmp_path / "other" / "records" / "decision-broken.json").write_text("{")
    report = run_import(Journal(tmp_path / "mine"), make_importer("kernforge"), tmp_path / "other")
    assert report.imported == 2 and len(report.errors) == 1


def test_json_array_kind(tmp_path: Path) -> None:
    store = _other_journal(tmp_path / "other")
    exported = tmp_path / "all.json"
    exported.write_bytes(export_journal(store, include_private=True))
    journal = Journal(tmp_path / "mine")
    assert run_import(journal, make_importer("json"), exported).imported == 2
    assert run_import(journal, make_importer("json"), exported).unchanged == 2
    exported.write_text('[{}, {"id": 3}]')
    report = run_import(journal, make_importer("json"), exported)
    assert len(report.errors) == 2
