"""The capture controller in-process: real socket server, real windows, a real client thread."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QLabel, QPlainTextEdit, QRadioButton
from pytestqt.qtbot import QtBot
from shiboken6 import Shiboken

from app.capture_controller import CaptureController
from app.gui.capture.window import CaptureWindow
from core.capture.drafts import DraftStore
from core.capture.machine import APP_CLOSED
from core.capture.pending import PendingStore
from core.errors import ErrorCode, RemoteError
from core.ipc.protocol import is_shutting_down
from tests.app.support.controller_support import SocketCall
from tests.factories import proposal_dict


class _Call(SocketCall):
    def __init__(self, journal: Path, params: dict[str, Any], wait: float = 60) -> None:
        super().__init__(journal, "decision.present", params, wait)


def _params(session: str, **overrides: Any) -> dict[str, Any]:
    return {
        "proposal": proposal_dict(**overrides),
        "workspace": "/tmp/project",
        "session_id": session,
        "agent": "pytest",
    }


def _finish(qtbot: QtBot, call: _Call) -> None:
    """Waits while the event loop runs: the reply is produced on the GUI thread."""
    qtbot.waitUntil(lambda: not call.is_alive(), timeout=20_000)


def _window_for(qtbot: QtBot, controller: CaptureController, count: int) -> list[CaptureWindow]:
    qtbot.waitUntil(lambda: len(controller.open_windows()) == count, timeout=10_000)
    return controller.open_windows()


def _activate(qtbot: QtBot, window: CaptureWindow) -> None:
    window.present()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=5000)
    qtbot.waitUntil(lambda: not window.key_guard.is_quiet())  # keys right away are ignored


def _press(key: Qt.Key, modifier: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier) -> None:
    """Keys go where a keyboard sends them: to the focused widget."""
    target = QApplication.focusWidget()
    assert target is not None
    QTest.keyClick(target, key, modifier)


def _visible_fields(window: CaptureWindow) -> list[QPlainTextEdit]:
    return [f for f in window.findChildren(QPlainTextEdit) if f.isVisible()]


def _fill_and_record(window: CaptureWindow) -> None:
    for index, field in enumerate(_visible_fields(window)):
        field.setPlainText(f"reason {index}")
    _press(Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)


def _choose(qtbot: QtBot, window: CaptureWindow, key: Qt.Key = Qt.Key.Key_1) -> None:
    """Marks an approach by its number and moves on to the reasons."""
    _activate(qtbot, window)
    _press(key)
    _press(Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.stage == "rationale", timeout=5000)


def _answer(qtbot: QtBot, window: CaptureWindow, key: Qt.Key) -> None:
    _choose(qtbot, window, key)
    _fill_and_record(window)


def test_two_agents_at_once_each_get_their_own_answer(
    qtbot: QtBot, harness: tuple[Path, CaptureController]
) -> None:
    journal, controller = harness
    first = _Call(journal, _params("session-a"))
    second = _Call(journal, _params("session-b", problem="Pick the cache eviction policy"))
    first.start()
    second.start()
    windows = _window_for(qtbot, controller, 2)
    by_problem = {w.request.problem: w for w in windows}
    _answer(qtbot, by_problem["Pick the cache eviction policy"], Qt.Key.Key_2)
    _answer(
        qtbot,
        by_problem["Choose the canonical cross-project decision storage layout"],
        Qt.Key.Key_1,
    )
    _finish(qtbot, first)
    _finish(qtbot, second)
    assert first.error is None and second.error is None
    assert first.result is not None and second.result is not None
    assert first.result["status"] == second.result["status"] == "recorded"
    assert first.result["selected_option_id"] == "per-record-json"
    assert second.result["selected_option_id"] == "single-json"
    assert len(list((journal / "records").glob("*.json"))) == 2


def test_escape_answers_pending_and_resume_reopens_at_rationale(
    qtbot: QtBot, harness: tuple[Path, CaptureController]
) -> None:
    journal, controller = harness
    call = _Call(journal, _params("session-c"))
    call.start()
    (window,) = _window_for(qtbot, controller, 1)
    _choose(qtbot, window)
    qtbot.waitUntil(
        lambda: PendingStore(journal).load(window.request.decision_id).stage == "rationale",
        timeout=5000,
    )
    _press(Qt.Key.Key_Escape)
    _finish(qtbot, call)
    assert call.result is not None and call.result["status"] == "pending"
    assert call.result["stage"] == "rationale"
    decision_id = call.result["decision_id"]

    resume = _Call(
        journal,
        {"decision_id": decision_id, "workspace": "/tmp/project", "session_id": "session-c"},
    )
    resume.start()
    (reopened,) = _window_for(qtbot, controller, 1)
    assert reopened.stage == "rationale"
    _activate(qtbot, reopened)
    fields = _visible_fields(reopened)
    assert fields and all(not f.toPlainText() for f in fields)  # nothing typed, nothing kept
    _fill_and_record(reopened)
    _finish(qtbot, resume)
    assert resume.result is not None and resume.result["status"] == "recorded"
    assert resume.result["selected_option_id"] == "per-record-json"


def test_an_agent_that_goes_away_withdraws_its_window_and_the_decision_stays_pending(
    qtbot: QtBot, harness: tuple[Path, CaptureController]
) -> None:
    """docs/protocol.md: a disconnecting client's question is withdrawn, not left on screen
    for an answer nobody waits for; the decision stays pending, resumable at its stage."""
    journal, controller = harness
    impatient = _Call(journal, _params("session-d"))
    impatient.start()
    (window,) = _window_for(qtbot, controller, 1)
    decision_id = window.request.decision_id
    impatient.hang_up()
    qtbot.waitUntil(lambda: not Shiboken.isValid(window), timeout=10_000)  # closed and deleted
    assert not controller.open_windows()
    assert [p.decision_id for p in PendingStore(journal).list().items] == [decision_id]
    again = _Call(
        journal,
        {"decision_id": decision_id, "workspace": "/tmp/project", "session_id": "session-d"},
    )
    again.start()
    (reopened,) = _window_for(qtbot, controller, 1)
    _answer(qtbot, reopened, Qt.Key.Key_2)
    _finish(qtbot, again)
    assert again.result is not None and again.result["status"] == "recorded"
    assert again.result["selected_option_id"] == "single-json"


def test_an_agent_that_goes_away_while_the_person_types_leaves_the_window_and_keeps_the_draft(
    qtbot: QtBot, harness: tuple[Path, CaptureController]
) -> None:
    journal, controller = harness
    impatient = _Call(journal, _params("session-e"))
    impatient.start()
    (window,) = _window_for(qtbot, controller, 1)
    _choose(qtbot, window)
    reason = _visible_fields(window)[0]
    reason.setPlainText("Half of my reasons, typed before the agent left")
    impatient.hang_up()
    qtbot.waitUntil(lambda: bool(window.notice), timeout=10_000)
    assert window.isVisible() and controller.open_windows() == [window]
    assert "stopped waiting" in window.findChild(QLabel, "message").text()
    drafts = DraftStore(journal)
    qtbot.waitUntil(lambda: drafts.load(window.request.decision_id) is not None, timeout=10_000)
    draft = drafts.load(window.request.decision_id)
    assert draft is not None
    assert draft.selection_reason == "Half of my reasons, typed before the agent left"
    _fill_and_record(window)  # finishing still records the decision
    qtbot.waitUntil(lambda: not PendingStore(journal).list().items, timeout=10_000)
    assert len(list((journal / "records").glob("*.json"))) == 1
    _finish(qtbot, impatient)
    assert impatient.result is None  # nobody was waiting for the answer any more


def test_journal_changed_is_acknowledged_and_announced(
    qtbot: QtBot, harness: tuple[Path, CaptureController]
) -> None:
    journal, controller = harness
    call = SocketCall(journal, "journal.changed", {})
    with qtbot.waitSignal(controller.journal_changed, timeout=10_000):
        call.start()
    qtbot.waitUntil(lambda: call.result is not None or call.error is not None, timeout=10_000)
    assert call.result == {"accepted": True}


def test_journal_changed_refuses_parameters(
    qtbot: QtBot, harness: tuple[Path, CaptureController]
) -> None:
    journal, _controller = harness
    call = SocketCall(journal, "journal.changed", {"ids": ["decision-1"]})
    call.start()
    qtbot.waitUntil(lambda: call.error is not None or call.result is not None, timeout=10_000)
    assert isinstance(call.error, RemoteError)
    assert call.error.code == ErrorCode.INVALID_PARAMS


def _show(qtbot: QtBot, journal: Path, decision_id: str) -> SocketCall:
    call = SocketCall(journal, "app.show", {"view": "decision", "decision_id": decision_id})
    call.start()
    qtbot.waitUntil(lambda: call.error is not None or call.result is not None, timeout=10_000)
    return call


def test_app_show_of_a_decision_that_is_not_pending_says_so(
    qtbot: QtBot, harness: tuple[Path, CaptureController]
) -> None:
    """It used to answer "shown" for any string, a path or an escape sequence included."""
    journal, _controller = harness
    for bad in ("../../../etc/passwd", "\x1b]52;c;eA==\x07"):
        refused = _show(qtbot, journal, bad)
        assert isinstance(refused.error, RemoteError), refused.result
        assert refused.error.code == ErrorCode.INVALID_PARAMS
        assert "decision_id must use 1 to 160 characters" in refused.error.message
    missing = _show(qtbot, journal, "decision-" + "0" * 40)
    assert isinstance(missing.error, RemoteError), missing.result
    assert missing.error.code == ErrorCode.NOT_FOUND


def _type(text: str) -> None:
    target = QApplication.focusWidget()
    assert target is not None
    QTest.keyClicks(target, text)


def _draft_path(journal: Path, decision_id: str) -> Path:
    return journal / "drafts" / f"{decision_id}.json"


def _asked_and_shown(
    qtbot: QtBot, harness: tuple[Path, CaptureController], session: str
) -> tuple[_Call, CaptureWindow]:
    """An agent in `session` asks; its window is open and active, past its key guard."""
    journal, controller = harness
    call = _Call(journal, _params(session))
    call.start()
    (window,) = _window_for(qtbot, controller, 1)
    _activate(qtbot, window)
    return call, window


def test_typed_reasons_survive_escape_and_come_back_on_resume(
    qtbot: QtBot, harness: tuple[Path, CaptureController]
) -> None:
    journal, controller = harness
    call, window = _asked_and_shown(qtbot, harness, "session-e")
    decision_id = window.request.decision_id
    _press(Qt.Key.Key_2)
    _press(Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.stage == "rationale", timeout=5000)
    _type("one file is simpler to back up")
    _press(Qt.Key.Key_Escape)
    _finish(qtbot, call)
    assert call.result is not None and call.result["status"] == "pending"
    assert "one file is simpler" not in str(call.result)  # the agent never sees the draft
    qtbot.waitUntil(lambda: _draft_path(journal, decision_id).exists(), timeout=5000)
    assert "one file is simpler" not in PendingStore(journal).path(decision_id).read_text()

    controller.open_pending(decision_id)
    (reopened,) = _window_for(qtbot, controller, 1)
    qtbot.waitUntil(lambda: reopened.stage == "rationale", timeout=5000)
    fields = _visible_fields(reopened)
    assert fields[0].toPlainText() == "one file is simpler to back up"
    assert all(not f.toPlainText() for f in fields[1:])
    _activate(qtbot, reopened)
    for index, field in enumerate(fields[1:]):
        field.setPlainText(f"reason {index}")
    _press(Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: len(list((journal / "records").glob("*.json"))) == 1, timeout=10_000)
    qtbot.waitUntil(lambda: not _draft_path(journal, decision_id).exists(), timeout=5000)


def test_a_second_agent_waits_while_the_person_types_then_comes_forward(
    qtbot: QtBot, harness: tuple[Path, CaptureController]
) -> None:
    """The offscreen platform activates every shown window, so that the new window really
    stays behind is checked under Xvfb with a window manager (test_focus_xvfb); here: it is
    queued, announced once, and comes forward with its key guard when the first one closes."""
    journal, controller = harness
    first, typing_in = _asked_and_shown(qtbot, harness, "session-f")
    _press(Qt.Key.Key_O)
    _type("my own")
    asked: list[str] = []
    controller.decision_asked.connect(lambda _project, problem: asked.append(problem))
    second = _Call(journal, _params("session-g", problem="Pick the cache eviction policy"))
    second.start()
    qtbot.waitUntil(lambda: len(controller.open_windows()) == 2, timeout=10_000)
    (waiting,) = [w for w in controller.open_windows() if w is not typing_in]
    qtbot.waitExposed(waiting)
    assert controller.waiting_turn() == [waiting]
    assert asked == ["Pick the cache eviction policy"]

    _activate(qtbot, typing_in)
    _press(Qt.Key.Key_Escape)
    qtbot.waitUntil(waiting.isActiveWindow, timeout=5000)
    assert controller.waiting_turn() == []
    assert waiting.key_guard.is_quiet()
    _press(Qt.Key.Key_2)  # inside the new window's key guard: ignored
    assert not any(b.isChecked() for b in waiting.findChildren(QRadioButton))
    _finish(qtbot, first)
    assert first.result is not None and first.result["status"] == "pending"


def test_a_decision_the_person_opens_is_not_announced(
    qtbot: QtBot, harness: tuple[Path, CaptureController]
) -> None:
    _journal, controller = harness
    call, window = _asked_and_shown(qtbot, harness, "session-h")
    decision_id = window.request.decision_id
    _press(Qt.Key.Key_Escape)
    _finish(qtbot, call)
    with qtbot.assertNotEmitted(controller.decision_asked, wait=300):
        controller.open_pending(decision_id)
        (reopened,) = _window_for(qtbot, controller, 1)
        qtbot.waitUntil(reopened.isActiveWindow, timeout=5000)


def test_quitting_answers_each_waiting_agent_pending_at_its_stage_and_refuses_the_rest(
    qtbot: QtBot, harness: tuple[Path, CaptureController]
) -> None:
    journal, controller = harness
    choosing = _Call(journal, _params("session-q1"))
    explaining = _Call(journal, _params("session-q2", problem="Pick the cache eviction policy"))
    choosing.start()
    explaining.start()
    windows = {w.request.problem: w for w in _window_for(qtbot, controller, 2)}
    window = windows["Pick the cache eviction policy"]
    _activate(qtbot, window)
    _press(Qt.Key.Key_2)
    _press(Qt.Key.Key_Return)
    explained_id = window.request.decision_id
    qtbot.waitUntil(
        lambda: PendingStore(journal).load(explained_id).stage == "rationale", timeout=5000
    )
    # As the app's quit does: the workers finish (the ticket takes its new stage just after the
    # pending file is written), then every waiting agent is answered.
    assert controller._workers.wait_idle()
    controller.release_on_quit()
    _finish(qtbot, choosing)
    _finish(qtbot, explaining)
    late = _Call(journal, _params("session-q3", problem="Pick the log format"))
    late.start()
    _finish(qtbot, late)

    results = [choosing.result, explaining.result]
    assert all(result is not None for result in results), (choosing.error, explaining.error)
    assert choosing.result is not None and explaining.result is not None
    assert (choosing.result["status"], choosing.result["stage"]) == ("pending", "choice")
    assert (explaining.result["status"], explaining.result["stage"]) == ("pending", "rationale")
    assert explaining.result["selected_option_id"] == "single-json"
    assert explaining.result["decision_id"] == explained_id
    for result in (choosing.result, explaining.result):
        assert APP_CLOSED in result["message"]
        assert f'only {{"decision_id": "{result["decision_id"]}"}}' in result["message"]
        assert PendingStore(journal).exists(result["decision_id"])
    assert isinstance(late.error, RemoteError) and is_shutting_down(late.error), late.error
    assert late.error.code == ErrorCode.BUSY


def test_the_agents_languages_reach_the_window(
    qtbot: QtBot, harness: tuple[Path, CaptureController]
) -> None:
    journal, controller = harness
    call = _Call(journal, _params("session-languages", languages=["rust", "typescript"]))
    call.start()
    (window,) = _window_for(qtbot, controller, 1)
    assert list(window.request.languages) == ["rust", "typescript"]
    shown = [label.text() for label in window.findChildren(QLabel)]
    assert "Languages:" in shown and "rust, typescript" in shown
    window.close()
    _finish(qtbot, call)
