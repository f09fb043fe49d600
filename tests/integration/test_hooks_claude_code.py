"""`decision-journal hook claude-code` with golden PreToolUse payloads: allow, deny, failures,
and AskUserQuestion answered through a scripted app (or falling back to the terminal)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from core.errors import ErrorCode, ProtocolError
from core.importers.agent_questions import (
    ALSO_CHOSEN,
    NO_REASON,
    NOT_CHOSEN,
    WINDOW_TAG,
    question_kind,
)
from core.store.decisions import DecisionStore
from tests.integration.agent_support import FakeApp, method_not_found
from tests.integration.hook_support import (
    Place,
    hook_place,
    make_pending,
    run_hook,
    run_hook_inline,
)

pytestmark = pytest.mark.timeout(60)

GATED = [
    "claude_edit.input.json",
    "claude_bash.input.json",
    "claude_other_mcp.input.json",
    "claude_unknown.input.json",
]
READ_ONLY = ["claude_read.input.json", "claude_own_mcp.input.json"]


@pytest.fixture
def place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Place]:
    with hook_place(tmp_path, monkeypatch) as place:
        yield place


@pytest.fixture
def pending(place: Place) -> Place:
    return dataclasses.replace(place, decision_id=make_pending(place.journal, place.workspace))


@pytest.mark.parametrize("name", [*GATED, *READ_ONLY])
def test_nothing_pending_prints_nothing(place: Place, name: str) -> None:
    run = run_hook_inline(place, "claude-code", place.golden_text(name))
    assert (run.returncode, run.stdout) == (0, "")


@pytest.mark.parametrize("name", [*GATED, *READ_ONLY])
@pytest.mark.parametrize("pending_dir", [False, True])
def test_nothing_pending_in_a_real_hook_process_prints_nothing(
    place: Place, name: str, pending_dir: bool
) -> None:
    """The process answers these from the pending directory's listing
    (`app.hooks.pending_answer`)."""
    if pending_dir:  # left empty after the last decision was answered
        (place.journal / "pending").mkdir(parents=True)
    run = run_hook(place, "claude-code", place.golden_text(name))
    assert (run.returncode, run.stdout, run.stderr) == (0, "", "")


def test_pending_decision_denies_edit_with_the_golden_reason(pending: Place) -> None:
    run = run_hook(pending, "claude-code", pending.golden_text("claude_edit.input.json"))
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == pending.golden("claude_edit.deny.expected.json")


@pytest.mark.parametrize("name", GATED[1:])
def test_pending_decision_denies_every_tool_not_known_read_only(pending: Place, name: str) -> None:
    run = run_hook_inline(pending, "claude-code", pending.golden_text(name))
    output = json.loads(run.stdout)["hookSpecificOutput"]
    assert output["permissionDecision"] == "deny"
    assert pending.decision_id in output["permissionDecisionReason"]


@pytest.mark.parametrize("name", READ_ONLY)
def test_read_only_tools_and_our_own_tools_stay_allowed(pending: Place, name: str) -> None:
    run = run_hook_inline(pending, "claude-code", pending.golden_text(name))
    assert (run.returncode, run.stdout) == (0, "")


def test_same_session_elsewhere_is_denied_other_projects_are_not(
    place: Place, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    make_pending(place.journal, elsewhere, session=place.session)
    denied = run_hook_inline(place, "claude-code", place.golden_text("claude_edit.input.json"))
    assert json.loads(denied.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"

    other_agent = dataclasses.replace(place, session="claude-session-2")
    allowed = run_hook_inline(
        other_agent, "claude-code", other_agent.golden_text("claude_edit.input.json")
    )
    assert (allowed.returncode, allowed.stdout) == (0, "")


def test_a_subdirectory_of_the_pending_workspace_is_denied(pending: Place) -> None:
    sub = pending.workspace / "src"
    sub.mkdir()
    event = pending.golden("claude_edit.input.json")
    event["cwd"] = str(sub)
    run = run_hook_inline(pending, "claude-code", json.dumps(event))
    assert json.loads(run.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_hook_failure_blocks_with_exit_2_while_pending(pending: Place) -> None:
    run = run_hook(pending, "claude-code", '{"tool_name": "Edit", "tool_input": [')
    assert run.returncode == 2
    assert run.stdout == ""
    assert "may be pending" in run.stderr
    assert "decision_id" in run.stderr


def test_hook_failure_never_blocks_when_nothing_is_pending(place: Place) -> None:
    run = run_hook(place, "claude-code", "not json at all")
    assert (run.returncode, run.stdout) == (0, "")


def test_unlistable_pending_directory_blocks(place: Place) -> None:
    place.journal.mkdir()
    (place.journal / "pending").write_text("not a directory", encoding="utf-8")
    run = run_hook(place, "claude-code", place.golden_text("claude_edit.input.json"))
    assert run.returncode == 2
    assert "blocked" in run.stderr


# --- AskUserQuestion ------------------------------------------------------------------------


def answering(reply: Any) -> Any:
    def handler(method: str, params: dict[str, Any]) -> Any:
        if method != "questions.ask":
            return method_not_found(method, params)
        return reply

    return handler


def test_ask_one_question_answered_in_the_app(place: Place) -> None:
    app = FakeApp(place.journal, answering(place.golden("ask_one.app_reply.json")))
    try:
        run = run_hook(place, "claude-code", place.golden_text("claude_ask_one.input.json"))
    finally:
        app.close()
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == place.golden("claude_ask_one.expected.json")
    (method, params) = app.requests[-1]
    assert method == "questions.ask"
    assert params["questions"][0]["multi_select"] is False
    assert params["workspace"] == str(place.workspace)
    assert params["session_id"] == place.session
    (record,) = DecisionStore(place.journal).list()
    assert (record.decision_kind, record.problem) == (
        question_kind("Cache DB"),
        "Which database should the cache use?",
    )
    assert record.tags == [WINDOW_TAG, "Cache DB"]
    assert record.selected_label() == "SQLite"
    assert record.selection_reason_raw == NO_REASON
    assert (record.provenance.selection, record.provenance.rationale) == ("user", "runtime")
    assert record.detector_confidence == 0.0
    assert [(r.option_id, r.reason, r.source) for r in record.rejected_reasons] == [
        ("redis", NOT_CHOSEN, "runtime")
    ]


def test_ask_several_with_multi_select_and_other(place: Place) -> None:
    app = FakeApp(place.journal, answering(place.golden("ask_several.app_reply.json")))
    try:
        run = run_hook(place, "claude-code", place.golden_text("claude_ask_several.input.json"))
    finally:
        app.close()
    assert json.loads(run.stdout) == place.golden("claude_ask_several.expected.json")
    records = {r.problem: r for r in DecisionStore(place.journal).list()}
    other = records["Which database should the cache use?"]
    assert (other.custom_selection, other.selection_reason_raw) == ("Postgres", "we already run it")
    assert other.provenance.rationale == "user"
    multi = records["Which signals should the worker emit?"]
    assert multi.custom_selection == "Logging, Metrics"
    assert {r.option_id: r.reason for r in multi.rejected_reasons} == {
        "logging": ALSO_CHOSEN,
        "metrics": ALSO_CHOSEN,
        "tracing": NOT_CHOSEN,
    }


@pytest.mark.parametrize(
    "handler",
    [
        answering({"status": "dismissed"}),
        method_not_found,
        answering({"status": "answered", "answers": [{"question": "?", "labels": ["SQLite"]}]}),
        lambda method, params: ProtocolError(ErrorCode.BUSY, "busy"),
    ],
    ids=["dismissed", "no-such-method", "answers-do-not-fit", "app-error"],
)
def test_ask_falls_back_to_the_terminal(place: Place, handler: Any) -> None:
    app = FakeApp(place.journal, handler)
    try:
        run = run_hook_inline(place, "claude-code", place.golden_text("claude_ask_one.input.json"))
    finally:
        app.close()
    assert (run.returncode, run.stdout) == (0, "")
    assert not (place.journal / "records").exists()


def test_ask_without_an_app_falls_back_to_the_terminal(place: Place) -> None:
    run = run_hook_inline(place, "claude-code", place.golden_text("claude_ask_one.input.json"))
    assert (run.returncode, run.stdout) == (0, "")


def test_ask_is_denied_while_a_decision_is_pending(pending: Place) -> None:
    run = run_hook_inline(pending, "claude-code", pending.golden_text("claude_ask_one.input.json"))
    assert json.loads(run.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
