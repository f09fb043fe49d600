"""The tray's Quit while an agent waits for an answer: the agent gets its decision back pending,
with its id, the stage the person reached and the call that resumes it, not a refusal."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from app.main_app import TrayApp
from core.capture.machine import APP_CLOSED
from core.journal import Journal
from tests.app.support.controller_support import SocketCall
from tests.app.support.journal_support import redirected_settings
from tests.app.support.teardown import settle
from tests.factories import proposal_dict

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore(r"No such signal QPlatformNativeInterface::systemTrayWindowChanged"),
]


def test_tray_quit_during_a_question_answers_the_agent_pending_at_its_stage(
    qtbot: QtBot, tmp_path: Path, runtime_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime_dir))
    quits: list[bool] = []
    monkeypatch.setattr(QApplication, "quit", lambda: quits.append(True))  # keep the session's
    journal = Journal(tmp_path / "journal")
    params: dict[str, Any] = {
        "proposal": proposal_dict(),
        "workspace": "/tmp/project",
        "session_id": "session-quit",
        "agent": "pytest",
    }
    with redirected_settings(tmp_path / "settings"):
        app = TrayApp(journal, tray_available=True)
        assert app.start()
        try:
            call = SocketCall(journal.root, "decision.present", params)
            call.start()
            qtbot.waitUntil(lambda: len(app.controller.open_windows()) == 1, timeout=10_000)
            assert app.tray is not None
            app.tray.quit_action.trigger()
            qtbot.waitUntil(lambda: not call.is_alive(), timeout=10_000)
        finally:
            for window in app.controller.open_windows():
                window.close_after_record()
            if app.tray is not None:
                app.tray.hide()
            app.deleteLater()
            settle(qtbot)
    assert quits == [True]
    assert call.error is None, call.error
    result = call.result
    assert result is not None
    assert (result["status"], result["stage"]) == ("pending", "choice")
    assert APP_CLOSED in result["message"]
    assert f'only {{"decision_id": "{result["decision_id"]}"}}' in result["message"]
    assert journal.pending.exists(result["decision_id"])
