"""Every client's hook while a decision is pending: our tools as that client spells them and
its read-only tools run, its editing tools are denied in its own answer shape with its own
resume call, and events other than its pre-tool event get no answer at all."""

from __future__ import annotations

import dataclasses
import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.hooks.clients import HOOKS
from core.agents.tools import TOOL_NAMES, client_tool_name
from tests.integration.agent_support import ROOT, agent_env, cli_command
from tests.integration.hook_support import (
    Place,
    hook_place,
    make_pending,
    run_hook,
    run_hook_inline,
)

pytestmark = pytest.mark.timeout(120)

EDITING = {
    "claude-code": ["Write", "Edit", "Bash", "NotebookEdit", "Agent", "mcp__filesystem__write"],
    "codex": ["Bash", "apply_patch", "mcp__filesystem__write_file", "exec_command"],
    "gemini": ["write_file", "replace", "run_shell_command", "mcp_filesystem_write_file"],
    "copilot": ["bash", "create", "edit", "sql", "task", "write_agent", "filesystem-write_file"],
    "cursor": ["Write", "StrReplace", "Edit", "Delete", "write_file"],
    "qwen": ["run_shell_command", "write_file", "edit", "notebook_edit", "agent", "tool_call"],
    "opencode": [
        "bash",
        "write",
        "edit",
        "apply_patch",
        "task",
        "todowrite",
        "filesystem_write_file",
    ],
}
READ_ONLY = {
    "claude-code": [
        "Read",
        "ToolSearch",
        "WebFetch",
        "WebSearch",
        "Glob",
        "Grep",
        "TaskList",
        "TaskOutput",
        "ReadMcpResourceDirTool",
    ],
    "codex": ["view_image", "read_mcp_resource", "list_mcp_resources"],
    "gemini": ["read_file", "read_many_files", "glob", "grep_search", "list_directory"],
    "copilot": ["view", "grep", "glob", "read_bash", "list_bash", "list_agents"],
    "cursor": ["Read", "Grep", "Glob"],
    "qwen": ["read_file", "grep_search", "glob", "list_directory", "tool_search", "web_fetch"],
    "opencode": ["read", "glob", "grep", "list", "webfetch", "read_mcp_resource"],
}
STALE_NAMES = ["LS", "TodoWrite", "NotebookRead"]
OFFERED_IN_EVERY_SESSION = {
    "claude-code": {"Read", "WebFetch", "WebSearch", "Bash", "Edit", "Write"},
    "codex": {"view_image", "read_mcp_resource", "list_mcp_resources", "exec_command"},
    "gemini": {
        "read_file",
        "glob",
        "grep_search",
        "list_directory",
        "web_fetch",
        "google_web_search",
    },
    "copilot": {"view", "grep", "glob", "bash", "create", "edit"},
    "cursor": {"Read"},
    "qwen": {"read_file", "grep_search", "glob", "run_shell_command", "edit", "write_file"},
    "opencode": {"read", "glob", "grep", "webfetch", "bash", "edit", "write"},
}
"""Tools that both Claude Code 2.1.197 (no tool search: no ToolSearch) and 2.1.332 (tool search
on), Codex 0.171.0 and Gemini CLI 0.61.0 (`gemini -p`: no read_many_files) offered their model
in sessions of people new to the project; Copilot CLI 1.0.102 offered its model in every session
of tests/clients/test_copilot.py, Qwen Code 0.24.4 and opencode 1.18.33 in every session of
test_qwen.py and test_opencode.py; Cursor's come from its documentation."""


@pytest.fixture
def pending(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Place]:
    with hook_place(tmp_path, monkeypatch, session="agent-session") as place:
        yield dataclasses.replace(place, decision_id=make_pending(place.journal, place.workspace))


def event(place: Place, client: str, tool: str, **extra: Any) -> str:
    """A pre-tool event for `tool` in the client's own shape (Copilot's as recorded from the
    real client, Cursor's as documented)."""
    if client == "copilot":
        copilot = {"sessionId": place.session, "timestamp": 1796152762347}
        copilot |= {"cwd": str(place.workspace), "toolName": tool, "toolArgs": {}}
        return json.dumps(copilot | extra)
    if client == "cursor":
        cursor = {"hook_event_name": "preToolUse", "conversation_id": place.session}
        cursor |= {"workspace_roots": [str(place.workspace)], "tool_name": tool}
        return json.dumps(cursor | {"tool_input": {}, "tool_use_id": "call-1"} | extra)
    value = {
        "session_id": place.session,
        "cwd": str(place.workspace),
        "hook_event_name": HOOKS[client].event,
        "tool_name": tool,
        "tool_input": {},
        "tool_use_id": "call-1",
        **extra,
    }
    return json.dumps(value)


