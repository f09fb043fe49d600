"""Export formats, index-backed listing and `doctor --reindex` through the real CLI process."""

from __future__ import annotations

import csv
import io
import json
import os
import socket
from pathlib import Path

import pytest

from core.exporters.json_export import export_journal
from core.index.index_file import index_path
from core.store.decisions import DecisionStore
from tests.factories import two_project_journal
from tests.integration.cli_runner import run_cli


@pytest.fixture
def journal(tmp_path: Path) -> Path:
    return two_project_journal(
        tmp_path / "journal", "Pick a cache invalidation strategy | fast, or safe?"
    )


def test_json_export_is_the_store_export(journal: Path, tmp_path: Path) -> None:
    target = tmp_path / "out" / "all.json"
    target.parent.mkdir()
    result = run_cli(journal, "export", "--format", "json", "-o", str(target))
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"Exported 2 decisions to {target}\n"
    assert target.read_bytes() == export_journal(DecisionStore(journal))
    stdout = run_cli(journal, "export", "--private", "-o", "-")
    assert stdout.stdout.encode() == export_journal(DecisionStore(journal), include_private=True)


def test_madr_export_writes_a_folder(journal: Path, tmp_path: Path) -> None:
    target = tmp_path / "adr"
    result = run_cli(journal, "export", "--format", "madr", "-o", str(target))
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"Exported 2 decisions to {target}\n"
    names = sorted(p.name for p in target.iterdir())
    assert names == [
        "0001-choose-the-canonical-cross-project-decision-storage-layout.md",
        "0002-pick-a-cache-invalidation-strategy-fast-or-safe.md",
        "index.md",
    ]
    first = (target / names[0]).read_text("utf-8")
    assert first.startswith('---\nstatus: "accepted"\ndate: ')
    for to_stdout in (("-o", "-"), ()):
        refused = run_cli(journal, "export", "--format", "madr", *to_stdout)
        assert refused.returncode == 2
        assert (
            "madr writes a folder, not standard output; give -o FOLDER (e.g. -o "
            + ("decision-journal-madr-")
            in refused.stderr
        )
    again = run_cli(journal, "export", "--format", "madr", "-o", str(target))
    assert again.returncode == 2
    assert f"{target} is not empty; add --force to replace its files" in again.stderr
    (target / "index.md").write_text("mine")
    forced = run_cli(journal, "export", "--format", "madr", "-o", str(target), "--force")
    assert forced.returncode == 0 and (target / "index.md").read_text() != "mine"


def test_markdown_and_csv_exports(journal: Path, tmp_path: Path) -> None:
    log = run_cli(journal, "export", "--format", "markdown", "--kind", "cache_policy", "-o", "-")
    assert log.returncode == 0, log.stderr
    rows = [line for line in log.stdout.splitlines() if line.startswith("| 2")]
    assert len(rows) == 1 and "strategy \\| fast, or safe?" in rows[0]
    target = tmp_path / "decisions.csv"
    result = run_cli(journal, "export", "--format", "csv", "-o", str(target))
    assert result.returncode == 0, result.stderr
    table = list(csv.DictReader(io.StringIO(target.read_text("utf-8"), newline="")))
    assert [row["id"] for row in table] == ["decision-test-2", "decision-test-1"]
    assert table[0]["problem"] == "Pick a cache invalidation strategy | fast, or safe?"


def test_export_fails_closed_on_an_unreadable_record(journal: Path, tmp_path: Path) -> None:
    (journal / "records" / "broken.json").write_text("{")
    for fmt in ("json", "madr", "csv"):
        failed = run_cli(journal, "export", "--format", fmt, "-o", str(tmp_path / fmt))
        assert failed.returncode == 6
        assert "1 unreadable record(s)" in failed.stderr
        assert "see: decision-journal help runbook unreadable-record;" in failed.stderr
        assert not (tmp_path / fmt).exists()


def test_list_uses_the_index_with_word_search(journal: Path) -> None:
    listed = run_cli(journal, "list", "--json", "--query", "INVALIDATION strat")
    assert listed.returncode == 0, listed.stderr
    assert [r["id"] for r in json.loads(listed.stdout)] == ["decision-test-2"]
    assert index_path(journal).is_file()
    everything = json.loads(run_cli(journal, "list", "--json").stdout)
    assert [r["id"] for r in everything] == ["decision-test-2", "decision-test-1"]
    assert everything[1] == json.loads((journal / "records" / "decision-test-1.json").read_text())
    (journal / "records" / "broken.json").write_text("{")
    warned = run_cli(journal, "list")
    assert warned.returncode == 0
    assert "unreadable record" in warned.stderr and "decision-test-1" in warned.stdout


def test_doctor_reindex(journal: Path) -> None:
    result = run_cli(journal, "doctor", "--reindex")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("Reindexed 2 records in ")
    (journal / "records" / "broken.json").write_text("{")
    damaged = run_cli(journal, "doctor", "--reindex", "--json")
    assert damaged.returncode == 6
    report = json.loads(damaged.stdout)
    assert report["indexed"] == 2
    assert [Path(i["path"]).name for i in report["unreadable"]] == ["broken.json"]


def test_even_force_never_replaces_a_fifo_or_a_socket(journal: Path, tmp_path: Path) -> None:
    """An export replaces the file it writes: a FIFO someone reads, a socket or `/dev/full`
    (as root) must stay what it is."""
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    listening = socket.socket(socket.AF_UNIX)
    listening.bind(str(tmp_path / "out.sock"))
    try:
        for target in (fifo, tmp_path / "out.sock"):
            refused = run_cli(journal, "export", "-o", str(target), "--force")
            assert refused.returncode == 2, refused.stderr
            assert "is a pipe, a device or a socket, not a file" in refused.stderr
            assert not target.is_file()
    finally:
        listening.close()
    assert fifo.is_fifo()
