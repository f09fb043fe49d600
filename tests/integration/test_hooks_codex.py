"""`decision-journal hook codex`: the same gate for Bash, apply_patch and MCP tools, in the
output shape Codex reads (no field beyond `hookSpecificOutput`, since Codex fails open on
unknown ones)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.hook_support import (
    Place,
    hook_place,
    make_pending,
    run_hook,
    run_hook_inline,
)

pytestmark = pytest.mark.timeout(60)

CODEX_INPUTS = [
    "codex_bash.input.json",
    "codex_apply_patch.input.json",
    "codex_other_mcp.input.json",
    "codex_own_mcp.input.json",
]


@pytest.fixture
def place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Place]:
    with hook_place(tmp_path, monkeypatch, session="codex-session-1") as place:
        yield place


@pytest.fixture
def pending(place: Place) -> Place:
    return dataclasses.replace(place, decision_id=make_pending(place.journal, place.workspace))


@pytest.mark.parametrize("name", CODEX_INPUTS)
def test_nothing_pending_prints_nothing(place: Place, name: str) -> None:
    run = run_hook_inline(place, "codex", place.golden_text(name))
    assert (run.returncode, run.stdout) == (0, "")


def test_pending_decision_denies_bash_with_the_golden_output(pending: Place) -> None:
    run = run_hook(pending, "codex", pending.golden_text("codex_bash.input.json"))
    assert run.returncode == 0, run.stderr
    output = json.loads(run.stdout)
    assert output == pending.golden("codex_bash.deny.expected.json")
    assert set(output) == {"hookSpecificOutput"}
    assert set(output["hookSpecificOutput"]) == {
        "hookEventName",
        "permissionDecision",
        "permissionDecisionReason",
    }


@pytest.mark.parametrize(
    ("name", "decision"),
    [
        ("codex_apply_patch.input.json", "deny"),
        ("codex_other_mcp.input.json", "deny"),
        ("codex_own_mcp.input.json", None),
    ],
)
def test_pending_decision_gates_patches_and_mcp_tools(
    pending: Place, name: str, decision: str | None
) -> None:
    run = run_hook_inline(pending, "codex", pending.golden_text(name))
    if decision is None:
        assert run.stdout == ""
    else:
        assert json.loads(run.stdout)["hookSpecificOutput"]["permissionDecision"] == decision


def test_codex_hook_failure_blocks_with_exit_2_while_pending(pending: Place) -> None:
    run = run_hook(pending, "codex", '{"tool_name": 42}')
    assert run.returncode == 2
    assert "blocked" in run.stderr


def test_codex_never_answers_ask_user_question(place: Place) -> None:
    run = run_hook_inline(place, "codex", place.golden_text("claude_ask_one.input.json"))
    assert (run.returncode, run.stdout) == (0, "")
