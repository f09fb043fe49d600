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
