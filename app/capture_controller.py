"""Turns agents' socket requests into capture windows and the human's answers into results.

Every disk step (pending save, record write) runs in the worker pool; windows and replies are
handled on the GUI thread. A decision has at most one window; every connection waiting for it
(an agent that resumed, a second `ask`) gets the same answer. `questions.ask` (Claude Code's
AskUserQuestion, via the hook) opens one window per call and touches no disk.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

from PySide6.QtCore import QObject, Signal

from app.gui.capture_window import CaptureRequest, CaptureWindow
from app.gui.questions_window import QuestionsWindow
from app.hooks.questions_wire import (
    QUESTIONS_ASK,
    Answer,
    QuestionsAskParams,
    QuestionsAskResult,
)
from app.ipc.server import Connection
from app.workers import WorkerPool
from core.capture import (
    CaptureService,
    CaptureTicket,
    NeedsHuman,
    Pending,
    Recorded,
    outcome_to_result,
)
from core.errors import InvalidDecision
from core.pending import PendingStore, pending_items
from core.protocol import (
    JOURNAL_CHANGED,
    AppShowParams,
    DecisionPendingParams,
    DecisionPresentParams,
    ErrorCode,
    JournalChangedParams,
    ProtocolError,
    Request,
    RequestIdType,
    error_from_exception,
    parse_params,
)

log = logging.getLogger(__name__)


@dataclass(slots=True)
class _Waiter:
    connection: Connection
    request_id: RequestIdType


@dataclass(slots=True)
class _OpenCapture:
    ticket: CaptureTicket
    window: CaptureWindow
    agent: str
    waiters: list[_Waiter] = field(default_factory=list)


@dataclass(slots=True, eq=False)
class _OpenQuestions:
    """One `questions.ask` call; compared by identity, since two calls may look alike."""

    window: QuestionsWindow
    waiter: _Waiter
    on_closed: Callable[[], None] = lambda: None


class CaptureController(QObject):
    """The socket server's request handler for decisions.

    Signals:
        pending_changed(): the set of waiting decisions may have changed (tray refresh).
        decision_asked(str, str): (project alias, problem) an agent asked a new question.
        journal_requested(): a client asked to show the journal window.
        journal_changed(): another process changed records (`journal.changed`).
    """

    pending_changed = Signal()
    decision_asked = Signal(str, str)
    journal_requested = Signal()
    journal_changed = Signal()

    def __init__(
        self,
        capture: CaptureService,
        pending: PendingStore,
        workers: WorkerPool,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._capture = capture
        self._pending = pending
        self._workers = workers
        self._open: dict[str, _OpenCapture] = {}
        self._asked: list[_OpenQuestions] = []

    # --- socket requests -----------------------------------------------------------------------

    def handle(self, connection: Connection, request: Request) -> None:
        handlers: dict[str, Callable[[Connection, Request], None]] = {
            "decision.present": self._present,
            "decision.pending": self._list_pending,
            "app.show": self._show,
            JOURNAL_CHANGED: self._journal_changed,
            QUESTIONS_ASK: self._ask_questions,
        }
        handler = handlers.get(request.method)
        if handler is None:
            connection.reply_error(
                request.id,
                ProtocolError(
                    ErrorCode.METHOD_NOT_FOUND, f"unknown method {request.method!r}", "method"
                ),
            )
            return
        try:
            handler(connection, request)
        except ProtocolError as exc:
            connection.reply_error(request.id, exc)

    def _present(self, connection: Connection, request: Request) -> None:
        params = parse_params(DecisionPresentParams, request)
        raw: Mapping[str, Any] = (
            params.proposal if params.proposal is not None else {"decision_id": params.decision_id}
        )

        def begin() -> Any:
            return self._capture.begin(
                dict(raw),
                workspace=params.workspace,
                session_id=params.session_id,
                agent=params.agent,
            )

        waiter = _Waiter(connection, request.id)
        self._workers.submit(
            begin,
            lambda outcome: self._on_begun(waiter, outcome, params.agent),
            lambda exc: self._reply_error(waiter, exc),
        )

    def _list_pending(self, connection: Connection, request: Request) -> None:
        params = parse_params(DecisionPendingParams, request)
        self._workers.submit(
            lambda: pending_items(self._pending, params.workspace, params.session_id),
            lambda items: connection.reply(request.id, {"pending": items}),
            lambda exc: self._reply_error(_Waiter(connection, request.id), exc),
        )

    def _show(self, connection: Connection, request: Request) -> None:
        params = parse_params(AppShowParams, request)
        if params.view == "decision" and params.decision_id:
            self.open_pending(params.decision_id)
        else:
            self.journal_requested.emit()
        connection.reply(request.id, {"shown": True})

    def _journal_changed(self, connection: Connection, request: Request) -> None:
        parse_params(JournalChangedParams, request)
        self.journal_changed.emit()
        connection.reply(request.id, {"accepted": True})

    def _ask_questions(self, connection: Connection, request: Request) -> None:
        """One window per call, answered or dismissed by the person; nothing touches disk
        (the hook journals the answers itself), so no worker is needed."""
        params = parse_params(QuestionsAskParams, request)
        asked = _OpenQuestions(QuestionsWindow(params), _Waiter(connection, request.id))
        self._asked.append(asked)
        asked.window.answered.connect(lambda answers: self._questions_answered(asked, answers))
        asked.window.dismissed.connect(lambda: self._questions_done(asked, {"status": "dismissed"}))
        asked.on_closed = lambda: self._questions_withdrawn(asked)
        connection.closed.connect(asked.on_closed)
        if asked in self._asked:
            asked.window.present()
            workspace = PurePath(params.workspace).name if params.workspace else ""
            self.decision_asked.emit(workspace, params.questions[0].question)

    def question_windows(self) -> list[QuestionsWindow]:
        return [asked.window for asked in self._asked]

    def _questions_answered(self, asked: _OpenQuestions, answers: list[Answer]) -> None:
        result = QuestionsAskResult(status="answered", answers=answers)
        self._questions_done(asked, result.model_dump(mode="json"))

    def _questions_done(self, asked: _OpenQuestions, result: dict[str, Any]) -> None:
        if self._forget_questions(asked):
            self._reply(asked.waiter, result)

    def _questions_withdrawn(self, asked: _OpenQuestions) -> None:
        """The client gave up (its hook timed out, Claude Code was closed): an answer would
        reach nobody, so the window goes away instead of waiting for one."""
        if self._forget_questions(asked):
            asked.window.withdraw()

    def _forget_questions(self, asked: _OpenQuestions) -> bool:
        """True the first time only. The window is deleted on the next event-loop turn, not
        now: this runs inside its own signal, and its connections keep it alive until then."""
        if asked not in self._asked:
            return False
        self._asked.remove(asked)
        asked.waiter.connection.closed.disconnect(asked.on_closed)
        asked.window.deleteLater()
        return True

    # --- windows -------------------------------------------------------------------------------

    def open_pending(self, decision_id: str) -> None:
        """Raises the decision's window, resuming it from the journal if none is open."""
        current = self._open.get(decision_id)
        if current is not None:
            current.window.present()
            return

        def resume() -> Any:
            state = self._pending.load(decision_id)
            return self._capture.begin(
                {"decision_id": decision_id},
                workspace=state.proposal.workspace,
                session_id=state.session_id,
                agent=state.proposal.agent,
            )

        self._workers.submit(
            resume,
            lambda outcome: self._on_begun(None, outcome, ""),
            lambda exc: log.warning("cannot open pending decision %s: %s", decision_id, exc),
        )

    def open_windows(self) -> list[CaptureWindow]:
        return [capture.window for capture in self._open.values()]

    def _on_begun(self, waiter: _Waiter | None, outcome: object, agent: str) -> None:
        if isinstance(outcome, Recorded):
            if waiter is not None:
                self._reply(waiter, outcome_to_result(outcome))
            return
        assert isinstance(outcome, NeedsHuman)
        ticket = outcome.ticket
        current = self._open.get(ticket.decision_id)
        if current is None:
            current = self._open_window(ticket, agent or ticket.proposal.agent)
        if waiter is not None:
            current.waiters.append(waiter)
            waiter.connection.closed.connect(lambda: self._forget_waiter(waiter))
        current.window.present()

    def _open_window(self, ticket: CaptureTicket, agent: str) -> _OpenCapture:
        window = CaptureWindow(capture_request(ticket, agent))
        capture = _OpenCapture(ticket, window, agent)
        self._open[ticket.decision_id] = capture
        window.choice_made.connect(lambda sel, custom: self._choose(capture, sel, custom))
        window.rationale_submitted.connect(
            lambda reason, rejections: self._submit(capture, reason, rejections)
        )
        window.cancelled.connect(lambda stage: self._cancel(capture, stage))
        self.pending_changed.emit()
        self.decision_asked.emit(ticket.proposal.project_alias, ticket.proposal.problem)
        return capture

    def _choose(self, capture: _OpenCapture, selected: str, custom: str) -> None:
        self._workers.submit_in_order(
            capture.ticket.decision_id,
            lambda: capture.ticket.choose(selected, custom),
            lambda _selection: self.pending_changed.emit(),
            lambda exc: self._show_error(capture, exc),
        )

    def _submit(self, capture: _OpenCapture, reason: str, rejections: dict[str, str]) -> None:
        self._workers.submit_in_order(
            capture.ticket.decision_id,
            lambda: capture.ticket.submit(reason, rejections),
            lambda outcome: self._finished(capture, outcome),
            lambda exc: self._show_error(capture, exc),
        )

    def _cancel(self, capture: _OpenCapture, stage: str) -> None:
        self._open.pop(capture.ticket.decision_id, None)
        self._workers.submit_in_order(
            capture.ticket.decision_id,
            lambda: capture.ticket.cancel(stage),
            lambda outcome: self._finished(capture, outcome),
            lambda exc: self._fail_waiters(capture, exc),
        )

    def _finished(self, capture: _OpenCapture, outcome: Recorded | Pending) -> None:
        self._open.pop(capture.ticket.decision_id, None)
        if isinstance(outcome, Recorded):
            capture.window.close_after_record()
        result = outcome_to_result(outcome)
        for waiter in capture.waiters:
            self._reply(waiter, result)
        capture.waiters.clear()
        self.pending_changed.emit()

    def _show_error(self, capture: _OpenCapture, exc: BaseException) -> None:
        if isinstance(exc, InvalidDecision):
            capture.window.show_error(str(exc))
            return
        log.error("capture of %s failed: %s", capture.ticket.decision_id, exc)
        capture.window.show_error(f"Could not save: {exc}. Your answers are kept; try again.")

    def _fail_waiters(self, capture: _OpenCapture, exc: BaseException) -> None:
        for waiter in capture.waiters:
            self._reply_error(waiter, exc)
        capture.waiters.clear()
        self.pending_changed.emit()

    def _forget_waiter(self, waiter: _Waiter) -> None:
        """An agent that went away leaves the window open: the decision stays answerable."""
        for capture in self._open.values():
            if waiter in capture.waiters:
                capture.waiters.remove(waiter)

    @staticmethod
    def _reply(waiter: _Waiter, result: dict[str, Any]) -> None:
        if not waiter.connection.is_closed:
            waiter.connection.reply(waiter.request_id, result)

    @staticmethod
    def _reply_error(waiter: _Waiter, exc: BaseException) -> None:
        if not waiter.connection.is_closed:
            waiter.connection.reply_error(waiter.request_id, error_from_exception(exc))


def capture_request(ticket: CaptureTicket, agent: str) -> CaptureRequest:
    proposal = ticket.proposal
    selection = ticket.selection
    return CaptureRequest(
        decision_id=ticket.decision_id,
        problem=proposal.problem,
        options=list(proposal.options),
        decision_kind=proposal.decision_kind,
        risk_level=proposal.risk_level,
        domains=list(proposal.domains),
        detector_confidence=proposal.detector_confidence,
        project_alias=proposal.project_alias,
        session_id=proposal.session_id,
        agent=agent,
        header=proposal.header,
        stage=ticket.stage,
        selected_option_id=selection.option_id if selection else "",
        custom_selection=selection.custom if selection else "",
    )
