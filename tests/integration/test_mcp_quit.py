"""The app quits (SIGTERM, as the tray's Quit does) or dies (SIGKILL) while the person answers:
the agent's `present_implementation_decision` still returns the decision, pending at the stage
the person reached, with the call that resumes it, and a quit says exactly what a crash says.

The real tray app under Xvfb, `decision-journal mcp` and the MCP SDK's own client; the person
is xdotool at the real window.
"""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import pytest

from core.capture.machine import APP_CLOSED
from core.capture.pending import PendingStore
from tests.factories import proposal_dict
from tests.integration.agent_support import (
    Desktop,
    agent_env,
    mcp_client,
    short_runtime_dir,
    start_app,
    start_xvfb,
    stop,
    xvfb_missing_reason,
)

pytestmark = [
    pytest.mark.xvfb,
    pytest.mark.timeout(120),
    pytest.mark.skipif(xvfb_missing_reason() is not None, reason=str(xvfb_missing_reason())),
]

CHOOSE_SECOND = (("key", "2"), ("key", "Return"))
"""The person picks option 2 and moves on to the reasons, where the app goes away."""


@pytest.fixture(scope="module")
def screen() -> Iterator[tuple[Path, str]]:
    """One Xvfb display and runtime directory; every test starts its own app on it."""
    with short_runtime_dir() as runtime, pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_RUNTIME_DIR", str(runtime))
        xvfb, display = start_xvfb()
        try:
            yield runtime, display
        finally:
            stop(xvfb)


def _interrupted(
    screen: tuple[Path, str], journal: Path, workspace: Path, how: signal.Signals, stage: str
) -> dict[str, Any]:
    """Presents a decision, lets the person reach `stage`, then signals the app; returns the
    tool's structured result."""
    runtime, display = screen
    workspace.mkdir(exist_ok=True)
    env = agent_env(runtime, DISPLAY=display, DECISION_JOURNAL_PROGRESS_SECONDS="0.2")
    desk = Desktop(display, env, journal)
    app = start_app(env, journal)

    def person() -> None:
        window = desk.find_window()
        if stage == "rationale":
            desk.answer(window, *CHOOSE_SECOND)
            _wait_for_stage(journal, "rationale")
        os.kill(app.pid, how)

    async def run() -> Any:
        async with mcp_client(desk, journal, workspace) as client, anyio.create_task_group() as tg:
            tg.start_soon(anyio.to_thread.run_sync, person)
            return await client.call_tool("present_implementation_decision", proposal_dict())

    try:
        result = anyio.run(run)
        app.wait(timeout=20)
    finally:
        stop(app)
    assert not result.is_error, result.content
    out: dict[str, Any] = result.structured_content
    (item,) = PendingStore(journal).list(workspace=str(workspace)).items
    assert item.decision_id == out["decision_id"]
    assert item.stage == stage
    return out


def _wait_for_stage(journal: Path, stage: str) -> None:
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        items = PendingStore(journal).list().items
        if items and items[0].stage == stage:
            return
        time.sleep(0.05)
    raise AssertionError(f"the pending decision never reached stage {stage!r}")


def _check_pending(out: dict[str, Any], stage: str) -> None:
    decision_id = out["decision_id"]
    assert (out["status"], out["stage"]) == ("pending", stage), out
    assert decision_id.startswith("decision-"), out
    assert APP_CLOSED in out["instruction"], out["instruction"]
    resume = f'present_implementation_decision again with only {{"decision_id": "{decision_id}"}}'
    assert resume in out["instruction"], out["instruction"]
    assert "do not guess the choice" in out["instruction"]
    if stage == "rationale":
        assert out["selection"]["option_id"] == "single-json", out


@pytest.mark.parametrize("stage", ["choice", "rationale"])
def test_a_quit_mid_question_returns_the_decision_pending_as_a_crash_does(
    screen: tuple[Path, str], tmp_path: Path, stage: str
) -> None:
    workspace = tmp_path / "repo"
    quit_out = _interrupted(screen, tmp_path / "quit", workspace, signal.SIGTERM, stage)
    crash_out = _interrupted(screen, tmp_path / "crash", workspace, signal.SIGKILL, stage)
    _check_pending(quit_out, stage)
    _check_pending(crash_out, stage)
    assert _without_id(quit_out) == _without_id(crash_out)


def _without_id(out: dict[str, Any]) -> str:
    """The result as the agent reads it, with the decision id (each MCP session's own, since
    the id covers the session) replaced."""
    return json.dumps(out, sort_keys=True).replace(out["decision_id"], "<id>")
