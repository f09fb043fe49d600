"""`decision-journal ask`: in a real terminal, with nobody to ask, and with an app that dies.

It follows the MCP tool's contract (`docs/agents.md`): one pending decision per workspace,
the proposal format named on every input error, and `pending` with the id when the app goes.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
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


def _pending_files(journal: Path) -> list[Path]:
    """The pending decisions (the directory's hidden index is no decision)."""
    return sorted((journal / "pending").glob("decision-*.json"))


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
    assert "see: decision-journal help runbook app-not-running;" in data["message"]
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
    assert data["format"] == "docs/agents.md#present_implementation_decision"
    assert "options" in result.stderr
    assert "the proposal format is in docs/agents.md#present_implementation_decision" in (
        result.stderr
    )


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
    pending = _pending_files(journal)
    assert len(pending) == 1
    stored = json.loads(pending[0].read_text())
    assert stored["stage"] == "rationale" and stored["selected_option_id"] == "per-record-json"


def _ask(
    tmp_path: Path, journal: Path, *args: str, stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        _command(journal, *args),
        input=stdin,
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
        start_new_session=True,
    )


def test_a_missing_proposal_file_exits_2_and_names_the_format(tmp_path: Path) -> None:
    missing = tmp_path / "missing.json"
    result = _ask(tmp_path, tmp_path / "journal", str(missing))
    assert result.returncode == 2
    data = json.loads(result.stdout)
    assert data["status"] == "invalid"
    assert data["message"] == f"proposal file {missing} does not exist"
    assert data["violations"][0]["field"] == "file"
    assert result.stderr.splitlines() == [
        f"decision-journal: error: proposal file {missing} does not exist (field: file)",
        "decision-journal: the proposal format is in "
        "docs/agents.md#present_implementation_decision",
    ]
    assert not (tmp_path / "journal").exists()


def test_input_that_is_not_json_exits_2_and_names_the_format(tmp_path: Path) -> None:
    result = _ask(tmp_path, tmp_path / "journal", "-", stdin="{not json")
    assert result.returncode == 2
    assert json.loads(result.stdout)["message"].startswith("input is not JSON: ")
    assert "docs/agents.md#present_implementation_decision" in result.stderr


def test_a_second_proposal_in_a_workspace_with_one_pending_is_refused(tmp_path: Path) -> None:
    """docs/agents.md rule 5, as the MCP tool applies it: across sessions, and for a folder
    inside the pending one's workspace."""
    journal = tmp_path / "journal"
    first = _ask(tmp_path, journal, "-", "--session", "a", "--workspace", str(ROOT),
                 "--no-terminal", stdin=json.dumps(proposal_dict()))  # fmt: skip
    assert first.returncode == 3, first.stderr
    pending_id = json.loads(first.stdout)["decision_id"]
    other = proposal_dict(problem="Pick a cache invalidation strategy")
    second = _ask(tmp_path, journal, "-", "--session", "b", "--workspace", str(ROOT / "core"),
                  "--no-terminal", stdin=json.dumps(other))  # fmt: skip
    assert second.returncode == 3
    data = json.loads(second.stdout)
    assert data["status"] == "error" and data["pending_id"] == pending_id
    assert data["code"] == -32011 and data["runbook"] == "docs/runbook.md#decision-pending"
    assert f'{{"decision_id": "{pending_id}"}}' in data["message"]
    assert "still pending in this workspace" in second.stderr
    assert [p.stem for p in _pending_files(journal)] == [pending_id]
    resumed = _ask(tmp_path, journal, "-", "--session", "b", "--workspace", str(ROOT),
                   "--no-terminal", stdin=json.dumps({"decision_id": pending_id}))  # fmt: skip
    assert resumed.returncode == 3, resumed.stderr
    assert json.loads(resumed.stdout)["status"] == "pending"


def test_another_workspace_may_have_its_own_pending_decision(tmp_path: Path) -> None:
    journal = tmp_path / "journal"
    for session, workspace in (("a", ROOT), ("b", tmp_path)):
        place = ("--session", session, "--workspace", str(workspace), "--no-terminal")
        result = _ask(tmp_path, journal, "-", *place, stdin=json.dumps(proposal_dict()))
        assert result.returncode == 3, result.stderr
    assert len(_pending_files(journal)) == 2


def test_a_second_ask_of_one_script_for_another_workspace_names_the_session_rule(
    tmp_path: Path,
) -> None:
    """Both asks run as the script's default session: the refusal says why and how to
    give each workspace its own."""
    journal = tmp_path / "journal"
    results = [
        _ask(tmp_path, journal, "-", "--workspace", str(place), "--no-terminal", stdin=text)
        for place, text in (
            (ROOT, json.dumps(proposal_dict())),
            (tmp_path, json.dumps(proposal_dict(problem="Pick the cache eviction policy"))),
        )
    ]
    first, second = results
    assert (first.returncode, second.returncode) == (3, 3), second.stderr
    pending_id = json.loads(first.stdout)["decision_id"]
    refusal = json.loads(second.stdout)
    assert refusal["pending_id"] == pending_id
    for text in (refusal["message"], second.stderr):
        assert "one decision may be pending per agent session" in text, text
        assert "--session" in text and "this ask runs as session 'cli-" in text, text
    assert len(_pending_files(journal)) == 1


def test_help_describes_the_proposal_with_an_example_that_validates() -> None:
    from app.cli.capture_cmds import ASK_DESCRIPTION
    from core.capture.proposal import parse_proposal

    result = subprocess.run(
        [sys.executable, "-m", "app.cli.main", "ask", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0
    for words in ("decision_kind", "detector_confidence (0.65 to 1)", '{"decision_id": ',
                  "docs/agents.md#present_implementation_decision", "exits 2"):  # fmt: skip
        assert words in result.stdout
    example = ASK_DESCRIPTION[ASK_DESCRIPTION.index("{") : ASK_DESCRIPTION.index("]}") + 2]
    parsed = parse_proposal(json.loads(example), workspace=str(ROOT), session_id="help")
    assert [option.id for option in parsed.options] == ["per-record-json", "single-json"]


def test_the_app_dying_mid_question_leaves_the_decision_pending_with_its_id(
    tmp_path: Path, runtime_dir: Path
) -> None:
    """As the MCP tool answers: `pending` with the id and exit 3, not a lost connection."""
    from tests.integration.desktop import app_env, running_app

    journal = tmp_path / "journal"
    env = app_env(runtime_dir)
    with running_app(journal, env) as app:
        proposal = tmp_path / "proposal.json"
        proposal.write_text(json.dumps(proposal_dict()))
        asker = subprocess.Popen(
            _command(journal, str(proposal), "--session", "dies", "--workspace", str(ROOT)),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            text=True,
            start_new_session=True,
        )
        deadline = time.monotonic() + 30
        while not _pending_files(journal) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _pending_files(journal), "the app never saved the decision as pending"
        app.send_signal(signal.SIGKILL)
        out, err = asker.communicate(timeout=30)
    assert asker.returncode == 3, err
    data = json.loads(out)
    assert data["status"] == "pending" and data["stage"] == "choice"
    assert data["decision_id"] == _pending_files(journal)[0].stem
    assert (
        "the Decision Journal app closed before the human finished answering" in (data["message"])
    )
    assert "closed the connection" not in err
