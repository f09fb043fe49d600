"""A person at a real X desktop with the journal window open answers an agent's decision in the
capture window by keys: the journal window lists it at once, with nobody touching it.

The app is the real one (`decision-journal app --show` over its real socket, under openbox);
`journal_probe` only reads what its journal window shows and writes it to a file.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from core.record.identity import project_identity
from core.store.decisions import DecisionStore
from tests.factories import decision, proposal_dict
from tests.integration.cli_runner import ROOT
from tests.integration.desktop import app_env, running_app, xdotool
from tests.integration.window_manager import (
    answer_second_option,
    ask_process,
    wait_window,
    xvfb_with_window_manager,
)

pytestmark = pytest.mark.xvfb

GUARD_WAIT = 0.6
"""Keys in a window's first 400 ms are ignored (the key guard)."""
SOON_S = 2.0
"""A new decision reaches the open list within this long: "within a second or two"."""


def _shown(state: Path) -> dict[str, Any]:
    try:
        return dict(json.loads(state.read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return {}


def _wait_shown(state: Path, predicate: Any, seconds: float) -> dict[str, Any]:
    deadline = time.monotonic() + seconds
    shown = _shown(state)
    while time.monotonic() < deadline:
        shown = _shown(state)
        if shown and predicate(shown):
            return shown
        time.sleep(0.05)
    raise AssertionError(f"the journal window shows {shown}")


def test_a_decision_answered_in_the_capture_window_appears_in_the_open_journal_window(
    tmp_path: Path, runtime_dir: Path
) -> None:
    journal = tmp_path / "journal"
    project = project_identity(str(ROOT))
    store = DecisionStore(journal)
    for number in (1, 2, 3):
        store.put(decision(number, project="", project_id=project.project_id, project_alias="wt"))
    proposal = tmp_path / "proposal.json"
    proposal.write_text(json.dumps(proposal_dict()), encoding="utf-8")
    state = tmp_path / "shown.json"
    with xvfb_with_window_manager() as display_env:
        env = app_env(runtime_dir, {**display_env, "QT_QPA_PLATFORM": "xcb"})
        probe = ("-m", "tests.integration.journal_probe", str(state))
        with running_app(journal, env, launcher=probe, options=("--show",)):
            _wait_shown(
                state,
                lambda s: (
                    s["caption"] == "3 of 3 decisions loaded"
                    and any("(3)" in text for text in s["scopes"])
                ),
                30,
            )
            ask = ask_process(journal, env, proposal, "xvfb-live")
            window = wait_window(env, "Decision: Choose the canonical")
            xdotool(env, "windowactivate", "--sync", window)
            time.sleep(GUARD_WAIT)
            answer_second_option(env, "one file is simpler to back up", "too many small files")
            out, err = ask.communicate(timeout=60)
            assert ask.returncode == 0, err
            recorded = json.loads(out)
            assert recorded["status"] == "recorded"
            answered = time.monotonic()
            shown = _wait_shown(state, lambda s: len(s["ids"]) == 4, SOON_S)
            assert time.monotonic() - answered < SOON_S
            assert shown["ids"][0] == recorded["decision_id"]
            _wait_shown(
                state,
                lambda s: (
                    s["caption"] == "4 of 4 decisions loaded"
                    and any("(4)" in text for text in s["scopes"])
                ),
                SOON_S,
            )
            # a writer that tells nobody (a hook journaling a question's answers, KernForge)
            store.put(decision(5, project="", project_id=project.project_id, project_alias="wt"))
            shown = _wait_shown(state, lambda s: "decision-5" in s["ids"], SOON_S + 1)
            assert len(shown["ids"]) == 5
