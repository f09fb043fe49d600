"""`decision-journal mcp` driven by the SDK's real stdio client, with no display and no app.

Why no display: these cases must not open windows; the pending path (no app, no display) is
itself part of the contract. The window cases live in test_mcp_window.py under Xvfb.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters

from app.mcp.schema_rules import name_refusals, schema_refusals
from core.agents.tools import CLIENTS, TOOL_NAMES, client_tool_name
from core.capture.pending import PendingStore
from core.record.identity import project_identity
from core.record.models import RejectedReason
from core.record.summary import english_summary, korean_summary
from core.store.decisions import DecisionStore
from tests.factories import make_record, proposal_dict
from tests.integration.agent_support import ROOT, agent_env, cli_command, short_runtime_dir

pytestmark = pytest.mark.timeout(60)
HANGUL = re.compile("[\uac00-\ud7a3]")


@pytest.fixture
def runtime(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    with short_runtime_dir() as path:
        monkeypatch.setenv("XDG_RUNTIME_DIR", str(path))
        yield path


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "repo"
    path.mkdir()
    return path


@pytest.fixture
def journal(tmp_path: Path) -> Path:
    return tmp_path / "journal"


@asynccontextmanager
async def connect(journal: Path, runtime: Path, workspace: Path) -> AsyncIterator[Client]:
    env = agent_env(runtime, CLAUDE_PROJECT_DIR=str(workspace))
    command, *args = cli_command(journal, "mcp")
    params = StdioServerParameters(command=command, args=args, env=env, cwd=str(ROOT))
    async with Client(params) as client:
        yield client


def calls(journal: Path, runtime: Path, workspace: Path, *steps: tuple[str, Any]) -> list[Any]:
    """Calls in order on one server; an argument may be a function of the earlier results."""

    async def run() -> list[Any]:
        results: list[Any] = []
        async with connect(journal, runtime, workspace) as client:
            for tool, arguments in steps:
                args = arguments(results) if callable(arguments) else arguments
                results.append(await client.call_tool(tool, args))
        return results

    return anyio.run(run)


def call(
    journal: Path, runtime: Path, workspace: Path, tool: str, arguments: dict[str, Any]
) -> Any:
    return calls(journal, runtime, workspace, (tool, arguments))[0]


def test_tools_are_listed_with_their_schemas(journal: Path, runtime: Path, workspace: Path) -> None:
    async def run() -> Any:
        async with connect(journal, runtime, workspace) as client:
            return (await client.list_tools()).tools

    tools = {tool.name: tool for tool in anyio.run(run)}
    assert set(tools) == set(TOOL_NAMES)
    for name, tool in tools.items():
        assert schema_refusals(tool.input_schema) == [], name
        qualified = [client_tool_name(client, name) for client in CLIENTS]
        assert name_refusals(name, qualified) == [], name
    present = tools["present_implementation_decision"].input_schema
    assert "required" not in present
    assert present["additionalProperties"] is False
    option = present["properties"]["options"]
    assert (option["minItems"], option["maxItems"]) == (2, 4)
    assert option["items"]["properties"]["label"]["maxLength"] == 256
    assert present["properties"]["problem"]["maxLength"] == 4096
    assert present["properties"]["detector_confidence"]["minimum"] == 0.65
    for name, spec in present["properties"].items():
        assert spec.get("description"), f"{name} is undocumented"
    output = tools["present_implementation_decision"].output_schema
    assert output is not None
    for name in ("status", "decision_id", "selection", "rationales", "summary", "instruction"):
        assert name in output["properties"]
    assert tools["note_decision"].input_schema["required"] == ["decision", "why"]
    assert tools["get_preferences"].annotations is not None
    assert tools["get_preferences"].annotations.read_only_hint is True


def test_invalid_proposal_is_a_tool_error_naming_every_field(
    journal: Path, runtime: Path, workspace: Path
) -> None:
    bad = proposal_dict(detector_confidence=0.3, risk_level="extreme")
    del bad["decision_kind"]
    bad["options"][1]["description"] = ""
    bad["options"][1]["label"] = "per-record json"
    result = call(journal, runtime, workspace, "present_implementation_decision", bad)
    assert result.is_error
    text = result.content[0].text
    for field in (
        "decision_kind: is required",
        "risk_level: must be one of 'low', 'medium', 'high', 'critical' (got 'extreme')",
        "detector_confidence: must be a number from 0.65 to 1 (got 0.3)",
        "options[1].description: is required",
        "options[1].label: duplicates options[0].label",
    ):
        assert field in text, text
    assert "pydantic" not in text and "http" not in text, text
    assert not (journal / "pending").exists()


def test_without_app_or_display_the_decision_stays_pending(
    journal: Path, runtime: Path, workspace: Path
) -> None:
    result, again = calls(
        journal,
        runtime,
        workspace,
        ("present_implementation_decision", proposal_dict()),
        (
            "present_implementation_decision",
            lambda done: {"decision_id": done[0].structured_content["decision_id"]},
        ),
    )
    assert not result.is_error, result.content
    out = result.structured_content
    assert out["status"] == "pending"
    decision_id = out["decision_id"]
    assert f'{{"decision_id": "{decision_id}"}}' in out["instruction"]
    assert "Do not edit files" in out["instruction"]
    assert out["selection"] is None
    (item,) = PendingStore(journal).list().items
    assert item.decision_id == decision_id
    assert item.proposal.workspace == str(workspace)
    assert again.structured_content["status"] == "pending"
    assert again.structured_content["decision_id"] == decision_id


def test_another_fork_is_refused_while_one_is_pending_here(
    journal: Path, runtime: Path, workspace: Path
) -> None:
    other = proposal_dict(problem="Pick the cache eviction policy")
    first, result = calls(
        journal,
        runtime,
        workspace,
        ("present_implementation_decision", proposal_dict()),
        ("present_implementation_decision", other),
    )
    pending_id = first.structured_content["decision_id"]
    assert result.is_error
    assert pending_id in result.content[0].text
    assert "resume it first" in result.content[0].text


def test_one_session_sees_decisions_written_after_its_first_call(
    journal: Path, runtime: Path, workspace: Path
) -> None:
    """The server lives as long as the agent's session; the app and the CLI write meanwhile."""

    def here(record_id: str) -> None:
        DecisionStore(journal).put(
            make_record(
                id=record_id,
                project_id=project_identity(str(workspace)).project_id,
                workspace=str(workspace),
                problem=f"Pick a zebra store ({record_id})",
            )
        )

    async def run() -> tuple[Any, Any, Any]:
        async with connect(journal, runtime, workspace) as client:
            before = await client.call_tool("recent_decisions", {"query": "zebra"})
            await client.call_tool("recent_decisions", {})
            await anyio.to_thread.run_sync(here, "decision-later")
            after = await client.call_tool("recent_decisions", {})
            recalled = await client.call_tool("recent_decisions", {"query": "zebra"})
            return before, after, recalled

    here("decision-first")
    before, after, recalled = anyio.run(run)
    assert [e["id"] for e in before.structured_content["recalled"]] == ["decision-first"]
    assert [d["decision_id"] for d in after.structured_content["decisions"]] == [
        "decision-later",
        "decision-first",
    ]
    assert {e["id"] for e in recalled.structured_content["recalled"]} == {
        "decision-first",
        "decision-later",
    }


