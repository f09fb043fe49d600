"""Running `decision-journal hook …` as the clients do, with golden payloads from tests/data/hooks.

Placeholders in the golden files (`<WORKSPACE>`, `<SESSION>`, `<DECISION_ID>`) are replaced
before use, so the files stay readable and the comparisons stay exact.
"""

from __future__ import annotations

import io
import json
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from app.hooks import claude_code, codex, copilot, cursor, gemini, opencode, qwen
from core.capture.machine import CaptureService, NeedsHuman
from core.capture.pending import PendingStore
from core.journal import Journal
from core.store.decisions import DecisionStore
from tests.factories import proposal_dict
from tests.integration.agent_support import ROOT, agent_env, cli_command, short_runtime_dir

DATA = ROOT / "tests" / "data" / "hooks"


@dataclass(frozen=True)
class Place:
    """Where the agent works and who it is; fills the golden placeholders."""

    journal: Path
    workspace: Path
    runtime: Path
    session: str = "claude-session-1"
    decision_id: str = "<none>"

    def fill(self, text: str) -> str:
        return (
            text.replace("<WORKSPACE>", str(self.workspace))
            .replace("<SESSION>", self.session)
            .replace("<DECISION_ID>", self.decision_id)
        )

    def golden(self, name: str) -> Any:
        return json.loads(self.fill((DATA / name).read_text(encoding="utf-8")))

    def golden_text(self, name: str) -> str:
        return self.fill((DATA / name).read_text(encoding="utf-8"))


@contextmanager
def hook_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, session: str = "claude-session-1"
) -> Iterator[Place]:
    """A workspace, a journal and a private runtime directory (the app's socket lives there),
    with no CLAUDE_PROJECT_DIR inherited from whoever runs the tests."""
    workspace = tmp_path / "repo"
    workspace.mkdir()
    with short_runtime_dir() as runtime:
        monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
        monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)
        yield Place(tmp_path / "journal", workspace, runtime, session=session)


def run_hook(place: Place, client: str, stdin: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        cli_command(place.journal, "hook", client),
        input=stdin,
        env=agent_env(place.runtime),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def run_hook_inline(place: Place, client: str, stdin: str) -> subprocess.CompletedProcess[str]:
    """The same hook in this process: for the many cases where process start-up adds nothing
    (the exit-code and golden cases run as real processes)."""
    modules = {"claude-code": claude_code, "codex": codex, "gemini": gemini}
    modules |= {"copilot": copilot, "cursor": cursor, "qwen": qwen, "opencode": opencode}
    module = modules[client]
    out, err = io.StringIO(), io.StringIO()
    code = module.run(Journal(place.journal), io.StringIO(stdin), out, err)
    return subprocess.CompletedProcess([], code, out.getvalue(), err.getvalue())


def make_pending(journal: Path, workspace: Path, session: str = "mcp-other-session") -> str:
    """A decision pending in `workspace`, asked from an MCP session other than the hook's."""
    service = CaptureService(DecisionStore(journal), PendingStore(journal))
    outcome = service.begin(proposal_dict(), workspace=str(workspace), session_id=session)
    assert isinstance(outcome, NeedsHuman)
    return outcome.ticket.decision_id
