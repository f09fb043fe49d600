"""End to end under Xvfb: the real tray app on a private session bus with a stand-in
notification service. An agent's question of a kind set to auto is answered from the profile;
the app's notification carries "Overrule"; pressing it (the service emits ActionInvoked, as a
desktop does for a click) opens that decision's correction in the journal window."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from core.record.origin import is_automatic
from core.store.decisions import DecisionStore
from tests.app.support.fake_notification_service import invoke
from tests.app.support.session_bus import fake_service, private_session_bus
from tests.core.decider.support import KIND, WORKSPACE, Journal, database_proposal
from tests.integration.agent_support import xvfb_missing_reason
from tests.integration.desktop import (
    _wait_for,
    app_env,
    running_app,
    tray_embeds_our_icon,
    xdotool,
    xvfb_with_tray,
)
from tests.integration.window_manager import ask_process, wait_window

pytestmark = [
    pytest.mark.xvfb,
    pytest.mark.timeout(180),
    pytest.mark.skipif(xvfb_missing_reason() is not None, reason=str(xvfb_missing_reason())),
]


def _calls(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_overrule_on_the_notification_opens_the_correction(
    tmp_path: Path, runtime_dir: Path
) -> None:
    journal = tmp_path / "journal"
    settled = Journal(journal)  # twelve explicit answers of one kind, then auto
    settled.answer_many(12)
    settled.decider.set_mode(KIND, "auto")
    proposal = tmp_path / "proposal.json"
    proposal.write_text(json.dumps(database_proposal(100)))
    calls = tmp_path / "notifications.jsonl"

    with (
        private_session_bus() as bus,
        fake_service(bus, calls) as ready,
        xvfb_with_tray() as display_env,
    ):
        assert ready == "ready"
        env = app_env(
            runtime_dir,
            {**display_env, "QT_QPA_PLATFORM": "xcb", "DBUS_SESSION_BUS_ADDRESS": bus},
        )
        with running_app(journal, env):
            _wait_for(lambda: tray_embeds_our_icon(env), 20)
            time.sleep(1.0)  # the capabilities are asked in the background at start
            agent = ask_process(journal, env, proposal, "agent-1", Path(WORKSPACE))
            out, err = agent.communicate(timeout=60)
            assert agent.returncode == 0, err
            result = json.loads(out)
            assert result["decided_by"] == "profile", result
            decision_id = result["decision_id"]

            _wait_for(lambda: any(c["actions"] for c in _calls(calls)), 20)
            [call] = [c for c in _calls(calls) if c["actions"]]
            assert call["actions"] == ["overrule", "Overrule", "default", "Open"]
            assert call["plain"][3] == f"Answered from your usual choice ({journal})"
            assert "Postgres" in call["plain"][4]

            invoke(bus, call["id"], "overrule")  # the person presses "Overrule"
            correction = wait_window(env, "Correct decision (revision 1)")
            assert xdotool(env, "getwindowname", correction).startswith("Correct decision")
            assert wait_window(env, "Decision Journal")

    record = DecisionStore(journal).get(decision_id)
    assert is_automatic(record) and record.revision == 1  # opened, nothing changed unasked