def test_unknown_resume_id_is_a_tool_error(journal: Path, runtime: Path, workspace: Path) -> None:
    result = call(
        journal,
        runtime,
        workspace,
        "present_implementation_decision",
        {"decision_id": "decision-nope"},
    )
    assert result.is_error
    assert "decision-nope" in result.content[0].text
    assert "neither pending nor recorded" in result.content[0].text


def test_note_then_recent_round_trip(journal: Path, runtime: Path, workspace: Path) -> None:
    async def run() -> tuple[Any, Any, Any]:
        async with connect(journal, runtime, workspace) as client:
            note = await client.call_tool(
                "note_decision",
                {"decision": "keep retries at 3", "why": "the API is idempotent", "goal": "g-7"},
            )
            invalid = await client.call_tool("note_decision", {"decision": " ", "why": "x" * 5000})
            recent = await client.call_tool("recent_decisions", {"goal": "g-7"})
            return note, invalid, recent

    DecisionStore(journal).put(
        make_record(
            id="decision-here",
            project_id=project_identity(str(workspace)).project_id,
            workspace=str(workspace),
        )
    )
    note, invalid, recent = anyio.run(run)
    assert not note.is_error
    assert note.structured_content["provenance"] == "model"
    assert invalid.is_error
    assert "decision: is required" in invalid.content[0].text
    assert "why: is 5,000 bytes; the limit is 4,096 bytes" in invalid.content[0].text
    data = recent.structured_content
    assert [n["decision"] for n in data["notes"]] == ["keep retries at 3"]
    assert data["notes"][0]["provenance"] == "model"
    assert [d["decision_id"] for d in data["decisions"]] == ["decision-here"]
    assert data["workspace"] == str(workspace)


def _record(number: int, project_id: str, choice: str) -> Any:
    other = "single-json" if choice == "per-record-json" else "per-record-json"
    return make_record(
        id=f"decision-{number}",
        project_id=project_id,
        selected_option_id=choice,
        rejected_reasons=[RejectedReason(option_id=other, reason="not this", source="user")],
    )


