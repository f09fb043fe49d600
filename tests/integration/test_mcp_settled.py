"""Settled questions end to end under Xvfb: a real MCP client, `decision-journal mcp`, the real
tray app and a person's keystrokes (xdotool).

Twelve explicit decisions of one kind are answered in the real window (the first two make the
profile rule, the next ten are scored shadow predictions), `modes` then recommends auto, `modes
set KIND auto` raises it, and the next present of that kind comes back `decided_by: "profile"`
without a window; a high-risk one of the same kind still opens the window; two overrules
demote the kind to ask.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import pytest

from core.profile.store import ProfileStore
from core.store.decisions import DecisionStore
from tests.core.decider.support import database_proposal
from tests.integration.agent_support import (
    Desktop,
    mcp_client,
    running_desktop,
    xvfb_missing_reason,
)
from tests.integration.cli_runner import run_cli

pytestmark = [
    pytest.mark.xvfb,
    pytest.mark.timeout(300),
    pytest.mark.skipif(xvfb_missing_reason() is not None, reason=str(xvfb_missing_reason())),
]

CHOOSE_POSTGRES = (
    ("key", "1"),
    ("key", "Return"),
    ("type", "we run it everywhere"),
    ("key", "Tab"),
    ("type", "no server to share"),
    ("key", "ctrl+Return"),
)
EXPLICIT = 12


@pytest.fixture
def desktop(tmp_path: Path) -> Iterator[Desktop]:
    with running_desktop(tmp_path / "journal") as desk:
        yield desk


def wait_for_profile(journal: Path, records: int, timeout: float = 30.0) -> None:
    """The app rebuilds the profile in the background after each record; the next question
    is predicted from the rebuilt one."""
    profile = ProfileStore(journal, DecisionStore(journal))
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if profile.load().record_count == records and profile.status().state == "current":
            return
        time.sleep(0.1)
    raise AssertionError(f"the profile never counted {records} records")


def kind_modes(journal: Path) -> dict[str, Any]:
    run = run_cli(journal, "modes", "--json")
    assert run.returncode == 0, run.stderr
    [kind] = json.loads(run.stdout)["kinds"]
    assert isinstance(kind, dict)
    return kind


def test_ten_agreeing_answers_let_the_profile_answer_until_two_overrules(
    desktop: Desktop, tmp_path: Path
) -> None:
    workspace = tmp_path / "repo"
    workspace.mkdir()
    journal = desktop.journal

    async def asked(client: Any, proposal: dict[str, Any]) -> dict[str, Any]:
        async def person() -> None:
            window = await anyio.to_thread.run_sync(desktop.find_window)
            await anyio.to_thread.run_sync(lambda: desktop.answer(window, *CHOOSE_POSTGRES))

        async with anyio.create_task_group() as group:
            group.start_soon(person)
            result = await client.call_tool("present_implementation_decision", proposal)
        assert not result.is_error, result.content
        out = result.structured_content
        assert isinstance(out, dict)
        return out

    async def explicit_decisions() -> None:
        async with mcp_client(desktop, journal, workspace) as client:
            for number in range(EXPLICIT):
                out = await asked(client, database_proposal(number))
                assert (out["status"], out["decided_by"]) == ("recorded", "person")
                assert out["selection"]["label"] == "Postgres"
                await anyio.to_thread.run_sync(wait_for_profile, journal, number + 1)

    anyio.run(explicit_decisions)
    kind = kind_modes(journal)
    assert (kind["mode"], kind["scored_predictions"], kind["agree"]) == ("ask", 10, 10)
    assert kind["auto_recommended"]
    raised = run_cli(journal, "modes", "set", "database engine", "auto")
    assert raised.returncode == 0, raised.stderr

    automatic: list[str] = []

    async def with_auto() -> None:
        async with mcp_client(desktop, journal, workspace) as client:
            started = time.monotonic()
            result = await client.call_tool(
                "present_implementation_decision", database_proposal(100)
            )
            assert time.monotonic() - started < 10
            out = result.structured_content
            assert isinstance(out, dict)
            assert (out["status"], out["decided_by"]) == ("recorded", "profile")
            assert out["rule_id"].startswith("preference-")
            assert out["selection"]["label"] == "Postgres"
            assert "without asking" in out["instruction"]
            assert desktop.window_gone()
            automatic.append(out["decision_id"])

            preferences = await client.call_tool(
                "get_preferences", {"decision_kind": "database-engine"}
            )
            [match, *_] = preferences.structured_content["matches"]
            assert (match["mode"], match["agreement"], match["scored_predictions"]) == (
                "auto",
                1.0,
                10,
            )

            risky = await asked(client, database_proposal(101, risk_level="high"))
            assert risky["decided_by"] == "person"
            await anyio.to_thread.run_sync(wait_for_profile, journal, EXPLICIT + 2)

            again = await client.call_tool(
                "present_implementation_decision", database_proposal(102)
            )
            assert again.structured_content["decided_by"] == "profile"
            automatic.append(again.structured_content["decision_id"])

    anyio.run(with_auto)
    stored = DecisionStore(journal).get(automatic[0])
    assert (stored.provenance.selection, stored.tags) == ("runtime", ["decided-by-profile"])

    first = run_cli(journal, "overrule", automatic[0], "--select", "SQLite")
    assert first.returncode == 0, first.stderr
    assert kind_modes(journal)["mode"] == "auto"
    second = run_cli(journal, "overrule", automatic[1], "--select", "sqlite")
    assert second.returncode == 0 and "asked again (mode ask)" in second.stdout
    kind = kind_modes(journal)
    assert kind["mode"] == "ask" and len(kind["demotions"]) == 1

    async def asked_again() -> None:
        async with mcp_client(desktop, journal, workspace) as client:
            out = await asked(client, database_proposal(103))
            assert out["decided_by"] == "person"

    anyio.run(asked_again)
