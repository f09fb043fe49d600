"""AskUserQuestion end to end under Xvfb: the real hook process → the real tray app's questions
window → a person's keystrokes (xdotool) → the hook's `allow` with answers, and the journal.

Why Xvfb: the other AskUserQuestion tests answer through a scripted socket; only a real X server
shows that the window appears, takes focus and is answerable from the keyboard alone.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.store.decisions import DecisionStore
from tests.integration.agent_support import (
    ROOT,
    Desktop,
    agent_env,
    cli_command,
    short_runtime_dir,
    start_app,
    start_xvfb,
    stop,
    xvfb_missing_reason,
)
from tests.integration.hook_support import Place

pytestmark = [
    pytest.mark.xvfb,
    pytest.mark.timeout(90),
    pytest.mark.skipif(xvfb_missing_reason() is not None, reason=str(xvfb_missing_reason())),
]


@pytest.fixture
def desktop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Desktop, Place]]:
    workspace = tmp_path / "repo"
    workspace.mkdir()
    with short_runtime_dir() as runtime:
        monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
        xvfb, display = start_xvfb()
        journal = tmp_path / "journal"
        desk = Desktop(display, agent_env(runtime, DISPLAY=display), journal)
        try:
            desk.processes.append(start_app(desk.env, journal))
            yield desk, Place(journal, workspace, runtime)
        finally:
            for process in desk.processes:
                stop(process)
            stop(xvfb)


def test_questions_answered_with_the_keyboard_reach_claude_code_and_the_journal(
    desktop: tuple[Desktop, Place],
) -> None:
    desk, place = desktop
    event = place.journal.parent / "event.json"
    event.write_text(place.golden_text("claude_ask_several.input.json"), encoding="utf-8")
    with event.open(encoding="utf-8") as stdin:  # the hook reads it while the test types
        hook = subprocess.Popen(
            cli_command(place.journal, "hook", "claude-code"),
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=agent_env(place.runtime),
            cwd=ROOT,
            text=True,
        )
    desk.processes.append(hook)
    window = desk.xdotool(
        "search", "--sync", "--onlyvisible", "--name", "^Question: Which database"
    ).split()[0]
    desk.answer(
        window,
        ("key", "o"),
        ("type", "Postgres"),
        ("key", "Tab"),
        ("type", "we already run it"),
        ("key", "Tab"),
        ("key", "1"),
        ("key", "2"),
        ("key", "ctrl+Return"),
    )
    stdout, stderr = hook.communicate(timeout=30)
    assert hook.returncode == 0, stderr
    output = json.loads(stdout)
    assert output["hookSpecificOutput"]["permissionDecision"] == "allow"
    assert output == place.golden("claude_ask_several.expected.json")
    records = {r.problem: r for r in DecisionStore(place.journal).list()}
    assert records["Which database should the cache use?"].custom_selection == "Postgres"
    assert records["Which signals should the worker emit?"].custom_selection == "Logging, Metrics"
