"""A person at a real X desktop: the tray icon is embedded, and keystrokes answer a decision."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from app.main_app import APP_ID
from tests.factories import proposal_dict
from tests.integration.cli_runner import ROOT
from tests.integration.desktop import app_env, running_app, xdotool, xvfb_with_tray

pytestmark = pytest.mark.xvfb


def _tray_embeds_our_icon(env: dict[str, str]) -> bool:
    """trayer's 'panel' window must hold a child window named like our app (its
    application name, which is also its window class)."""
    tree = subprocess.run(
        ["xwininfo", "-root", "-tree"], env=env, capture_output=True, text=True, timeout=10
    ).stdout.splitlines()
    for index, line in enumerate(tree):
        if '"panel"' not in line:
            continue
        depth = len(line) - len(line.lstrip())
        for child in tree[index + 1 :]:
            if child.strip() and len(child) - len(child.lstrip()) <= depth:
                break
            if f'"{APP_ID}"' in child:
                return True
    return False


def _wait_window(env: dict[str, str], title_prefix: str) -> str:
    window = xdotool(
        env, "search", "--sync", "--onlyvisible", "--name", f"^{re.escape(title_prefix)}"
    )
    assert window, f"no window titled {title_prefix!r}"
    return window.splitlines()[0]


def test_tray_icon_embedded_and_decision_answered_by_keys(
    tmp_path: Path, runtime_dir: Path
) -> None:
    journal = tmp_path / "journal"
    runtime = runtime_dir
    proposal = tmp_path / "proposal.json"
    proposal.write_text(json.dumps(proposal_dict()))
    with xvfb_with_tray() as display_env:
        env = app_env(runtime, {**display_env, "QT_QPA_PLATFORM": "xcb"})
        with running_app(journal, env):
            deadline_checks = 40
            while not _tray_embeds_our_icon(env) and deadline_checks:
                deadline_checks -= 1
                subprocess.run(["sleep", "0.25"], check=True)
            assert _tray_embeds_our_icon(env), "the tray icon was not embedded in trayer"
            ask = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "app.cli.main",
                    "--journal",
                    str(journal),
                    "ask",
                    str(proposal),
                    "--session",
                    "xvfb-1",
                    "--workspace",
                    str(ROOT),
                ],
                cwd=ROOT,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            window = _wait_window(env, "Decision: Choose the canonical")
            xdotool(env, "windowactivate", "--sync", window)
            time.sleep(0.6)  # keys in the window's first moments are ignored (the key guard)
            xdotool(env, "key", "--clearmodifiers", "Return")  # nothing chosen: must not continue
            xdotool(env, "key", "--clearmodifiers", "2", "Return")
            xdotool(env, "type", "--delay", "5", "one file is simpler to back up")
            xdotool(env, "key", "--clearmodifiers", "Tab")
            xdotool(env, "type", "--delay", "5", "too many small files for our sync tool")
            xdotool(env, "key", "--clearmodifiers", "ctrl+Return")
            out, err = ask.communicate(timeout=60)
    assert ask.returncode == 0, err
    result = json.loads(out)
    assert result["status"] == "recorded"
    assert result["selected_option_id"] == "single-json"
    assert result["selection_reason"] == "one file is simpler to back up"
    records = list((journal / "records").glob("*.json"))
    assert len(records) == 1
    stored = json.loads(records[0].read_text())
    assert stored["provenance"]["selection"] == "user"
    assert stored["rejected_reasons"][0]["reason"] == "too many small files for our sync tool"
