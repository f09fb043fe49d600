"""`import`, `confirm`, `outcome`, `outcome-stats` and `recall` through a real process."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.integration.cli_runner import ROOT, run_cli

DATA = ROOT / "tests" / "data" / "importers"
CLAUDE = DATA / "claude" / "projects"


@pytest.fixture(autouse=True)
def _no_real_claude(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Never read the real ~/.claude: the default source points at an empty folder."""
    empty = tmp_path / "claude-home"
    (empty / "projects").mkdir(parents=True)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(empty))


def _json(result: subprocess.CompletedProcess[str]) -> dict[str, object]:
    assert result.returncode == 0, result.stderr
    value = json.loads(result.stdout)
    assert isinstance(value, dict)
    return value


def test_claude_code_folder_once_then_nothing(tmp_path: Path) -> None:
    journal = tmp_path / "journal"
    first = run_cli(journal, "import", str(CLAUDE))
    assert first.returncode == 0, first.stderr
    lines = first.stdout.splitlines()
    assert lines[0] == (
        "claude-code: read 12, imported 8, unchanged 0, skipped 4, conflicts 0, errors 0 "
        "(8 records)"
    )
    assert "  skipped 1: rejected by the user (the question was dismissed)" in lines
    second = _json(run_cli(journal, "import", str(CLAUDE), "--json"))
    assert (second["imported"], second["unchanged"], second["read"]) == (0, 8, 12)
    listed = json.loads(run_cli(journal, "list", "--json").stdout)
    assert len(listed) == 8


def test_default_source_is_the_claude_config_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "claude"
    shutil.copytree(CLAUDE, home / "projects")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home))
    report = _json(run_cli(tmp_path / "journal", "import", "--from", "claude-code", "--json"))
    assert report["imported"] == 8


def test_dry_run_and_since(tmp_path: Path) -> None:
    journal = tmp_path / "journal"
    dry = run_cli(journal, "import", str(CLAUDE), "--dry-run")
    assert dry.returncode == 0 and "dry run: would have read 12, imported 8" in dry.stdout
    assert not (journal / "records").exists()
    since = _json(run_cli(journal, "import", str(CLAUDE), "--since", "2026-10-05", "--json"))
    assert since["imported"] == 3
    assert sum(s["reason"] == "older than --since" for s in since["skipped"]) == 5  # type: ignore[union-attr,index]
    bad = run_cli(journal, "import", str(CLAUDE), "--since", "yesterday")
    assert bad.returncode == 2 and "--since expects YYYY-MM-DD" in bad.stderr


def test_markdown_log_and_adr_folder(tmp_path: Path) -> None:
    journal = tmp_path / "journal"
    log = run_cli(journal, "import", str(DATA / "decisions_md" / "decisions.md"))
    assert log.returncode == 0, log.stderr
    assert log.stdout.startswith("decisions-md: read 10, imported 9")
    adrs = run_cli(journal, "import", str(DATA / "madr" / "docs" / "decisions"))
    assert adrs.stdout.startswith("madr: read 6, imported 5")
    ours = run_cli(journal, "import", str(DATA / "decisions_md" / "our-log-2026-12-01.md"))
    assert ours.returncode == 0 and "errors 0" in ours.stdout
    for source in (DATA / "decisions_md" / "decisions.md", DATA / "madr" / "docs" / "decisions"):
        again = run_cli(journal, "import", str(source))
        assert "imported 0," in again.stdout and "conflicts 0, errors 0" in again.stdout


def test_unknown_source_needs_from(tmp_path: Path) -> None:
    odd = tmp_path / "notes.txt"
    odd.write_text("hello")
    result = run_cli(tmp_path / "journal", "import", str(odd))
    assert result.returncode == 2 and "name it with --from" in result.stderr
    missing = run_cli(tmp_path / "journal", "import", str(tmp_path / "nope"))
    assert missing.returncode == 2 and "does not exist" in missing.stderr


def test_decider_flags_exclude_rows(tmp_path: Path) -> None:
    ledger = tmp_path / "ledger.sqlite3"
    db = sqlite3.connect(ledger)
    db.executescript((DATA / "decider" / "ledger.sql").read_text())
    db.commit()
    db.close()
    report = _json(
        run_cli(
            tmp_path / "journal",
            "import",
            str(ledger),
            "--human-only",
            "garden-diary",
            "--personal-data",
            "diagnosis",
            "--json",
        )
    )
    reasons = [s["reason"] for s in report["skipped"]]  # type: ignore[union-attr,index]
    assert reasons.count("excluded: belongs to a human-only initiative") == 2
    assert reasons.count("excluded: matches personal-data pattern #1") == 1


