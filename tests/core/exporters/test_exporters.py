"""Exporters: MADR 4.0 files read back by a front-matter parser, JSON privacy modes, CSV quoting,
the decisions.md table, and progress, cancellation and all-or-nothing writes."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.exporters import ExportCancelled, export, render_single
from core.exporters.csv_export import render_csv
from core.exporters.decision_log import render_log
from core.exporters.json_export import PRIVATE_FIELDS, export_records, render_json
from core.exporters.madr import render_madr
from core.importers import make_importer
from core.importers.engine import run_import
from core.importers.shaping import ALTERNATIVE_LABEL, NOT_RECORDED
from core.journal import Journal
from core.record.models import DecisionRecord, Option, RejectedReason
from core.record.normalize import normalize_record
from tests.factories import SECOND_NS
from tests.factories import stored as factory_stored

DAY = 86_400 * 1_000_000_000
MADR_STATUS_WORDS = {"proposed", "rejected", "accepted", "deprecated", "superseded"}
MADR_SECTIONS = [
    "## Context and Problem Statement",
    "## Considered Options",
    "## Decision Outcome",
    "## Pros and Cons of the Options",
    "## More Information",
]


def stored(record_id: str, day: int, **fields: object) -> DecisionRecord:
    """A complete stored record written `day` days after the first, with a session id that must
    not reach any export."""
    at = day * DAY // SECOND_NS
    return normalize_record(factory_stored(record_id, at, session_id="session-secret-1", **fields))


def custom_choice(record_id: str, day: int) -> DecisionRecord:
    return stored(
        record_id,
        day,
        selected_option_id="",
        custom_selection="SQLite with WAL",
        rejected_reasons=[
            RejectedReason(option_id="per-record-json", reason="too many files", source="user"),
            RejectedReason(option_id="single-json", reason="lost updates", source="user"),
        ],
    )


@pytest.fixture
def journal_records() -> list[DecisionRecord]:
    return [
        stored(
            "decision-a",
            1,
            options=[
                Option(
                    id="per-record-json",
                    label="Per-record JSON",
                    description="One file per decision",
                    pros=["no lost updates"],
                    cons=["many small files"],
                ),
                Option(id="single-json", label="Single JSON document", pros=["one file"]),
            ],
        ),
        custom_choice("decision-b", 2),
        stored("decision-c", 3, status="deleted", problem="Pick | a cache\n## Forged heading"),
    ]


# MADR ----------------------------------------------------------------------------------------


def parse_madr(text: str) -> tuple[dict[str, str], list[str]]:
    """Front matter as MADR tools read it: `---` first, closed by a `---` line, key: value
    (blank lines are YAML whitespace)."""
    lines = text.split("\n")
    assert lines[0] == "---"
    end = lines.index("---", 1)
    meta = {}
    for line in lines[1:end]:
        if not line:
            continue
        name, sep, value = line.partition(":")
        assert sep, line
        meta[name.strip()] = value.strip().strip('"')
    return meta, lines[end + 1 :]


def test_madr_files_have_standard_front_matter_and_sections(
    tmp_path: Path, journal_records: list[DecisionRecord]
) -> None:
    written = export("madr", journal_records, tmp_path / "adr")
    names = sorted(p.name for p in written)
    assert names == [
        "0001-choose-the-canonical-cross-project-decision-storage-layout.md",
        "0002-choose-the-canonical-cross-project-decision-storage-layout.md",
        "0003-pick-a-cache-forged-heading.md",
        "index.md",
    ]
    statuses = []
    for path in sorted((tmp_path / "adr").glob("0*.md")):
        meta, body = parse_madr(path.read_text("utf-8"))
        assert set(meta) == {"status", "date", "decision-makers"}
        assert meta["status"] in MADR_STATUS_WORDS
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", meta["date"])
        assert meta["decision-makers"] == "user"
        statuses.append(meta["status"])
        headings = [line for line in body if line.startswith("## ")]
        assert headings == MADR_SECTIONS
        assert sum(line.startswith("# ") for line in body) == 1
        assert oct(os.stat(path).st_mode & 0o777) == "0o600"
    assert statuses == ["accepted", "accepted", "deprecated"]
    assert not list((tmp_path / "adr").glob(".export-*"))


def test_madr_carries_the_madr2_header_log4brains_reads(
    journal_records: list[DecisionRecord],
) -> None:
    """The bullets sit between the title and the first `##`, and the front matter's closing
    `---` follows a blank line, so Markdown cannot read the YAML as a setext heading."""
    text = render_madr(journal_records[2])
    meta, body = parse_madr(text)
    assert text.split("\n---\n", 1)[0].endswith("\n")
    header = body[body.index(next(line for line in body if line.startswith("# "))) + 1 :]
    header = header[: next(i for i, line in enumerate(header) if line.startswith("## "))]
    bullets = [line for line in header if line]
    assert bullets[0] == f"* Status: {meta['status']}"
    assert f"* Date: {meta['date']}" in bullets
    assert f"* Deciders: {meta['decision-makers']}" in bullets


def test_madr_outcome_and_reasons(journal_records: list[DecisionRecord]) -> None:
    text = render_madr(journal_records[0])
    assert 'Chosen option: "Per-record JSON", because independent files avoid lost updates' in text
    assert "### Consequences\n\n* Good, because no lost updates\n* Bad, because many small" in text
    rejected = text.split("### Single JSON document\n", 1)[1].split("\n## ", 1)[0]
    assert "* Good, because one file" in rejected
    assert "* Bad, because global rewrite bottleneck" in rejected
    assert "* Decision ID: `decision-a`" in text
    custom = render_madr(journal_records[1])
    assert 'Chosen option: "SQLite with WAL", because' in custom
    assert "* SQLite with WAL" in custom.split("## Considered Options", 1)[1]
    assert "* Bad, because too many files" in custom


def test_madr_text_cannot_forge_structure(journal_records: list[DecisionRecord]) -> None:
    text = render_madr(journal_records[2])
    assert "## Forged heading" not in text.split("\n")
    assert "# Pick | a cache ## Forged heading" in text
    assert "\n# \\## not a heading\n" in render_madr(
        stored("decision-d", 4, problem="## not a heading")
    )


def test_madr_private_metadata_only_when_asked(journal_records: list[DecisionRecord]) -> None:
    reduced = render_madr(journal_records[0])
    private = render_madr(journal_records[0], include_private=True)
    for secret in ("session-secret-1", "kernullist", "core/store.py:10"):
        assert secret not in reduced
        assert secret in private


def test_madr_index_lists_every_decision(
    tmp_path: Path, journal_records: list[DecisionRecord]
) -> None:
    export("madr", journal_records, tmp_path)
    index = (tmp_path / "index.md").read_text("utf-8")
    rows = [line for line in index.splitlines() if line.startswith("| [")]
    assert len(rows) == 3
    assert rows[0].startswith(
        "| [0001](0001-choose-the-canonical-cross-project-decision-storage-layout.md) |"
    )
    assert "Pick \\| a cache" in rows[2] and "| deprecated |" in rows[2]


# JSON ----------------------------------------------------------------------------------------


def test_json_modes_field_sets(tmp_path: Path, journal_records: list[DecisionRecord]) -> None:
    reduced = json.loads(export("json", journal_records, tmp_path)[0].read_bytes())
    private = json.loads(
        export("json", journal_records, tmp_path, include_private=True, file_name="p.json")[
            0
        ].read_bytes()
    )
    assert [r["id"] for r in reduced] == ["decision-a", "decision-b", "decision-c"]
    for item in reduced:
        assert not set(PRIVATE_FIELDS) & set(item)
    assert {"session_id", "project_alias", "workspace", "evidence_refs"} <= set(private[0])
    assert set(private[0]) - set(reduced[0]) == {
        "session_id",
        "project_alias",
        "workspace",
        "evidence_refs",
    }


@pytest.mark.parametrize("count", [0, 1, 199, 200, 201, 450])
def test_json_is_byte_identical_to_the_store_export(count: int) -> None:
    records = [stored(f"decision-{n:04d}", n % 7) for n in range(count)]
    for private in (False, True):
        assert render_json(records, include_private=private) == export_records(
            records, include_private=private
        )


# CSV -----------------------------------------------------------------------------------------


def test_csv_quotes_commas_quotes_newlines_and_keeps_unicode() -> None:
    tricky = 'Use "quotes", commas,\nnewlines and ünïcödé 데이터'
    record = stored("decision-x", 1, problem=tricky, tags=["a,b", 'c"d'])
    data = render_csv([record])
    rows = list(csv.reader(io.StringIO(data.decode("utf-8"), newline="")))
    header, row = rows
    assert header[:3] == ["id", "created_at", "updated_at"]
    cells = dict(zip(header, row, strict=True))
    assert cells["problem"] == record.problem
    assert cells["tags"] == 'a,b; c"d'
    assert cells["selected"] == "Per-record JSON"
    assert cells["rejected"] == "Single JSON document: global rewrite bottleneck"
    assert "session_id" not in header
    assert data.count(b"\r\n") == 2  # one record terminator each; the inner newline is quoted


def test_csv_defuses_formulas_and_adds_private_columns_on_request() -> None:
    record = stored("decision-x", 1, problem='=HYPERLINK("http://x")', tags=["-1", "+1"])
    rows = list(csv.reader(io.StringIO(render_csv([record], include_private=True).decode())))
    cells = dict(zip(rows[0], rows[1], strict=True))
    assert cells["problem"] == '\'=HYPERLINK("http://x")'
    assert cells["tags"] == "'-1; +1"
    assert cells["session_id"] == "session-secret-1"


# decisions.md --------------------------------------------------------------------------------


def test_decision_log_newest_first_with_escaped_pipes(
    journal_records: list[DecisionRecord],
) -> None:
    text = render_log(journal_records).decode("utf-8")
    assert text.startswith("# Decisions\n")
    assert "| Date | Decision | Reason |\n|---|---|---|\n" in text
    rows = [line for line in text.splitlines() if re.match(r"\| \d{4}-", line)]
    assert len(rows) == 3
    assert rows[0].startswith("| 2025-10-12 | (Withdrawn) Pick \\| a cache ## Forged heading.")
    for row in rows:
        assert len(re.findall(r"(?<!\\)\|", row)) == 4
    assert "Not Single JSON document: global rewrite bottleneck." in rows[2]
    assert (
        "Chosen: SQLite with WAL. Alternatives: Per-record JSON; Single JSON document." in (rows[1])
    )


def test_render_single_refuses_madr(journal_records: list[DecisionRecord]) -> None:
    with pytest.raises(ValueError):
        render_single("madr", journal_records)
    assert render_single("markdown", journal_records) == render_log(journal_records)


# progress, cancel, atomicity -----------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["json", "madr", "markdown", "csv"])
def test_progress_reports_every_record(
    tmp_path: Path, journal_records: list[DecisionRecord], fmt: str
) -> None:
    seen: list[tuple[int, int]] = []
    export(fmt, journal_records, tmp_path, progress=lambda done, total: seen.append((done, total)))
    assert seen == [(1, 3), (2, 3), (3, 3)]


@pytest.mark.parametrize("fmt", ["json", "madr", "markdown", "csv"])
def test_cancel_midway_writes_nothing(
    tmp_path: Path, journal_records: list[DecisionRecord], fmt: str
) -> None:
    (tmp_path / "keep.txt").write_text("mine")
    cancel = threading.Event()

    def progress(done: int, total: int) -> None:
        if done == 2:
            cancel.set()

    with pytest.raises(ExportCancelled):
        export(fmt, journal_records, tmp_path, progress=progress, cancel=cancel)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.txt"]


def test_cancel_before_start_and_existing_file_is_untouched(
    tmp_path: Path, journal_records: list[DecisionRecord]
) -> None:
    (tmp_path / "decisions.csv").write_text("old")
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(ExportCancelled):
        export("csv", journal_records, tmp_path, cancel=cancel)
    assert (tmp_path / "decisions.csv").read_text() == "old"
    export("csv", journal_records, tmp_path)
    assert (tmp_path / "decisions.csv").read_text("utf-8").startswith("id,")


def test_empty_exports(tmp_path: Path) -> None:
    assert json.loads(export("json", [], tmp_path)[0].read_bytes()) == []
    assert [p.name for p in export("madr", [], tmp_path / "adr")] == ["index.md"]
    assert render_csv([]).decode().splitlines()[0].startswith("id,created_at")


safe_text = st.text(alphabet=st.characters(exclude_categories=["Cs"]), min_size=1, max_size=40)


@settings(max_examples=80, deadline=None)
@given(problem=safe_text, reason=safe_text)
def test_csv_cells_read_back_exactly(problem: str, reason: str) -> None:
    record = stored("decision-x", 1).model_copy(
        update={"problem": problem, "selection_reason_raw": reason}
    )
    rows = list(csv.reader(io.StringIO(render_csv([record]).decode("utf-8"), newline="")))
    cells = dict(zip(rows[0], rows[1], strict=True))
    assert cells["problem"] in {problem, "'" + problem}
    assert cells["selection_reason"] in {reason, "'" + reason}


@settings(max_examples=80, deadline=None)
@given(problem=safe_text, reason=safe_text)
def test_decision_log_rows_always_have_three_cells(problem: str, reason: str) -> None:
    record = stored("decision-x", 1).model_copy(
        update={"problem": problem, "selection_reason_raw": reason}
    )
    lines = render_log([record]).decode("utf-8").splitlines()
    row = lines[lines.index("|---|---|---|") + 1]
    assert len(lines) == lines.index("|---|---|---|") + 2
    assert len(re.findall(r"(?<!\\)(?:\\\\)*\|", row)) == 4


def _imported_nygard_record(tmp_path: Path) -> DecisionRecord:
    """A Nygard ADR names only its decision: the import adds the "not recorded" stand-in."""
    folder = tmp_path / "repo" / "doc" / "adr"
    folder.mkdir(parents=True)
    (folder / "0001-use-python.md").write_text(
        "# 1. Use Python\n\nDate: 2016-03-01\n\n## Status\n\nAccepted\n\n## Context\n\n"
        "Shell scripts are hard to test.\n\n## Decision\n\nWe will rewrite the tool in Python.\n"
    )
    journal = Journal(tmp_path / "journal")
    run_import(journal, make_importer("madr"), folder)
    (record,) = journal.store.list()
    assert [o.label for o in record.options][1] == ALTERNATIVE_LABEL
    return record


def test_the_imports_stand_in_alternative_is_not_exported_as_one(tmp_path: Path) -> None:
    record = _imported_nygard_record(tmp_path)
    log = render_log([record]).decode()
    madr = render_madr(record)
    for text in (log, madr):
        assert ALTERNATIVE_LABEL not in text
        assert NOT_RECORDED not in text
    assert "Chosen: We will rewrite the tool in Python." in log
    assert "Alternatives:" not in log
    considered = madr.split("## Considered Options\n\n", 1)[1].split("\n\n", 1)[0]
    assert considered == "* We will rewrite the tool in Python."
    assert ALTERNATIVE_LABEL in render_csv([record]).decode(), "CSV keeps the record as stored"
