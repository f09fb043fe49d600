"""Two agents ask at once on a real X desktop with a window manager: no keystroke goes astray.

Why a real window manager: whether a window takes the keyboard when it appears is decided by
the window manager (openbox here, as on many lightweight desktops), not by Qt; the offscreen
platform activates every window it shows. Keys are real X key events from xdotool, sent to
whichever window has the focus, as a person's keyboard would. The same run checks the window
class the desktop groups our windows by, for the app started as a module and from its
autostart entry.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from app import autostart
from core.ipc.client import app_is_running
from core.ipc.runtime_paths import socket_path
from tests.factories import proposal_dict
from tests.integration.agent_support import stop
from tests.integration.cli_runner import ROOT
from tests.integration.desktop import app_env, running_app, xdotool
from tests.integration.window_manager import (
    ask_process,
    keys,
    type_text,
    wait_window,
    xvfb_with_window_manager,
)

pytestmark = pytest.mark.xvfb

GUARD_WAIT = 0.6
"""Longer than the windows' key guard, as a person who reads before pressing a key."""


def _active(env: dict[str, str]) -> str:
    return xdotool(env, "getactivewindow")


def _stacking(env: dict[str, str]) -> list[str]:
    """Managed windows from bottom to top, as decimal ids (xdotool's spelling)."""
    result = subprocess.run(
        ["xprop", "-root", "_NET_CLIENT_LIST_STACKING"],
        env=env,
        capture_output=True,
        text=True,
        timeout=10,
    )
    return [str(int(part, 16)) for part in re.findall(r"0x[0-9a-f]+", result.stdout)]


def _wm_class(env: dict[str, str], window: str) -> str:
    result = subprocess.run(
        ["xprop", "-id", window, "WM_CLASS"], env=env, capture_output=True, text=True, timeout=10
    )
    return result.stdout.strip()


def _result(ask: subprocess.Popen[str], returncode: int = 0) -> dict[str, object]:
    """The JSON `ask` printed; 0 means recorded, 3 pending (docs/agents.md)."""
    out, err = ask.communicate(timeout=60)
    assert ask.returncode == returncode, err
    result = json.loads(out)
    assert isinstance(result, dict)
    return result


def _proposals(tmp_path: Path) -> tuple[Path, Path]:
    first, second = tmp_path / "first.json", tmp_path / "second.json"
    first.write_text(json.dumps(proposal_dict()))
    second.write_text(
        json.dumps(proposal_dict(problem="Pick the cache eviction policy for the profile store"))
    )
    return first, second


def test_a_second_window_never_takes_the_keys_typed_into_the_first(
    tmp_path: Path, runtime_dir: Path
) -> None:
    journal = tmp_path / "journal"
    first_proposal, second_proposal = _proposals(tmp_path)
    with xvfb_with_window_manager() as display_env:
        env = app_env(runtime_dir, {**display_env, "QT_QPA_PLATFORM": "xcb"})
        with running_app(journal, env):
            first_ask = ask_process(journal, env, first_proposal, "xvfb-first")
            first = wait_window(env, "Decision: Choose the canonical")
            xdotool(env, "windowactivate", "--sync", first)
            time.sleep(GUARD_WAIT)
            assert (
                _wm_class(env, first) == 'WM_CLASS(STRING) = "decision-journal", "decision-journal"'
            )
            keys(env, "o")
            type_text(env, "my own layout")

            other_workspace = tmp_path / "other-project"
            other_workspace.mkdir()
            second_ask = ask_process(journal, env, second_proposal, "xvfb-second", other_workspace)
            second = wait_window(env, "Decision: Pick the cache eviction")
            time.sleep(GUARD_WAIT)
            assert _active(env) == first, "the new window took the keyboard"
            assert _stacking(env).index(second) < _stacking(env).index(first), (
                "the new window covers the one in use"
            )
            type_text(env, ", one file per 2 projects")
            keys(env, "Return")
            time.sleep(GUARD_WAIT)
            type_text(env, "it fits our sync tool")
            for _ in range(2):
                keys(env, "Tab")
                type_text(env, "not what we need")
            keys(env, "ctrl+Return")
            first_result = _result(first_ask)

            deadline = time.monotonic() + 10
            while _active(env) != second and time.monotonic() < deadline:
                time.sleep(0.05)
            assert _active(env) == second, "the waiting window did not come forward"
            keys(env, "1", "Return")  # at once: inside the key guard, so nothing is chosen
            time.sleep(GUARD_WAIT)
            keys(env, "2", "Return")
            time.sleep(0.3)
            type_text(env, "one document is easy to back up")
            keys(env, "Tab")
            type_text(env, "thousands of small files")
            keys(env, "ctrl+Return")
            second_result = _result(second_ask)
    assert first_result["status"] == "recorded"
    assert first_result.get("custom_selection") == "my own layout, one file per 2 projects"
    assert second_result["status"] == "recorded"
    assert second_result["selected_option_id"] == "single-json"
    assert second_result["selection_reason"] == "one document is easy to back up"


