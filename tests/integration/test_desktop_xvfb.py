"""A person at a real X desktop: the tray icon is embedded, and keystrokes answer a decision."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest

from tests.factories import proposal_dict
from tests.integration.desktop import (
    app_env,
    running_app,
    tray_embeds_our_icon,
    xdotool,
    xvfb_with_tray,
)
from tests.integration.window_manager import ask_process, keys, type_text, wait_window

pytestmark = pytest.mark.xvfb


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
            while not tray_embeds_our_icon(env) and deadline_checks:
                deadline_checks -= 1
                subprocess.run(["sleep", "0.25"], check=True)
            assert tray_embeds_our_icon(env), "the tray icon was not embedded in trayer"
            ask = ask_process(journal, env, proposal, "xvfb-1")
            window = wait_window(env, "Decision: Choose the canonical")
            xdotool(env, "windowactivate", "--sync", window)
            time.sleep(0.6)  # keys in the window's first moments are ignored (the key guard)
            keys(env, "Return")  # nothing chosen: must not continue
            keys(env, "2", "Return")
            type_text(env, "one file is simpler to back up")
            keys(env, "Tab")
            type_text(env, "too many small files for our sync tool")
            keys(env, "ctrl+Return")
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
