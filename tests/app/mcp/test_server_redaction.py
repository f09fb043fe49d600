"""What the MCP tools return and the errors they raise pass through the redactor: both echo
what the agent sent (a query, a note, an argument that broke a rule)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from mcp.server.mcpserver.exceptions import ToolError

from app.mcp.server import build_server
from core.journal import Journal
from tests.integration.cli_runner import ROOT

SECRET = "Tiger23+Nimbus"


def test_a_result_echoing_the_query_is_redacted(tmp_path: Path) -> None:
    server = build_server(Journal.open(tmp_path / "journal"), workspace=str(ROOT))
    result = asyncio.run(server.call_tool("recent_decisions", {"query": f"pw: {SECRET}"}))
    assert SECRET not in str(result)
    assert result.structured_content == {
        "query": "pw: [REDACTED:secret_assignment]",
        "recalled": [],
    }


def test_an_error_quoting_an_argument_is_redacted(tmp_path: Path) -> None:
    server = build_server(Journal.open(tmp_path / "journal"), workspace=str(ROOT))
    arguments = {"decision": "x", "why": "y", f"password={SECRET}": "z"}
    with pytest.raises(ToolError) as error:
        asyncio.run(server.call_tool("note_decision", arguments))
    assert "unknown field" in str(error.value)
    assert SECRET not in str(error.value)


def test_a_proposal_with_control_characters_is_refused_naming_the_field(tmp_path: Path) -> None:
    server = build_server(Journal.open(tmp_path / "journal"), workspace=str(ROOT))
    arguments = {
        "problem": "Pick \x1b]0;PWNED\x07 a layout",
        "decision_kind": "storage",
        "detector_confidence": 0.9,
        "options": [
            {"id": "a", "label": "\u202eetadpu ton od", "description": "x", "recommended": True},
            {"id": "b", "label": "B", "description": "y"},
        ],
    }
    with pytest.raises(ToolError) as error:
        asyncio.run(server.call_tool("present_implementation_decision", arguments))
    text = str(error.value)
    assert "problem: must not contain control characters" in text
    assert "options[0].label: must not contain control characters: U+202E" in text
    assert not list((tmp_path / "journal" / "pending").glob("*.json"))
