"""The hook blocks, never crashes, when the journal's code cannot load while a decision may be
pending.

Why: a Python traceback exits 1, which Claude Code, Codex and Gemini CLI all read as "the hook
failed; run the tool". When a person new to the project tried it, a half-changed install (a circular
import in `core`) let Claude Code 2.1.332 run a NotebookEdit while a decision was pending. The
quick check (stdlib only) still knows something may be pending, so the hook must exit 2 with
the reason on stderr.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from app.hooks import entry, pretool
from tests.integration.agent_support import ROOT, agent_env, short_runtime_dir
from tests.integration.hook_support import make_pending

pytestmark = pytest.mark.timeout(60)

BROKEN_INSTALL = """
import sys
class Broken:
    def find_spec(self, name, path=None, target=None):
        if name == "core.journal":
            raise ImportError("cannot import name 'X' from partially initialized module")
        return None
sys.meta_path.insert(0, Broken())
from app.cli.main import main
sys.exit(main(sys.argv[1:]))
"""
"""`decision-journal` whose `core.journal` cannot be imported, as in a half-upgraded install."""


def _run_broken(journal: Path, workspace: Path, tool: str) -> subprocess.CompletedProcess[str]:
    event = {
        "session_id": "claude-session",
        "cwd": str(workspace),
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": {"notebook_path": str(workspace / "nb.ipynb"), "new_source": "x"},
        "tool_use_id": "toolu_1",
    }
    with short_runtime_dir() as runtime:
        return subprocess.run(
            [
                sys.executable,
                "-c",
                BROKEN_INSTALL,
                "--journal",
                str(journal),
                "hook",
                "claude-code",
            ],
            input=json.dumps(event),
            env=agent_env(runtime),
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )


def test_a_broken_install_blocks_while_a_decision_is_pending(tmp_path: Path) -> None:
    """The pending index names the decision: the quick path denies without the journal's
    code. Without a usable index the full path must load that code, and when it cannot, it
    blocks with exit 2."""
    workspace = tmp_path / "repo"
    workspace.mkdir()
    decision_id = make_pending(tmp_path / "journal", workspace)
    quick = _run_broken(tmp_path / "journal", workspace, "NotebookEdit")
    assert quick.returncode == 0, quick.stderr
    specific = json.loads(quick.stdout)["hookSpecificOutput"]
    assert specific["permissionDecision"] == "deny"
    assert decision_id in specific["permissionDecisionReason"]
    (tmp_path / "journal" / "pending" / ".index.json").unlink()
    run = _run_broken(tmp_path / "journal", workspace, "NotebookEdit")
    assert (run.returncode, run.stdout) == (2, ""), run.stderr
    assert "could not load its code (ImportError" in run.stderr, run.stderr
    assert "Traceback" not in run.stderr and "decision-journal pending" in run.stderr


def test_a_broken_install_never_blocks_when_nothing_is_pending(tmp_path: Path) -> None:
    workspace = tmp_path / "repo"
    workspace.mkdir()
    (tmp_path / "journal").mkdir()
    run = _run_broken(tmp_path / "journal", workspace, "NotebookEdit")
    assert (run.returncode, run.stdout, run.stderr) == (0, "", "")


def test_the_block_code_is_the_gates_own() -> None:
    assert entry.BLOCK == pretool.BLOCK
