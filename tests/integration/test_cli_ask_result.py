"""What `decision-journal ask` prints once the human answered: the KernForge result fields,
and the answer in English for the agent that reads it, as the MCP tool says it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pexpect

from core.record.summary import english_summary
from core.store.decisions import DecisionStore
from tests.factories import proposal_dict
from tests.integration.cli_runner import ROOT

HANGUL = re.compile("[\uac00-\ud7a3]")


def _answer_in_terminal(tmp_path: Path, journal: Path) -> dict[str, object]:
    proposal = tmp_path / "proposal.json"
    proposal.write_text(json.dumps(proposal_dict()))
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env["XDG_RUNTIME_DIR"] = str(tmp_path / "run")
    (tmp_path / "run").mkdir(mode=0o700)
    env["PYTHONPATH"] = str(ROOT)
    arguments = ["-m", "app.cli.main", "--journal", str(journal), "ask", str(proposal)]
    child = pexpect.spawn(
        sys.executable,
        [*arguments, "--workspace", str(ROOT)],
        env=env,
        cwd=str(ROOT),
        encoding="utf-8",
        timeout=30,
    )
    child.expect("no default")
    child.sendline("2")
    child.expect("Why did you choose")
    child.sendline("easy to diff.")
    child.expect("Why did you not choose")
    child.sendline("too many files")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.before
    output = child.before
    result: dict[str, object] = json.loads(output[output.index("{") :])
    return result


def test_a_recorded_answer_reads_in_english_beside_the_stored_korean_sentence(
    tmp_path: Path,
) -> None:
    journal = tmp_path / "journal"
    result = _answer_in_terminal(tmp_path, journal)
    assert result["status"] == "recorded"
    record = DecisionStore(journal).get(str(result["decision_id"]))
    assert result["summary_sentence"] == result["summary_ko"] == record.summary_sentence
    assert HANGUL.search(record.summary_sentence)
    assert result["summary"] == english_summary(record)
    message = str(result["message"])
    assert not HANGUL.search(message), message
    assert message.startswith(
        f"Implementation decision recorded: {record.selected_label()} (id={record.id}). "
    )
    assert message.endswith(f" Summary: {english_summary(record)}")


def test_several_problems_are_listed_once_without_naming_only_the_first_field(
    tmp_path: Path,
) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env["PYTHONPATH"] = str(ROOT)
    journal = tmp_path / "journal"
    arguments = ["-m", "app.cli.main", "--journal", str(journal), "ask", "-", "--no-app"]
    result = subprocess.run(
        [sys.executable, *arguments, "--no-terminal"],
        input='{"problem": "Pick a queue"}',
        env=env,
        cwd=str(ROOT),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    first = result.stderr.splitlines()[0]
    assert first.startswith("decision-journal: error: invalid implementation decision proposal")
    assert "decision_kind: is required" in first and "options: is required" in first
    assert "(field: " not in first, first


def test_a_proposal_carrying_terminal_escapes_is_refused_and_never_printed_raw(
    tmp_path: Path,
) -> None:
    """`ask` is the third way an agent proposes (beside the socket and MCP): the same rule."""
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env["PYTHONPATH"] = str(ROOT)
    journal = tmp_path / "journal"
    hostile = proposal_dict(problem="Pick \x1b]52;c;cm0gLXJmIH4K\x07 \u202eevil\u202c")
    arguments = ["-m", "app.cli.main", "--journal", str(journal), "ask", "-", "--no-app"]
    result = subprocess.run(
        [sys.executable, *arguments, "--no-terminal", "--workspace", str(ROOT)],
        input=json.dumps(hostile),
        env=env,
        cwd=str(ROOT),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2, result.stderr
    assert "problem: must not contain control characters" in result.stderr
    assert "U+001B at character 6" in result.stderr
    assert "\x1b" not in result.stdout + result.stderr
    assert "\u202e" not in result.stdout + result.stderr
    assert not (journal / "pending").exists() or not list((journal / "pending").glob("*.json"))