def test_over_the_journal_window_a_new_decision_shows_on_top_and_the_keys_stay(
    tmp_path: Path, runtime_dir: Path
) -> None:
    """Typing a search in the journal window when an agent asks: the decision window is shown
    above it at once (not hidden behind), and the typed text stays in the search box."""
    journal = tmp_path / "journal"
    first_proposal, _ = _proposals(tmp_path)
    with xvfb_with_window_manager() as display_env:
        env = app_env(runtime_dir, {**display_env, "QT_QPA_PLATFORM": "xcb"})
        with running_app(journal, env):
            subprocess.run(
                [sys.executable, "-m", "app.cli.main", "--journal", str(journal), "app", "--show"],
                cwd=ROOT, env=env, capture_output=True, timeout=30, check=True,
            )  # fmt: skip
            window = wait_window(env, "Decision Journal")
            xdotool(env, "windowactivate", "--sync", window)
            time.sleep(GUARD_WAIT)
            keys(env, "ctrl+f")
            type_text(env, "cache")
            ask = ask_process(journal, env, first_proposal, "xvfb-journal")
            decision = wait_window(env, "Decision: Choose the canonical")
            time.sleep(GUARD_WAIT)
            assert _active(env) == window, "the decision window took the keyboard"
            stacking = _stacking(env)
            assert stacking.index(decision) > stacking.index(window), "hidden behind"
            type_text(env, " policy")
            keys(env, "2")  # goes to the search box, not to the decision
            xdotool(env, "windowactivate", "--sync", decision)
            time.sleep(GUARD_WAIT)
            keys(env, "1", "Return")
            time.sleep(0.3)
            type_text(env, "independent files")
            keys(env, "Tab")
            type_text(env, "a rewrite bottleneck")
            keys(env, "ctrl+Return")
            result = _result(ask)
    assert result["status"] == "recorded"
    assert result["selected_option_id"] == "per-record-json"


def test_the_autostart_entry_starts_the_app_with_its_journal_and_window_class(
    tmp_path: Path, runtime_dir: Path
) -> None:
    journal = tmp_path / "work journal"
    proposal, _ = _proposals(tmp_path)
    entry = autostart._desktop_entry(autostart.launch_command(journal), journal)
    command = autostart.entry_command(entry)
    assert command[-3:] == ["--journal", str(journal), "app"]
    with xvfb_with_window_manager() as display_env:
        env = app_env(runtime_dir, {**display_env, "QT_QPA_PLATFORM": "xcb"})
        log = open(tmp_path / "autostart-app.log", "w", encoding="utf-8")  # noqa: SIM115
        app = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + 20
            while not app_is_running(socket_path(journal)) and time.monotonic() < deadline:
                assert app.poll() is None, (tmp_path / "autostart-app.log").read_text()
                time.sleep(0.1)
            ask = ask_process(journal, env, proposal, "xvfb-autostart")
            window = wait_window(env, "Decision: Choose the canonical")
            assert (
                _wm_class(env, window)
                == 'WM_CLASS(STRING) = "decision-journal", "decision-journal"'
            )
            xdotool(env, "windowactivate", "--sync", window)
            time.sleep(GUARD_WAIT)
            keys(env, "Escape")
            result = _result(ask, returncode=3)
        finally:
            stop(app)
            log.close()
    assert result["status"] == "pending"
    assert (journal / "pending").is_dir()


def test_typed_reasons_survive_an_app_crash(tmp_path: Path, runtime_dir: Path) -> None:
    journal = tmp_path / "journal"
    proposal, _ = _proposals(tmp_path)
    with xvfb_with_window_manager() as display_env:
        env = app_env(runtime_dir, {**display_env, "QT_QPA_PLATFORM": "xcb"})
        with running_app(journal, env) as app:
            ask = ask_process(journal, env, proposal, "xvfb-crash")
            window = wait_window(env, "Decision: Choose the canonical")
            xdotool(env, "windowactivate", "--sync", window)
            time.sleep(GUARD_WAIT)
            keys(env, "2", "Return")
            time.sleep(GUARD_WAIT)
            type_text(env, "one document is easy to back up")
            drafts = list((journal / "drafts").glob("*.json"))
            deadline = time.monotonic() + 10
            while not drafts and time.monotonic() < deadline:
                time.sleep(0.1)
                drafts = list((journal / "drafts").glob("*.json"))
            assert len(drafts) == 1, "no draft was written while typing"
            time.sleep(1.0)  # the last keystrokes' draft
            app.kill()
            app.wait(10)
            ask.communicate(timeout=30)
        (draft,) = drafts
        assert oct(draft.stat().st_mode & 0o777) == "0o600"
        assert "one document is easy to back up" in draft.read_text()
        decision_id = draft.stem
        resume = tmp_path / "resume.json"
        resume.write_text(json.dumps({"decision_id": decision_id}))
        with running_app(journal, env):
            again = ask_process(journal, env, resume, "xvfb-crash")
            window = wait_window(env, "Decision: Choose the canonical")
            xdotool(env, "windowactivate", "--sync", window)
            time.sleep(GUARD_WAIT)
            keys(env, "Tab")
            type_text(env, "thousands of small files")
            keys(env, "ctrl+Return")
            result = _result(again)
    assert result["status"] == "recorded"
    assert result["selection_reason"] == "one document is easy to back up"
    assert not draft.exists()