def reason_of(client: str, stdout: str) -> str:
    output = json.loads(stdout)
    if client == "copilot":
        assert set(output) == {"permissionDecision", "permissionDecisionReason"}
        assert output["permissionDecision"] == "deny"
        return str(output["permissionDecisionReason"])
    if client == "cursor":
        assert set(output) == {"permission", "user_message", "agent_message"}
        assert output["permission"] == "deny"
        return str(output["agent_message"])
    if client in ("gemini", "opencode"):
        assert set(output) == {"decision", "reason"}
        assert output["decision"] == "deny"
        return str(output["reason"])
    assert set(output) == {"hookSpecificOutput"}
    specific = output["hookSpecificOutput"]
    assert (specific["hookEventName"], specific["permissionDecision"]) == ("PreToolUse", "deny")
    return str(specific["permissionDecisionReason"])


@pytest.mark.parametrize("client", sorted(HOOKS))
def test_our_tools_as_the_client_spells_them_run_while_pending(pending: Place, client: str) -> None:
    for tool in TOOL_NAMES:
        name = client_tool_name(client, tool)  # type: ignore[arg-type]
        run = run_hook_inline(pending, client, event(pending, client, name))
        assert (run.returncode, run.stdout) == (0, ""), name


@pytest.mark.parametrize("client", sorted(HOOKS))
def test_read_only_tools_run_while_pending(pending: Place, client: str) -> None:
    for tool in READ_ONLY[client]:
        run = run_hook_inline(pending, client, event(pending, client, tool))
        assert (run.returncode, run.stdout) == (0, ""), tool


@pytest.mark.parametrize("client", sorted(HOOKS))
def test_editing_tools_are_denied_naming_the_clients_resume_call(
    pending: Place, client: str
) -> None:
    resume = client_tool_name(client, "present_implementation_decision")  # type: ignore[arg-type]
    for tool in EDITING[client]:
        run = run_hook_inline(pending, client, event(pending, client, tool))
        reason = reason_of(client, run.stdout)
        assert resume in reason
        assert f'with only {{"decision_id": "{pending.decision_id}"}}' in reason
        assert all(f"{name}," not in reason and f"{name})" not in reason for name in STALE_NAMES)
        for named in HOOKS[client].named:
            assert named in READ_ONLY[client] or named in HOOKS[client].read_only


@pytest.mark.parametrize("client", sorted(HOOKS))
def test_the_deny_text_suggests_only_tools_every_session_has(pending: Place, client: str) -> None:
    """An agent pointed at a tool its session lacks wastes a turn on an unknown-tool error."""
    assert set(HOOKS[client].named) <= OFFERED_IN_EVERY_SESSION[client]
    run = run_hook_inline(pending, client, event(pending, client, EDITING[client][0]))
    suggested = reason_of(client, run.stdout).rsplit("use only read-only tools (", 1)[1]
    listed = suggested.split(")", 1)[0].split(", ")
    assert set(listed) <= OFFERED_IN_EVERY_SESSION[client], listed


@pytest.mark.parametrize("client", sorted(HOOKS))
def test_a_real_hook_process_denies_an_edit_and_lets_our_read_through(
    pending: Place, client: str
) -> None:
    denied = run_hook(pending, client, event(pending, client, EDITING[client][0]))
    assert denied.returncode == 0, denied.stderr
    assert pending.decision_id in reason_of(client, denied.stdout)
    ours = client_tool_name(client, "recent_decisions")  # type: ignore[arg-type]
    allowed = run_hook(pending, client, event(pending, client, ours))
    assert (allowed.returncode, allowed.stdout, allowed.stderr) == (0, "", "")


@pytest.mark.parametrize("client", sorted(HOOKS))
@pytest.mark.parametrize(
    "name", ["PostToolUse", "PermissionRequest", "AfterTool", "Notification", "Stop"]
)
def test_other_events_get_no_answer_even_while_pending(
    pending: Place, client: str, name: str
) -> None:
    text = event(pending, client, "Edit", hook_event_name=name, tool_response={"ok": True})
    run = run_hook_inline(pending, client, text)
    assert (run.returncode, run.stdout, run.stderr) == (0, "", "")


def test_other_events_in_a_real_process(pending: Place) -> None:
    text = event(pending, "claude-code", "Write", hook_event_name="PostToolUse")
    run = run_hook(pending, "claude-code", text)
    assert (run.returncode, run.stdout, run.stderr) == (0, "", "")
    text = event(pending, "codex", "Bash", hook_event_name="PermissionRequest")
    run = run_hook(pending, "codex", text)
    assert (run.returncode, run.stdout, run.stderr) == (0, "", "")


def test_gemini_mcp_context_names_our_server(pending: Place) -> None:
    """Gemini also sends the server as configured and the tool's own name."""
    context = {"server_name": "decision-journal", "tool_name": "recent_decisions"}
    ours = event(pending, "gemini", "mcp_decision-journal_recent_decisions", mcp_context=context)
    assert run_hook_inline(pending, "gemini", ours).stdout == ""
    other = {"server_name": "filesystem", "tool_name": "recent_decisions"}
    theirs = event(pending, "gemini", "mcp_filesystem_recent_decisions", mcp_context=other)
    assert reason_of("gemini", run_hook_inline(pending, "gemini", theirs).stdout)


