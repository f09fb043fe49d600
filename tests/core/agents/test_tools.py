"""Our tools as each client spells them: recognised under every spelling, nobody else's."""

from __future__ import annotations

import pytest

from core.agents import tools as at


@pytest.mark.parametrize(
    ("name", "bare"),
    [
        ("mcp__decision-journal__recent_decisions", "recent_decisions"),
        (
            "mcp__decision_journal__present_implementation_decision",
            "present_implementation_decision",
        ),
        ("mcp_decision-journal_report_outcome", "report_outcome"),
        ("decision-journal_recent_decisions", "recent_decisions"),
        ("filesystem_recent_decisions", None),
        ("decision-journal_write", None),
        ("note_decision", "note_decision"),
        ("MCP:decision-journal:recent_decisions", "recent_decisions"),
        ("MCP:other:recent_decisions", None),
        ("mcp__other__recent_decisions", None),
        ("mcp__decision-journal__delete_everything", None),
        ("mcp__decision_journal__", None),
        ("Write", None),
        ("apply_patch", None),
    ],
)
def test_own_tool_under_every_spelling(name: str, bare: str | None) -> None:
    assert at.own_tool(name) == bare


def test_codex_namespace_form() -> None:
    assert at.own_tool("recent_decisions", "mcp__decision_journal") == "recent_decisions"
    assert at.own_tool("recent_decisions", "mcp__other") is None
    assert at.own_tool("shell", "mcp__decision_journal") is None


def test_every_tool_allowed_while_pending_in_every_client() -> None:
    for client in at.CLIENTS:
        for tool in at.TOOL_NAMES:
            assert at.allowed_while_pending(at.client_tool_name(client, tool)), (client, tool)


def test_codex_server_name_replaces_what_codex_replaces() -> None:
    assert at.codex_server_name("decision-journal") == "decision_journal"
    assert at.codex_server_name("a.b c_d") == "a_b_c_d"
    assert at.CODEX_NAMESPACE == "mcp__decision_journal"


@pytest.mark.parametrize(
    ("client", "call"),
    [
        ("claude-code", "mcp__decision-journal__present_implementation_decision"),
        ("codex", "mcp__decision_journal__present_implementation_decision"),
        ("gemini", "mcp_decision-journal_present_implementation_decision"),
        ("qwen", "mcp__decision-journal__present_implementation_decision"),
        ("opencode", "decision-journal_present_implementation_decision"),
    ],
)
def test_resume_call_spelled_as_the_client_does(client: at.Client, call: str) -> None:
    assert at.resume_call(client, "d-1") == f'{call} with only {{"decision_id": "d-1"}}'
