"""What the real-client tests check the same way for every client: a session run bounded in
time, that it ended cleanly, and what our tools and hook answered inside it.

Why shared: each client has its own wire format and tool names, but the product promises the
same thing in all of them (the human's answer reaches the agent; while a decision is pending,
edits are blocked and our own tools are not), so the same checks say it once.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from tests.clients.support.agent_desktop import Person
from tests.clients.support.fake_http import RecordingServer

RUN_TIMEOUT = 120.0
SHELL_PROBE = "shell-ran.txt"
"""The file a scripted shell command creates: it must not exist after a blocked call."""
SHELL_COMMAND = f"touch {SHELL_PROBE}"
INSTALLED_BIN = Path(sys.executable).parent
"""Where `decision-journal` is installed (this interpreter's scripts folder)."""


class Output(Protocol):
    """A tool's output as the client sent it back to the model."""

    @property
    def text(self) -> str: ...

    def json(self) -> Any: ...


def path_with_installed() -> str:
    """PATH with our installed scripts first, as on a machine where Decision Journal is
    installed (project-scope files run the bare `decision-journal`)."""
    assert (INSTALLED_BIN / "decision-journal").exists(), INSTALLED_BIN
    return os.pathsep.join([str(INSTALLED_BIN), os.environ.get("PATH", os.defpath)])


def run_bounded(
    command: list[str], cwd: Path, env: dict[str, str], timeout: float = RUN_TIMEOUT
) -> subprocess.CompletedProcess[str]:
    """Runs one client session; a session still running after `timeout` is killed and comes
    back with exit code -9 and what it printed, so the test can say where it hung."""
    try:
        return subprocess.run(
            command,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired as timed_out:
        out, err = _text(timed_out.stdout), _text(timed_out.stderr)
        return subprocess.CompletedProcess(command, -9, out, err + "\n[timed out]")


def _text(value: bytes | str | None) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else value or ""


def check_clean(
    client: str,
    done: subprocess.CompletedProcess[str],
    fake: RecordingServer,
    outputs: Sequence[Output],
    person: Person | None = None,
) -> None:
    """The client exited 0, no scripted step failed and the person answered every window;
    a failure tells all of it with the outputs and the end of the client's log."""
    problems = [*fake.errors, person.problem() if person is not None else ""]
    trouble = "; ".join(p for p in problems if p)
    log = (done.stdout + done.stderr)[-6000:]
    story = f"{trouble}\ntool outputs: {list(outputs)}\n{client} ({done.returncode}):\n{log}"
    assert done.returncode == 0 and not trouble, story


def structured(output: Output) -> dict[str, Any]:
    """Our tool's structured result as the client handed it to the model (JSON text)."""
    value = output.json()
    assert isinstance(value, dict), output.text
    return value


def check_chosen_first(answer: dict[str, Any]) -> None:
    """The answer `agent_desktop.CHOOSE_FIRST` typed: option 1, with both reasons."""
    assert answer["status"] == "recorded", answer
    assert answer["selection"]["option_id"] == "per-record-json", answer
    assert answer["rationales"]["selected"] == "independent files never lose updates"
    assert answer["rationales"]["rejected"][0]["reason"] == "one document is a rewrite bottleneck"


def check_gated(outputs: Sequence[Output], edits: Sequence[str], resume_name: str) -> None:
    """A gating session's outputs: present (closed unanswered), one per edit in `edits`, our
    read tool, then two resumes by id.

    Each edit was denied naming the decision and the client's own resume call, the read tool
    ran and listed the pending decision, and both resumes returned the human's answer.
    """
    assert len(outputs) == 4 + len(edits), outputs
    first = structured(outputs[0])
    assert first["status"] == "pending", first
    decision_id = first["decision_id"]
    for blocked, tool in zip(outputs[1:], edits, strict=False):
        assert decision_id in blocked.text, f"{tool} was not blocked: {blocked.text}"
        assert resume_name in blocked.text, blocked.text
    recent = outputs[1 + len(edits)].text
    assert not re.search(r"blocked|denied", recent, re.IGNORECASE), recent
    assert decision_id in recent, recent
    resumed, again = structured(outputs[-2]), structured(outputs[-1])
    check_chosen_first(resumed)
    assert resumed["decision_id"] == decision_id
    assert again == resumed


def check_pending_then_blocked(journal: Path, outputs: Sequence[Output], workspace: Path) -> None:
    """A present call, with no app to show it, left pending in `journal`, and the shell call
    after it was blocked by the hook reading that same journal."""
    assert len(outputs) == 2, outputs
    decision_id = structured(outputs[0])["decision_id"]
    assert (journal / "pending" / f"{decision_id}.json").exists(), sorted(journal.rglob("*"))
    assert decision_id in outputs[1].text, outputs[1].text
    assert not (workspace / SHELL_PROBE).exists()
