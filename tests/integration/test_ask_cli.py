"""`decision-journal ask` without the app: in a real terminal, and with nobody to ask."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pexpect

from tests.factories import proposal_dict
from tests.integration.cli_runner import ROOT


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env["XDG_RUNTIME_DIR"] = str(tmp_path / "run")  # no app is started: only probed
    (tmp_path / "run").mkdir(mode=0o700, exist_ok=True)
    env["PYTHONPATH"] = str(ROOT)
    return env


def _arguments(journal: Path, *args: str) -> list[str]:
    return ["-m", "app.cli.main", "--journal", str(journal), "ask", *args]


def _command(journal: Path, *args: str) -> list[str]:
    return [sys.executable, *_arguments(journal, *args)]


def test_ask_without_app_or_terminal_saves_pending(tmp_path: Path) -> None:
    journal = tmp_path / "journal"
    result = subprocess.run(
        _command(journal, "-", "--session", "headless", "--workspace", str(ROOT)),
        input=json.dumps(proposal_dict()),
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
        start_new_session=True,  # no controlling terminal: /dev/tty cannot be opened
    )
    assert result.returncode == 3, result.stderr
    data = json.loads(result.stdout)
    assert data["status"] == "pending" and data["stage"] == "choice"
    assert "docs/runbook.md#app-not-running" in data["message"]
    assert (journal / "pending" / f"{data['decision_id']}.json").exists()


def test_ask_invalid_proposal_exits_2_with_violations(tmp_path: Path) -> None:
    journal = tmp_path / "journal"
    result = subprocess.run(
        _command(journal, "-", "--session", "s"),
        input=json.dumps(proposal_dict(options=[], detector_confidence="high")),
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
        start_new_session=True,
    )
    assert result.returncode == 2
    data = json.loads(result.stdout)
    fields = {v["field"] for v in data["violations"]}
    assert {"options", "detector_confidence"} <= fields
    assert "options" in result.stderr


def test_ask_in_terminal_records_with_explicit_choice(tmp_path: Path) -> None:
    journal = tmp_path / "journal"
    proposal = tmp_path / "proposal.json"
    proposal.write_text(json.dumps(proposal_dict()))
    child = pexpect.spawn(
        sys.executable,
        _arguments(journal, str(proposal), "--session", "tty-1", "--workspace", str(ROOT)),
        env=_env(tmp_path),
        cwd=str(ROOT),
        encoding="utf-8",
        timeout=30,
    )
    child.expect("no default")
    child.sendline("")  # Enter alone must not accept the recommendation
    child.expect("Nothing is chosen by default")
    child.sendline("o")
    child.expect("Your approach:")
    child.sendline("single json document")  # matches a label: canonicalized to its option
    child.expect("Why did you choose")
    child.sendline("easy to diff")
    child.expect("Why did you not choose")
    child.sendline("too many files")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    output = child.before
    result = json.loads(output[output.index("{") :])
    assert result["status"] == "recorded"
    assert result["selected_option_id"] == "single-json"


def test_ask_in_terminal_eof_keeps_selection_pending(tmp_path: Path) -> None:
    journal = tmp_path / "journal"
    proposal = tmp_path / "proposal.json"
    proposal.write_text(json.dumps(proposal_dict()))
    child = pexpect.spawn(
        sys.executable,
        _arguments(journal, str(proposal), "--session", "tty-2", "--workspace", str(ROOT)),
        env=_env(tmp_path),
        cwd=str(ROOT),
        encoding="utf-8",
        timeout=30,
    )
    child.expect("no default")
    child.sendline("1")
    child.expect("Why did you choose")
    child.sendeof()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 3
    pending = list((journal / "pending").glob("*.json"))
    assert len(pending) == 1
    stored = json.loads(pending[0].read_text())
    assert stored["stage"] == "rationale" and stored["selected_option_id"] == "per-record-json"