def test_gemini_hook_failure_blocks_with_exit_2_and_the_reason_on_stderr(pending: Place) -> None:
    run = run_hook(pending, "gemini", '{"hook_event_name": "BeforeTool", "tool_name": 7}')
    assert run.returncode == 2
    assert "mcp_decision-journal_present_implementation_decision" in run.stderr


def test_bytes_that_are_not_utf8_still_get_the_gate(pending: Place) -> None:
    """With a UTF-8 locale's strict decoding, a stray byte must not end the hook with exit 1,
    which clients read as "run the tool"."""
    text = event(pending, "claude-code", "Edit", tool_input={"content": "\udcff"})
    raw = text.encode("utf-8", "surrogateescape").replace(b"\\udcff", b"\xff")
    run = subprocess.run(
        cli_command(pending.journal, "hook", "claude-code"),
        input=raw,
        env={**agent_env(pending.runtime), "PYTHONIOENCODING": "utf-8:strict"},
        cwd=ROOT,
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert pending.decision_id in reason_of("claude-code", run.stdout.decode())


@pytest.mark.parametrize("name", ["copilot_bash.input.json", "copilot_create.input.json"])
def test_copilot_events_recorded_from_the_real_client_are_denied_in_its_shape(
    pending: Place, name: str
) -> None:
    """Copilot CLI 1.0.102's own events (no `tool_name`, no event name), in a real process:
    denied with Copilot's resume call, which is how the agent gets unstuck."""
    text = json.dumps(pending.golden(name) | {"sessionId": pending.session})
    run = run_hook(pending, "copilot", text)
    assert run.returncode == 0, run.stderr
    resume = 'decision-journal-present_implementation_decision with only {"decision_id": "'
    assert f'{resume}{pending.decision_id}"}}' in reason_of("copilot", run.stdout)


CURSOR_DENIED = ["cursor_shell.input.json", "cursor_other_mcp.input.json", "cursor_edit.input.json"]
"""Cursor's events as its hooks documentation shows them (tests/data/hooks): a terminal
command, another server's MCP tool and a file edit, each denied while a decision is pending."""


@pytest.mark.parametrize("name", CURSOR_DENIED)
def test_cursor_documented_events_are_denied_in_its_shape(pending: Place, name: str) -> None:
    run = run_hook(pending, "cursor", json.dumps(pending.golden(name)))
    assert run.returncode == 0, run.stderr
    output = json.loads(run.stdout)
    assert output["user_message"] and pending.decision_id in output["agent_message"]
    assert HOOKS["cursor"].resume(pending.decision_id) in reason_of("cursor", run.stdout)


def test_cursor_runs_our_mcp_tools_and_leaves_reads_alone_while_pending(pending: Place) -> None:
    own = pending.golden("cursor_own_mcp.input.json")
    for tool in TOOL_NAMES:
        for name in (tool, f"MCP:decision-journal:{tool}"):
            run = run_hook_inline(pending, "cursor", json.dumps(own | {"tool_name": name}))
            assert (run.returncode, run.stdout) == (0, ""), name
    read = run_hook(pending, "cursor", json.dumps(pending.golden("cursor_read.input.json")))
    assert (read.returncode, read.stdout, read.stderr) == (0, "", "")


@pytest.mark.parametrize("name", ["afterFileEdit", "beforeSubmitPrompt", "stop", "sessionStart"])
def test_cursor_events_we_do_not_gate_get_no_answer(pending: Place, name: str) -> None:
    text = json.dumps(pending.golden("cursor_edit.input.json") | {"hook_event_name": name})
    run = run_hook_inline(pending, "cursor", text)
    assert (run.returncode, run.stdout, run.stderr) == (0, "", "")


def test_qwen_event_recorded_from_the_real_client_is_denied_in_claude_codes_shape(
    pending: Place,
) -> None:
    """Qwen Code 0.24.4's own PreToolUse event for a shell command, in a real process: denied
    with Qwen's resume call in the answer Qwen reads (Claude Code's)."""
    run = run_hook(pending, "qwen", pending.golden_text("qwen_run_shell_command.input.json"))
    assert run.returncode == 0, run.stderr
    resume = 'mcp__decision-journal__present_implementation_decision with only {"decision_id": "'
    reason = reason_of("qwen", run.stdout)
    assert f'{resume}{pending.decision_id}"}}' in reason
    assert "Tool run_shell_command is blocked" in reason


def test_opencode_plugin_event_for_another_servers_tool_is_denied(pending: Place) -> None:
    """What our plugin sends for a tool of another MCP server (opencode spells it
    `<server>_<tool>`): denied, though the tool has one of our names."""
    text = event(pending, "opencode", "filesystem_recent_decisions", tool_input={"x": 1})
    assert pending.decision_id in reason_of(
        "opencode", run_hook_inline(pending, "opencode", text).stdout
    )
