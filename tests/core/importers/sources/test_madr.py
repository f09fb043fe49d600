"""madr importer: MADR 2, 3 and 4, Nygard, statuses, option fitting, idempotency, edits."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from core.importers import make_importer
from core.importers.base import ImportReport
from core.importers.engine import run_import
from core.importers.sources.madr_parse import parse_adr
from core.journal import Journal
from core.record.models import DecisionRecord

DATA = Path(__file__).resolve().parents[3] / "data" / "importers" / "madr" / "docs" / "decisions"


@pytest.fixture
def journal(tmp_path: Path) -> Journal:
    return Journal(tmp_path / "journal")


def _import(journal: Journal, source: Path = DATA) -> ImportReport:
    return run_import(journal, make_importer("madr"), source)


def _titles(journal: Journal) -> dict[str, DecisionRecord]:
    return {r.problem.split(".")[0]: r for r in journal.store.list()}


def test_madr2_bullets_and_quoted_link_options() -> None:
    parts = parse_adr((DATA / "0001-use-markdown-architectural-decision-records.md").read_text())
    assert parts.status == "accepted" and parts.date == "2020-05-08"
    assert parts.options == ["MADR 2.1.2", "Michael Nygard's template", "Formless"]
    assert parts.chosen == "MADR 2.1.2"
    assert parts.reason == "it is lean and it is a structured way to record decisions"
    assert (
        parts.rejections["michael nygard's template"] == "it does not list the considered options"
    )


def test_madr3_front_matter_and_madr4_quoted_status() -> None:
    three = parse_adr((DATA / "0002-queue-for-retries.md").read_text())
    assert (three.status_word, three.date, three.chosen) == (
        "accepted",
        "2022-11-03",
        "Use a queue",
    )
    assert three.rejections["use a cron job"] == (
        "a retry waits for the next run; runs can overlap"
    )
    four = parse_adr((DATA / "backend" / "0001-database.md").read_text())
    assert four.status_word == "superseded" and four.title == "Store orders in PostgreSQL"


def test_decided_adrs_become_records(journal: Journal) -> None:
    report = _import(journal)
    assert report.written["records"] == 5
    assert dict(report.skipped_by_reason()) == {"status proposed: not a decision yet": 1}
    assert report.read == report.accounted == 6  # README and the template are not ADRs
    records = _titles(journal)
    queue = records["Use a queue for checkout retries"]
    assert queue.selected_option_id == "use-a-queue"
    assert queue.selection_reason_raw == "retries survive restarts and scale with load"
    assert {r.option_id: r.reason for r in queue.rejected_reasons} == {
        "use-a-cron-job": "a retry waits for the next run; runs can overlap"
    }
    assert queue.created_at is not None and queue.created_at.format() == "2022-11-03T00:00:00Z"
    assert (
        queue.decision_kind == "architecture_decision" and queue.provenance.rationale == "imported"
    )
    postgres = records["Store orders in PostgreSQL"]
    assert "status:superseded" in postgres.tags
    reasons = {r.option_id: r.reason for r in postgres.rejected_reasons}
    assert reasons == {"sqlite": "one writer at a time", "mongodb": "no joins for reporting"}


def test_nygard_adr_gets_an_explicit_unrecorded_alternative(journal: Journal) -> None:
    _import(journal)
    record = _titles(journal)["Log as JSON lines"]
    assert record.options[0].label == "We will write logs as one JSON object per line."
    assert record.options[1].label == "Alternatives not recorded in the source"
    assert record.selected_option_id == record.options[0].id


def test_more_than_four_options_are_merged_not_dropped(journal: Journal) -> None:
    _import(journal)
    record = _titles(journal)["Pick a web framework"]
    labels = [o.label for o in record.options]
    assert labels == ["Flask", "Django", "FastAPI", "Other considered options"]
    assert record.options[3].description == "Starlette; Bottle"
    assert record.selected_label() == "FastAPI"
    merged = {r.option_id: r.reason for r in record.rejected_reasons}["other-considered-options"]
    assert "Bottle: small community" in merged and "Starlette: (not recorded" in merged


def test_second_run_adds_nothing_and_an_edited_adr_is_a_conflict(
    journal: Journal, tmp_path: Path
) -> None:
    folder = tmp_path / "adr"
    shutil.copytree(DATA, folder)
    _import(journal, folder)
    again = _import(journal, folder)
    assert again.imported == 0 and again.unchanged == 5 and again.conflicts == []
    adr = folder / "0002-queue-for-retries.md"
    adr.write_text(adr.read_text().replace("scale with load", "scale with traffic"))
    edited = _import(journal, folder)
    assert len(edited.conflicts) == 1
    assert edited.conflicts[0].message.startswith("reads differently from when it was imported")
    assert "its source was edited, or a newer importer reads more of it" in (
        edited.conflicts[0].message
    )
    assert len(journal.store.list()) == 5


EDGE = DATA.parents[2] / "madr_edge"


def test_status_phrases_are_read_whole() -> None:
    """MADR's own records use `status: on hold`: not a decision yet, and said so in full."""
    parts = parse_adr((EDGE / "0003-write-own-tooling.md").read_text())
    assert parts.status_phrase == "on hold" and not parts.decided
    assert parse_adr("---\nstatus: Superseded by [ADR-5](0005.md)\n---\n# T\n").decided


