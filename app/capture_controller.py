"""Turns agents' socket requests into capture windows and the human's answers into results.

Every disk step (pending save, record write) runs in the worker pool; windows and replies are
handled on the GUI thread. A decision has at most one window; every connection waiting for it
(an agent that resumed, a second `ask`) gets the same answer.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QObject, Signal

from app.gui.capture_window import CaptureRequest, CaptureWindow
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
from core.pending import PendingStore
from core.protocol import (
    AppShowParams,
    DecisionPendingParams,
    DecisionPresentParams,
    ErrorCode,
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


class CaptureController(QObject):
    """The socket server's request handler for decisions.

    Signals:
        pending_changed(): the set of waiting decisions may have changed (tray refresh).
        decision_asked(str, str): (project alias, problem) an agent asked a new question.
        journal_requested(): a client asked to show the journal window.
    """

    pending_changed = Signal()
    decision_asked = Signal(str, str)
    journal_requested = Signal()

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

    # --- socket requests -----------------------------------------------------------------------

    def handle(self, connection: Connection, request: Request) -> None:
        handlers: dict[str, Callable[[Connection, Request], None]] = {
            "decision.present": self._present,
            "decision.pending": self._list_pending,
            "app.show": self._show,
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


def pending_items(
    pending: PendingStore, workspace: str | None = None, session_id: str | None = None
) -> list[dict[str, Any]]:
    listing = pending.list(workspace=workspace, session_id=session_id)
    return [
        {
            "decision_id": item.decision_id,
            "stage": item.stage,
            "problem": item.proposal.problem,
            "project_alias": item.proposal.project_alias,
            "session_id": item.session_id,
            "created_at": item.created_at.format() if item.created_at else "",
        }
        for item in listing.items
    ]
