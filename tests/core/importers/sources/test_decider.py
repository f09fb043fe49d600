"""decider importer: v1 and v2 rows, exclusion rules, notes, skipped answers, idempotency."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from core.importers import make_importer
from core.importers.engine import run_import
from core.importers.sources.decider_policy import ExclusionPolicy, exclusion_reason, fold_name
from core.journal import Journal
from core.outcomes.verdict import record_outcome
from core.record.models import DecisionRecord

DATA = Path(__file__).resolve().parents[3] / "data" / "importers" / "decider"


def _ledger(tmp_path: Path, name: str = "ledger") -> Path:
    path = tmp_path / f"{name}.sqlite3"
    db = sqlite3.connect(path)
    db.executescript((DATA / f"{name}.sql").read_text())
    db.commit()
    db.close()
    return path


@pytest.fixture
def journal(tmp_path: Path) -> Journal:
    return Journal(tmp_path / "journal")


def _policy() -> ExclusionPolicy:
    return ExclusionPolicy.from_file(DATA / "policy.json")


def _problems(journal: Journal) -> dict[str, DecisionRecord]:
    return {r.problem: r for r in journal.store.list()}


def test_v1_and_v2_rows_with_exclusions(journal: Journal, tmp_path: Path) -> None:
    ledger = _ledger(tmp_path)
    report = run_import(journal, make_importer("decider", policy=_policy()), ledger)
    assert report.written == {"records": 4, "notes": 1}
    assert dict(report.skipped_by_reason()) == {
        "excluded: belongs to a human-only initiative": 2,
        "excluded: matches personal-data pattern #1": 1,
        "no answer recorded in the source": 1,
    }
    assert report.read == report.accounted == 9
    records = _problems(journal)
    assert record_outcome(records["How do we schedule retries?"]) == "accept"
    assert record_outcome(records["How many retries?"]) == "amend"
    merge = records["Merge the PR now?"]
    assert record_outcome(merge) == "redirect" and merge.decision_kind == "merge_gate"
    assert merge.project_alias == "widgets" and merge.workspace == "/home/dev/work/widgets"
    unclaimed = records["Which?"]
    assert "unclaimed" in unclaimed.tags and record_outcome(unclaimed) is None


def test_excluded_rows_are_never_written_anywhere(journal: Journal, tmp_path: Path) -> None:
    run_import(journal, make_importer("decider", policy=_policy()), _ledger(tmp_path))
    written = b"".join(
        path.read_bytes() for path in journal.root.rglob("*") if path.is_file()
    ).lower()
    for secret in (b"diagnosis", b"diary", b"move the widget demo"):
        assert secret not in written


def test_without_the_policy_nothing_is_excluded(journal: Journal, tmp_path: Path) -> None:
    report = run_import(journal, make_importer("decider"), _ledger(tmp_path))
    assert report.written["records"] == 7


def test_columnar_ledger_and_idempotency(journal: Journal, tmp_path: Path) -> None:
    ledger = _ledger(tmp_path, "ledger_columns")
    first = run_import(journal, make_importer("decider"), ledger)
    assert first.written == {"records": 1}
    record = journal.store.list()[0]
    assert record.selected_label() == "Memcached" and record_outcome(record) == "redirect"
    again = run_import(journal, make_importer("decider"), ledger)
    assert again.imported == 0 and again.unchanged == 1


def test_a_file_that_is_not_a_ledger_is_an_error(journal: Journal, tmp_path: Path) -> None:
    other = tmp_path / "other.sqlite3"
    sqlite3.connect(other).executescript("CREATE TABLE t (a TEXT);")
    report = run_import(journal, make_importer("decider"), other)
    assert report.imported == 0 and "no ledger table" in report.errors[0].message


def test_exclusion_rules() -> None:
    policy = ExclusionPolicy.of(["Merge-Gate"], ["ssn", "/card \\d{4}/i"])
    assert fold_name("Merge-Gate") == fold_name("merge_gate") == "mergegate"
    assert exclusion_reason({"initiative": "merge gate"}, policy).startswith("excluded: belongs")
    assert exclusion_reason({"question": "my SSN?"}, policy).endswith("#1")
    assert exclusion_reason({"question": "lessons"}, policy) == ""  # whole words only
    option = {"options": [{"label": "x", "description": "Card 1234"}]}
    assert exclusion_reason(option, policy).endswith("#2")
    assert exclusion_reason({"answer": ["a", "ssn b"]}, policy).endswith("#1")
    assert json.dumps(exclusion_reason({"initiative": None}, policy)) == '""'
