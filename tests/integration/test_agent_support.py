"""The end-to-end helpers agree with the app on what they imitate."""

from __future__ import annotations

from app.gui.widgets import window_behaviour
from tests.integration import agent_support


def test_the_person_waits_out_the_same_key_guard_as_the_window() -> None:
    assert agent_support.KEY_GUARD_MS == window_behaviour.KEY_GUARD_MS
