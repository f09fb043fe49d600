"""A journal path that is a file (or lies inside one): every command says so in one line that
names the runbook entry and exits 6; `doctor` reports it as a finding."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.integration.cli_runner import run_cli

COMMANDS = [
    ["list"],
    ["show", "decision-test-1"],
    ["history", "decision-test-1"],
    ["edit", "decision-test-1", "--expected-revision", "1", "--reason", "x"],
    ["delete", "decision-test-1", "--expected-revision", "1"],
    ["restore", "decision-test-1", "--expected-revision", "1"],
    ["export"],
    ["profile", "show"],
    ["pending"],
    ["status"],
    ["notes"],
    ["import", "-"],
    ["confirm", "--all"],
    ["outcome", "decision-test-1", "--ci", "pass"],
    ["outcome-stats"],
    ["recall", "cache"],
    ["sync", "status"],
    ["ask", "-", "--no-app", "--no-terminal"],
]


@pytest.fixture(params=["file", "below-a-file"])
def journal(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    blocker = tmp_path / "journal"
    blocker.write_text("not a journal\n")
    return blocker if request.param == "file" else blocker / "inner"


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_every_command_says_the_journal_is_not_a_folder(journal: Path, command: list[str]) -> None:
    result = run_cli(journal, *command, stdin="")
    assert result.returncode == 6, result.stdout + result.stderr
    [line] = result.stderr.splitlines()
    assert line.startswith(f"decision-journal: error: the journal {journal} ")
    assert "is a file, not a folder" in line
    assert "see: decision-journal help runbook journal-not-a-folder; " in line
    assert result.stdout == ""
    assert Path(journal if journal.name == "journal" else journal.parent).read_text() == (
        "not a journal\n"
    )


def test_doctor_names_it_as_a_finding(journal: Path) -> None:
    result = run_cli(journal, "doctor", "--json")
    assert result.returncode == 6, result.stderr
    findings = json.loads(result.stdout)["findings"]
    assert [f["runbook"] for f in findings] == ["journal-not-a-folder"]
    assert "is a file, not a folder" in findings[0]["problem"]
    text = run_cli(journal, "doctor")
    assert text.returncode == 6
    assert "journal-not-a-folder" in text.stdout + text.stderr


def test_help_runbook_still_prints_the_entry(journal: Path) -> None:
    result = run_cli(journal, "help", "runbook", "journal-not-a-folder")
    assert result.returncode == 0, result.stderr
    assert "## journal-not-a-folder" in result.stdout