def test_confirm_outcome_stats_and_recall(tmp_path: Path) -> None:
    journal = tmp_path / "journal"
    run_cli(journal, "import", str(CLAUDE))
    listed = json.loads(run_cli(journal, "list", "--json", "--query", "retries").stdout)
    record_id = listed[0]["id"]
    confirmed = run_cli(journal, "confirm", record_id)
    assert confirmed.stdout.strip() == "confirmed 1, already confirmed 0, failed 0"
    rest = run_cli(journal, "confirm", "--all", "--from", "claude-code")
    assert rest.stdout.strip() == "confirmed 7, already confirmed 0, failed 0"
    history = json.loads(run_cli(journal, "history", record_id, "--json").stdout)
    assert [r["provenance"]["selection"] for r in history] == ["imported", "user"]

    reported = run_cli(journal, "outcome", record_id, "--ci", "pass", "--accepted", "no")
    assert reported.returncode == 0 and "reward of this report: 0.400" in reported.stdout
    shown = _json(run_cli(journal, "outcome", record_id, "--json"))
    assert shown["outcome"] == "accept" and shown["reward"] == pytest.approx(0.4)
    assert run_cli(journal, "outcome", record_id, "--eval", "2").returncode == 2
    assert run_cli(journal, "outcome", "decision-missing", "--ci", "pass").returncode == 5

    stats = _json(run_cli(journal, "outcome-stats", "--json"))
    kinds = {k["decision_kind"]: k for k in stats["acceptance_by_kind"]}  # type: ignore[union-attr]
    assert kinds["retries"]["accept"] == 1 and kinds["cache"]["amend"] == 1

    recalled = json.loads(run_cli(journal, "recall", "checkout retries", "--json").stdout)
    assert recalled[0]["id"] == record_id and recalled[0]["kind"] == "decision"
    scoped = run_cli(journal, "recall", "drafts", "--project", "project-0000000000000000")
    assert scoped.stdout.strip() == "Nothing recalled."


def test_watch_imports_new_answers_until_interrupted(tmp_path: Path) -> None:
    source = tmp_path / "projects"
    (source / "-srv-app").mkdir(parents=True)
    transcript = source / "-srv-app" / "live.jsonl"
    transcript.write_text("")
    env = {k: v for k, v in os.environ.items() if k != "DECISION_JOURNAL_HOME"}
    env["PYTHONPATH"] = str(ROOT)
    journal = tmp_path / "journal"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "app.cli.main",
            "--journal",
            str(journal),
            "import",
            str(source),
            "--from",
            "claude-code",
            "--watch",
            "--interval",
            "0.1",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        question = {
            "question": "Ship it?",
            "header": "Ship",
            "multiSelect": False,
            "options": [{"label": "Yes"}, {"label": "No"}],
        }
        ask = {
            "type": "assistant",
            "sessionId": "live",
            "cwd": "/srv/app",
            "timestamp": "2026-11-01T10:00:00Z",
            "message": {
                "content": [
                    {
                        "type": "tool_use",
                        "id": "toolu_w",
                        "name": "AskUserQuestion",
                        "input": {"questions": [question]},
                    }
                ]
            },
        }
        answer = {
            "type": "user",
            "sessionId": "live",
            "cwd": "/srv/app",
            "timestamp": "2026-11-01T10:01:00Z",
            "message": {"content": [{"type": "tool_result", "tool_use_id": "toolu_w"}]},
            "toolUseResult": {"answers": {"Ship it?": "Yes"}},
        }
        with transcript.open("a") as handle:
            handle.write(json.dumps(ask) + "\n" + json.dumps(answer) + "\n")
        records = journal / "records"
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not list(records.glob("decision-*.json")):
            time.sleep(0.1)
        assert len(list(records.glob("decision-*.json"))) == 1
    finally:
        process.send_signal(signal.SIGINT)
        try:
            out, err = process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            out, err = process.communicate()
    assert "Watching" in out and "imported 1" in out, err
    assert (
        out.splitlines()[-1].startswith("claude-code: read 1, imported 1") and "(cancelled)" in out
    )


@pytest.mark.parametrize("interval", ["0", "-1", "nan", "inf", "1e308", "0.01"])
def test_a_watch_interval_out_of_range_is_refused_naming_the_flag(
    tmp_path: Path, interval: str
) -> None:
    """0 or NaN polled without rest; inf overflowed the clock with a traceback."""
    source = tmp_path / "decisions.md"
    source.write_text("| Date | Decision |\n| --- | --- |\n| 2026-11-02 | Use SQLite |\n")
    run = run_cli(
        tmp_path / "journal", "import", str(source), "--from", "decisions-md", "--watch",
        "--interval", interval,
    )  # fmt: skip
    assert run.returncode == 2, run.stderr
    assert "--interval must be 0.1 to 3,600 seconds, got " in run.stderr
    assert "Traceback" not in run.stderr