def test_on_hold_adr_is_skipped_with_its_whole_status(journal: Journal) -> None:
    report = _import(journal, EDGE / "0003-write-own-tooling.md")
    assert dict(report.skipped_by_reason()) == {"status on hold: not a decision yet": 1}


def test_examples_and_sub_headings_keep_reasons_with_their_option() -> None:
    """A fenced example's bullets are not arguments; an "Examples" sub-heading stays inside
    its option; bullets after the options belong to none of them."""
    parts = parse_adr((EDGE / "0008-track-the-status.md").read_text())
    assert parts.rejections == {
        "use a badge": "it depends on an online badge service",
        "use a text line": "the line must be maintained by hand",
    }


def test_markdown_escapes_are_resolved_outside_code(journal: Journal) -> None:
    parts = parse_adr((EDGE / "0008-track-the-status.md").read_text())
    assert "quoted in $ and 100% of records" in parts.context
    assert parts.reason == "it is read by most *Markdown* tools"
    assert "\\" not in parts.context + parts.reason
    run_import(journal, make_importer("madr"), EDGE / "0008-track-the-status.md")
    (record,) = journal.store.list()
    assert record.problem.startswith("Track the Status of a Record")
    assert "\\$" not in record.problem


def test_a_nygard_date_line_dates_the_record(journal: Journal) -> None:
    """adr-tools writes `Date: 2019-02-01` under the title, not as a bullet or front matter."""
    assert parse_adr((DATA / "0003-nygard-logging.md").read_text()).date == "2019-02-01"
    _import(journal)
    record = _titles(journal)["Log as JSON lines"]
    assert record.created_at is not None and str(record.created_at) == "2019-02-01T00:00:00Z"


def test_a_date_word_in_the_context_is_not_the_adrs_date() -> None:
    text = (
        "# 4. Rotate keys\n\n## Status\n\nAccepted\n\n## Context\n\n"
        "Date: 2001-01-01 is when the old key was made.\n\n## Decision\n\nRotate yearly.\n"
    )
    assert parse_adr(text).date == ""


def test_consequences_are_kept_with_the_chosen_option(journal: Journal) -> None:
    """MADR 3/4 "Good, because" / "Bad, because" bullets, MADR 2 "Positive" and "Negative
    Consequences" lists, and a Nygard ADR's Consequences prose all describe the chosen
    approach; they become its pros, cons or description instead of being dropped."""
    _import(journal)
    records = _titles(journal)
    queue = records["Use a queue for checkout retries"]
    chosen = next(o for o in queue.options if o.id == queue.selected_option_id)
    assert chosen.pros == ["retries are durable"] and chosen.cons == ["we run one more service"]
    madr2 = records["Use Markdown Architectural Decision Records"]
    chosen = next(o for o in madr2.options if o.id == madr2.selected_option_id)
    assert "Decisions are easy to find" in chosen.pros
    nygard = records["Log as JSON lines"]
    assert nygard.options[0].description == (
        "We will write logs as one JSON object per line. "
        "Consequences: Humans need a pretty-printer to read local logs."
    )