def test_get_preferences_returns_evidence_with_counter_evidence(
    journal: Path, runtime: Path, workspace: Path
) -> None:
    here = project_identity(str(workspace)).project_id
    store = DecisionStore(journal)
    choices = [
        (here, "per-record-json"),
        (here, "per-record-json"),
        ("project-b", "per-record-json"),
        ("project-c", "per-record-json"),
        ("project-d", "single-json"),
        ("project-e", "per-record-json"),
    ]
    for number, (project, choice) in enumerate(choices, start=1):
        store.put(_record(number, project, choice))
    rebuilt = subprocess.run(
        cli_command(journal, "profile", "rebuild"),
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert rebuilt.returncode == 0, rebuilt.stderr

    result = call(
        journal,
        runtime,
        workspace,
        "get_preferences",
        {"decision_kind": "storage_backend", "domains": ["storage"]},
    )
    assert not result.is_error, result.content
    data = result.structured_content
    assert data["notice"].startswith("Evidence, not an instruction")
    assert [m["scope"] for m in data["matches"]] == ["project", "domain", "global"]
    assert data["matches"][0]["support_decision_ids"] == ["decision-1", "decision-2"]
    global_rule = data["matches"][2]
    assert global_rule["contradiction_decision_ids"] == ["decision-5"]
    assert global_rule["support_count"] == 5
    assert data["profile_state"] == "current"


def test_report_outcome_appends_a_signal_and_recall_ranks(
    journal: Path, runtime: Path, workspace: Path
) -> None:
    here = project_identity(str(workspace)).project_id
    store = DecisionStore(journal)
    store.put(
        make_record(
            id="decision-cache",
            project_id=here,
            workspace=str(workspace),
            problem="Pick the cache eviction policy for sessions",
        )
    )
    store.put(make_record(id="decision-store", project_id=here, workspace=str(workspace)))
    before = (journal / "records" / "decision-cache.json").read_bytes()
    outcome, missing, recalled = calls(
        journal,
        runtime,
        workspace,
        ("report_outcome", {"decision_id": "decision-cache", "ci": "pass", "accepted": True}),
        ("report_outcome", {"decision_id": "decision-nope", "ci": "fail"}),
        ("recent_decisions", {"query": "eviction policy"}),
    )
    assert not outcome.is_error, outcome.content
    assert outcome.structured_content["decision_id"] == "decision-cache"
    assert 0.0 <= outcome.structured_content["reward"] <= 1.0
    assert (journal / "records" / "decision-cache.json").read_bytes() == before
    assert missing.is_error
    assert not recalled.is_error, recalled.content
    ids = [
        entry.get("decision_id") or entry.get("id")
        for entry in recalled.structured_content["recalled"]
    ]
    assert ids[0] == "decision-cache"


def test_schema_rules_are_enforced_in_plain_words(
    journal: Path, runtime: Path, workspace: Path
) -> None:
    results = calls(
        journal,
        runtime,
        workspace,
        ("recent_decisions", {"limit": 0}),
        ("recent_decisions", {"limit": 51}),
        ("recent_decisions", {"limit": "ten", "since": "yesterday"}),
        ("note_decision", {"decision": ["a"], "why": "because"}),
        ("report_outcome", {"decision_id": "decision-x"}),
        ("report_outcome", {"decision_id": "decision-x", "note": "  "}),
        ("report_outcome", {"decision_id": "decision-x", "ci": "green", "eval_score": 2}),
        ("present_implementation_decision", {"decision_id": "decision-x", "resume": True}),
    )
    texts = [result.content[0].text for result in results]
    assert all(result.is_error for result in results), texts
    expected = [
        ["limit: must be an integer from 1 to 50 (got 0)"],
        ["limit: must be an integer from 1 to 50 (got 51)"],
        [
            "limit: must be an integer from 1 to 50 (got 'ten')",
            "since: unknown field; accepted: workspace, goal, limit, query",
        ],
        ["decision: must be a string (got a list)"],
        ["arguments: give at least one of ci, accepted, eval_score, note"],
        ["arguments: give at least one of ci, accepted, eval_score, note"],
        [
            "ci: must be one of 'pass', 'fail' (got 'green')",
            "eval_score: must be a number from 0 to 1 (got 2)",
        ],
        ["resume: unknown field; accepted: decision_id, problem"],
    ]
    for text, lines in zip(texts, expected, strict=True):
        for line in lines:
            assert f"- {line}" in text, text
        for leak in ("pydantic", "validation error", "Arguments", "http", "--"):
            assert leak not in text, text


def test_resume_of_a_recorded_decision_answers_in_english(
    journal: Path, runtime: Path, workspace: Path
) -> None:
    record = make_record(
        id="decision-answered",
        project_id=project_identity(str(workspace)).project_id,
        workspace=str(workspace),
    )
    record.summary_sentence = korean_summary(record)
    DecisionStore(journal).put(record)
    result = call(
        journal,
        runtime,
        workspace,
        "present_implementation_decision",
        {"decision_id": "decision-answered"},
    )
    assert not result.is_error, result.content
    out = result.structured_content
    assert out["status"] == "recorded"
    assert out["summary"] == english_summary(record)
    assert "the user chose Per-record JSON because independent files" in out["summary"]
    assert out["summary_ko"] == record.summary_sentence
    assert HANGUL.search(out["summary_ko"])
    for field in ("summary", "instruction"):
        assert not HANGUL.search(out[field]), out[field]
    assert out["instruction"].startswith("Implementation decision recorded: Per-record JSON")
