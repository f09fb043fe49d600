"""`decision-journal modes`, `overrule` and `principles export` run as real processes."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from core.capture.machine import Recorded
from tests.core.decider.support import KIND, Journal, database_proposal
from tests.integration.cli_runner import run_cli

cli = run_cli


def modes(journal: Path) -> dict[str, Any]:
    run = cli(journal, "modes", "--json")
    assert run.returncode == 0, run.stderr
    [kind] = json.loads(run.stdout)["kinds"]
    assert isinstance(kind, dict)
    return kind


@pytest.fixture
def journal(tmp_path: Path) -> Journal:
    return Journal(tmp_path / "journal")


def test_modes_recommend_auto_only_after_ten_agreeing_predictions(journal: Journal) -> None:
    journal.answer_many(11)
    kind = modes(journal.root)
    assert (kind["kind"], kind["mode"], kind["scored_predictions"]) == ("database-engine", "ask", 9)
    assert not kind["auto_recommended"]
    refused = cli(journal.root, "modes", "set", "database engine", "auto")
    assert refused.returncode == 7
    assert "auto is not recommended for 'database-engine': 9 scored predictions" in refused.stderr
    assert cli(journal.root, "modes", "set", KIND, "sometimes").returncode == 2

    journal.answer_many(1, start=11)
    kind = modes(journal.root)
    assert (kind["scored_predictions"], kind["agreement"], kind["auto_recommended"]) == (
        10,
        1.0,
        True,
    )
    table = cli(journal.root, "modes")
    assert table.returncode == 0 and "database-engine" in table.stdout
    assert "recommended" in table.stdout
    policy = journal.root / "decider" / "policy.json"
    assert f"human-only projects are this machine's: {policy}" in table.stdout
    assert "Modes, scores and overrules move with the journal to every machine" in table.stdout
    done = cli(journal.root, "modes", "set", "database_engine", "auto")
    assert done.returncode == 0, done.stderr
    assert "database-engine: auto" in done.stdout
    assert modes(journal.root)["mode"] == "auto"


def test_two_overrules_demote_and_the_history_says_so(journal: Journal) -> None:
    journal.answer_many(12)
    assert cli(journal.root, "modes", "set", KIND, "auto").returncode == 0
    ids = []
    for number in (100, 101):
        outcome = journal.present(database_proposal(number))
        assert isinstance(outcome, Recorded) and outcome.decided_by == "profile"
        ids.append(outcome.record.id)
    first = cli(journal.root, "overrule", ids[0], "--select", "SQLite")
    assert first.returncode == 0, first.stderr
    assert "now SQLite (revision 2)" in first.stdout
    again = cli(journal.root, "overrule", ids[0], "--select", "postgres")
    assert again.returncode == 7 and "answered by the person" in again.stderr
    second = cli(journal.root, "overrule", ids[1], "--select", "sqlite", "--reason", "tiny tool")
    assert second.returncode == 0 and "asked again (mode ask)" in second.stdout
    kind = modes(journal.root)
    assert kind["mode"] == "ask"
    [demotion] = kind["demotions"]
    assert demotion["reason"].startswith("demoted: 2 overrules within 7 days")
    assert cli(journal.root, "overrule", "decision-nope", "--select", "x").returncode == 5


def test_principle_docs_version_moves_only_when_rules_change(
    journal: Journal, tmp_path: Path
) -> None:
    journal.answer_many(10)
    journal.answer(database_proposal(50), "sqlite")
    out = tmp_path / "principles"
    first = cli(journal.root, "principles", "export", str(out))
    assert first.returncode == 0, first.stderr
    doc = (out / "storage.md").read_text(encoding="utf-8")
    assert doc.startswith("# Principles: storage\n")
    assert "Version 1 ·" in doc
    assert "### For database-engine decisions, choose Postgres" in doc
    assert "- Strength: moderate: 10 of 11 similar decisions" in doc
    assert "- Last confirmed: 20" in doc
    assert "Examples:" in doc and "→ chose **Postgres**" in doc
    assert "Counter-examples:" in doc and "→ chose **SQLite**" in doc
    assert "- Mode: ask (agreement" in doc
    assert "## Changelog" in doc and "- Version 1 (" in doc

    journal.answer_many(1, start=60)  # more support, same rules
    again = cli(journal.root, "principles", "export", str(out))
    assert "version 1 (unchanged rules)" in again.stdout
    doc = (out / "storage.md").read_text(encoding="utf-8")
    assert "Version 1 ·" in doc and "11 of 12 similar decisions" in doc

    journal.answer_many(2, start=70)
    assert cli(journal.root, "modes", "set", KIND, "auto").returncode == 0
    third = cli(journal.root, "principles", "export", str(out))
    assert "version 2 (new version)" in third.stdout
    doc = (out / "storage.md").read_text(encoding="utf-8")
    assert "Version 2 ·" in doc and "- Mode: auto" in doc
    assert "- Version 2 (" in doc and "mode ask → Postgres, mode auto" in doc


def test_principles_export_leaves_the_persons_own_files_alone(
    journal: Journal, tmp_path: Path
) -> None:
    """Only a doc an export wrote is replaced; the person's own storage.md, a FIFO or a link
    at that name stops the export before anything is written."""
    journal.answer_many(10)
    out = tmp_path / "principles"
    out.mkdir()
    mine = out / "storage.md"
    mine.write_text("my own notes about storage, not generated\n", encoding="utf-8")
    refused = cli(journal.root, "principles", "export", str(out))
    assert refused.returncode == 2, refused.stdout
    assert f"{mine} exists and is not a principle doc Decision Journal wrote" in refused.stderr
    assert mine.read_text(encoding="utf-8") == "my own notes about storage, not generated\n"
    mine.unlink()
    os.mkfifo(mine)
    assert cli(journal.root, "principles", "export", str(out)).returncode == 2
    assert mine.is_fifo()
    mine.unlink()
    assert cli(journal.root, "principles", "export", str(out)).returncode == 0
    assert cli(journal.root, "principles", "export", str(out)).returncode == 0  # its own doc


def test_principles_export_without_rules_says_so(tmp_path: Path) -> None:
    run = cli(tmp_path / "empty", "principles", "export", str(tmp_path / "out"))
    assert run.returncode == 5 and "no enabled rules" in run.stderr


def test_principles_export_keep_and_forget(journal: Journal, tmp_path: Path) -> None:
    journal.answer_many(3)
    out = tmp_path / "kept"
    kept = cli(journal.root, "principles", "export", str(out), "--keep")
    assert kept.returncode == 0, kept.stderr
    assert "rewrites them after each profile rebuild" in kept.stdout
    assert (out / "storage.md").exists()
    forgot = cli(journal.root, "principles", "forget")
    assert forgot.returncode == 0 and f"No longer kept current: {out.resolve()}." in forgot.stdout
    again = cli(journal.root, "principles", "forget")
    assert "No folder was kept current." in again.stdout
