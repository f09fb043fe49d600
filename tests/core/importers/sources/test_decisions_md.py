"""decisions-md importer: tables, escaped pipes, open rows as pending items or notes."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.agents.notes import NoteStore
from core.importers import make_importer
from core.importers.base import ImportReport
from core.importers.engine import run_import
from core.importers.markdown import split_row, tables
from core.importers.shaping import ALTERNATIVE_LABEL, NOT_RECORDED
from core.importers.sources.decisions_md import open_options, parse_date, split_alternatives
from core.journal import Journal

DATA = Path(__file__).resolve().parents[3] / "data" / "importers" / "decisions_md"
# docs/decisions.md is ADRs now; its last table-form version is kept as this fixture.
OUR_LOG = DATA / "our-log-2026-12-01.md"


@pytest.fixture
def journal(tmp_path: Path) -> Journal:
    return Journal(tmp_path / "journal")


def _import(journal: Journal, source: Path = DATA / "decisions.md") -> ImportReport:
    return run_import(journal, make_importer("decisions-md"), source)


@pytest.mark.parametrize(
    ("line", "cells"),
    [
        ("| a | b |", ["a", "b"]),
        ("a | b", ["a", "b"]),
        (r"| `x \| y` | z |", ["`x | y`", "z"]),
        (r"| back\slash | end \| |", [r"back\slash", "end |"]),
        ("|  | empty |", ["", "empty"]),
    ],
)
def test_split_row_keeps_escaped_pipes(line: str, cells: list[str]) -> None:
    assert split_row(line) == cells


def test_tables_skip_code_fences_and_know_their_section() -> None:
    found = tables((DATA / "decisions.md").read_text())
    assert [t.section for t in found] == [
        "Decided",
        "Open",
        "Applied to the design brief",
        "Glossary",
    ]
    assert len(found[0].rows) == 4


def test_decided_rows_become_records_with_honest_placeholders(journal: Journal) -> None:
    report = _import(journal)
    assert report.written == {"records": 6, "notes": 2, "pending": 1}
    assert dict(report.skipped_by_reason()) == {"table has no Decision or Change column": 1}
    assert report.read == report.accounted
    records = {r.options[0].label: r for r in journal.store.list()}
    pipes = records["Grant modes compare as `deny | ask | auto`, most restrictive first."]
    assert pipes.selection_reason_raw == "A pipe inside a cell must survive: `a | b`."
    assert pipes.created_at is not None and pipes.created_at.format() == "2026-09-17T00:00:00Z"
    assert pipes.options[1].label == "Alternatives not recorded in the source"
    assert pipes.rejected_reasons[0].reason == "(not recorded in the source)"
    assert pipes.provenance.selection == "imported" and pipes.decision_kind == "decision_log"
    no_reason = records["IPC uses Unix stream sockets with length-prefixed JSON frames."]
    assert no_reason.selection_reason_raw == "(reason not recorded in the source)"
    applied = records["The tools array is fixed per epoch."]
    assert applied.selection_reason_raw.startswith("M0 (h)")


def test_open_rows_become_pending_items_or_notes(journal: Journal) -> None:
    _import(journal)
    waiting = journal.pending.list().items
    assert len(waiting) == 1
    proposal = waiting[0].proposal
    assert [o.label for o in proposal.options] == [
        "systemd credentials",
        "a local vault",
        "an encrypted file",
    ]
    assert proposal.recommended_option_id == "option-1"
    assert proposal.header == "Needed by M4"
    notes = NoteStore(journal.root)
    listed = [
        n for path in (journal.root / "notes").glob("*.jsonl") for n in notes.read(path.stem).notes
    ]
    texts = sorted(n.decision for n in listed)
    assert texts[0].startswith("Open decision: Mattermost chunking")
    assert texts[1].startswith("Open decision: Repository licence")
    assert any("needed by before publishing" in n.why for n in listed)


def test_second_run_adds_nothing(journal: Journal) -> None:
    _import(journal)
    again = _import(journal)
    assert again.imported == 0 and again.unchanged == again.read - 1
    assert len(journal.store.list()) == 6 and len(journal.pending.list().items) == 1
    notes = journal.root / "notes"
    assert sum(len(p.read_text().splitlines()) for p in notes.glob("*.jsonl")) == 2


def test_our_own_decision_log_imports(journal: Journal) -> None:
    report = _import(journal, OUR_LOG)
    assert report.errors == [] and report.imported == report.read >= 8


def test_open_options_need_a_list() -> None:
    assert open_options("No options here.") == []
    found = open_options("Pick one. Options: A (leading) or B / C.")
    assert [(o.label, o.recommended) for o in found] == [("A", True), ("B", False), ("C", False)]


STACK = DATA / "stack-decisions.md"


def test_alternatives_become_rejected_options_and_revisit_a_note(journal: Journal) -> None:
    """Real logs list alternatives and revisit triggers: neither is dropped, and the record
    does not claim the alternatives were not recorded."""
    report = run_import(journal, make_importer("decisions-md"), STACK)
    assert report.written["records"] == 4
    records = {r.problem: r for r in journal.store.list()}
    runner = records["Test runner: pytest with xdist"]
    assert [o.label for o in runner.options] == ["pytest with xdist", "unittest", "nose2"]
    assert runner.selected_option_id == runner.options[0].id
    assert runner.selection_reason_raw == "Fixtures and parallel runs"
    assert {r.reason for r in runner.rejected_reasons} == {NOT_RECORDED}
    assert "revisit" in runner.tags
    packaging = records["Packaging: One-folder bundle"]
    assert len(packaging.options) == 4  # the chosen, two alternatives, the rest merged
    assert "Briefcase" in packaging.options[3].description + packaging.options[3].label
    docs = records["Docs: MkDocs"]
    assert docs.options[1].label == ALTERNATIVE_LABEL and "revisit" not in docs.tags
    api = records["API runs on Cloud Run"]
    assert [o.label for o in api.options][1:] == ["Lambda (fallback after a 3 h timebox)", "Render"]
    assert api.selection_reason_raw == "Cold starts under 2 s in a trial"
    notes = NoteStore(journal.root).read(api.project_id).notes
    revisits = sorted(n.why for n in notes if n.decision.startswith("Revisit: "))
    assert revisits == [
        "Revisit when: A test takes longer than 5 s",
        "Revisit when: Bundle over 200 MB",
        "Revisit when: Cold start > 8 s",
    ]


@pytest.mark.parametrize(
    ("cell", "labels"),
    [
        ("Hermes, Claude Code; Codex", ["Hermes", "Claude Code", "Codex"]),
        ("lean-ctx (rejected, see ADR-9), rtk", ["lean-ctx (rejected, see ADR-9)", "rtk"]),
        ("—", []),
        ("none", []),
        ("", []),
    ],
)
def test_split_alternatives(cell: str, labels: list[str]) -> None:
    assert split_alternatives(cell) == labels


@pytest.mark.parametrize(
    ("cell", "iso"),
    [
        ("2024-03-02", "2024-03-02"),
        ("2024/3/2", "2024-03-02"),
        ("14 May 2024", "2024-05-14"),
        ("May 14, 2024", "2024-05-14"),
        ("Sept. 3 2023", "2023-09-03"),
        ("3rd Feb 2025", "2025-02-03"),
    ],
)
def test_dates_as_people_write_them(cell: str, iso: str) -> None:
    when = parse_date(cell)
    assert when is not None and str(when) == f"{iso}T00:00:00Z"


@pytest.mark.parametrize("cell", ["", "last week", "03/04/2024", "31 February 2024", "May 2024"])
def test_dates_that_are_not_one_day(cell: str) -> None:
    """Numeric day/month orders are ambiguous (3 April or March 4): not guessed."""
    assert parse_date(cell) is None
