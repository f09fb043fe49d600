"""The whole path under Xvfb: SDK stdio client → `decision-journal mcp` → the real tray app →
a person's keystrokes (xdotool) → the structured answer back in the client.

Why Xvfb and xdotool: an offscreen Qt window cannot be driven from outside; a real X server lets
the test type into the real window exactly as a person would, through XTEST key events.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import pytest
from mcp import MCPError

from core.capture.pending import PendingStore
from core.ipc.runtime_paths import lock_path
from tests.factories import proposal_dict
from tests.integration.agent_support import (
    Desktop,
    mcp_client,
    running_desktop,
    xvfb_missing_reason,
)

pytestmark = [
    pytest.mark.xvfb,
    pytest.mark.timeout(90),
    pytest.mark.skipif(xvfb_missing_reason() is not None, reason=str(xvfb_missing_reason())),
]


def _wait_window_gone(desktop: Desktop, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not desktop.window_gone():
        assert time.monotonic() < deadline, "the withdrawn question's window is still shown"
        time.sleep(0.2)


CHOOSE_FIRST = (
    ("key", "1"),
    ("key", "Return"),
    ("type", "independent files never lose updates"),
    ("key", "Tab"),
    ("type", "one document is a rewrite bottleneck"),
    ("key", "ctrl+Return"),
)
CHOOSE_SECOND = (
    ("key", "2"),
    ("key", "Return"),
    ("type", "one file is simpler to back up"),
    ("key", "Tab"),
    ("type", "thousands of small files"),
    ("key", "ctrl+Return"),
)


@pytest.fixture(scope="module")
def desktop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Desktop]:
    with running_desktop(tmp_path_factory.mktemp("journal")) as desk:
        yield desk


def workspace_dir(tmp_path: Path) -> Path:
    path = tmp_path / "repo"
    path.mkdir()
    return path


def test_answered_in_the_window_with_progress_while_waiting(
    desktop: Desktop, tmp_path: Path
) -> None:
    workspace = workspace_dir(tmp_path)
    reports: list[tuple[float, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        reports.append((progress, message))

    async def run() -> Any:
        async def person() -> None:
            window = await anyio.to_thread.run_sync(desktop.find_window)
            while len(reports) < 3:  # the human takes a moment; progress keeps coming
                await anyio.sleep(0.1)
            await anyio.to_thread.run_sync(lambda: desktop.answer(window, *CHOOSE_FIRST))

        async with (
            mcp_client(desktop, desktop.journal, workspace) as client,
            anyio.create_task_group() as group,
        ):
            group.start_soon(person)
            return await client.call_tool(
                "present_implementation_decision",
                proposal_dict(),
                progress_callback=on_progress,
            )

    result = anyio.run(run)
    assert not result.is_error, result.content
    out = result.structured_content
    assert out["status"] == "recorded"
    assert out["selection"] == {
        "option_id": "per-record-json",
        "label": "Per-record JSON",
        "custom": "",
    }
    assert out["rationales"] == {
        "selected": "independent files never lose updates",
        "rejected": [
            {
                "option_id": "single-json",
                "label": "Single JSON document",
                "reason": "one document is a rewrite bottleneck",
            }
        ],
    }
    assert "Single JSON document, because one document is a rewrite bottleneck" in out["summary"]
    assert "Single JSON document: one document is a rewrite bottleneck" in out["summary_ko"]
    assert out["instruction"].startswith("Implementation decision recorded: Per-record JSON")
    values = [value for value, _ in reports]
    assert len(values) >= 3
    assert values == sorted(values) and len(set(values)) == len(values)
    assert all(out["decision_id"] in (message or "") for _, message in reports)


def test_client_timeout_leaves_it_pending_and_resume_gets_the_answer(
    desktop: Desktop, tmp_path: Path
) -> None:
    workspace = workspace_dir(tmp_path)

    async def run() -> tuple[str, Any, Any, float]:
        async with mcp_client(desktop, desktop.journal, workspace) as client:
            with pytest.raises(MCPError) as timed_out:
                await client.call_tool(
                    "present_implementation_decision", proposal_dict(), read_timeout_seconds=2.0
                )
            assert timed_out.value.error.code == -32001
            # nobody waits any more and nothing was typed: the question is withdrawn
            # (docs/protocol.md) and the decision stays pending, resumable
            await anyio.to_thread.run_sync(_wait_window_gone, desktop)
            (item,) = PendingStore(desktop.journal).list(workspace=str(workspace)).items
            decision_id = item.decision_id

            async def answer_when_shown_again() -> None:
                window = await anyio.to_thread.run_sync(desktop.find_window)
                await anyio.to_thread.run_sync(lambda: desktop.answer(window, *CHOOSE_SECOND))

            async with anyio.create_task_group() as group:
                group.start_soon(answer_when_shown_again)
                resumed = await client.call_tool(
                    "present_implementation_decision", {"decision_id": decision_id}
                )
        async with mcp_client(desktop, desktop.journal, workspace) as client:
            started = time.monotonic()
            again = await client.call_tool(
                "present_implementation_decision", {"decision_id": decision_id}
            )
            return decision_id, resumed, again, time.monotonic() - started

    decision_id, resumed, again, seconds = anyio.run(run)
    assert not resumed.is_error, resumed.content
    assert resumed.structured_content["status"] == "recorded"
    assert resumed.structured_content["decision_id"] == decision_id
    assert resumed.structured_content["selection"]["option_id"] == "single-json"
    assert again.structured_content == resumed.structured_content
    assert seconds < 5
    assert PendingStore(desktop.journal).list(workspace=str(workspace)).items == []


def test_mcp_starts_the_app_when_a_display_exists(desktop: Desktop, tmp_path: Path) -> None:
    workspace = workspace_dir(tmp_path)
    journal = tmp_path / "own-journal"

    async def run() -> Any:
        async def person() -> None:
            window = await anyio.to_thread.run_sync(desktop.find_window)
            await anyio.to_thread.run_sync(lambda: desktop.answer(window, *CHOOSE_FIRST))

        async with (
            mcp_client(desktop, journal, workspace) as client,
            anyio.create_task_group() as group,
        ):
            group.start_soon(person)
            return await client.call_tool("present_implementation_decision", proposal_dict())

    try:
        result = anyio.run(run)
    finally:
        _stop_detached_app(journal)
    assert not result.is_error, result.content
    assert result.structured_content["status"] == "recorded"
    assert result.structured_content["selection"]["option_id"] == "per-record-json"


def _stop_detached_app(journal: Path) -> None:
    """The app the MCP server started runs in its own session; its lock file names its pid.

    The module's desktop fixture set XDG_RUNTIME_DIR, so `lock_path` finds that app's file.
    """
    try:
        pid = int(lock_path(journal).read_text(encoding="utf-8").strip())
    except (OSError, ValueError):
        return
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
        for _ in range(10):
            os.kill(pid, 0)
            time.sleep(0.1)
        os.kill(pid, signal.SIGKILL)


def test_closing_the_window_returns_pending_with_the_resume_instruction(
    desktop: Desktop, tmp_path: Path
) -> None:
    workspace = workspace_dir(tmp_path)

    async def run() -> Any:
        async def person() -> None:
            window = await anyio.to_thread.run_sync(desktop.find_window)
            await anyio.to_thread.run_sync(lambda: desktop.answer(window, ("key", "Escape")))

        async with (
            mcp_client(desktop, desktop.journal, workspace) as client,
            anyio.create_task_group() as group,
        ):
            group.start_soon(person)
            return await client.call_tool("present_implementation_decision", proposal_dict())

    result = anyio.run(run)
    assert not result.is_error, result.content
    out = result.structured_content
    assert (out["status"], out["stage"]) == ("pending", "choice")
    assert f'only {{"decision_id": "{out["decision_id"]}"}}' in out["instruction"]
    assert "do not guess the choice" in out["instruction"]
    (item,) = PendingStore(desktop.journal).list(workspace=str(workspace)).items
    assert item.decision_id == out["decision_id"]
