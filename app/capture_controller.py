"""Turns agents' socket requests into capture windows and the human's answers into results.

Every disk step (pending save, record write) runs in the worker pool; windows and replies are
handled on the GUI thread. A decision has at most one window; every connection waiting for it
(an agent that resumed, a second `ask`) gets the same answer. `questions.ask` (Claude Code's
AskUserQuestion, via the hook) opens one window per call and touches no disk.

Why windows wait their turn: a window an agent opens while the person types in another of our
windows appears without the keyboard and flashes; once the window in use closes, the oldest
waiting one comes forward. What the person types is kept as a private draft (`core.capture.drafts`),
saved in order with the decision's other disk steps, so a draft can never outlive its record.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from app.gui.capture.request import CaptureRequest
from app.gui.capture.window import CaptureWindow
from app.gui.questions.window import QuestionsWindow
from app.gui.widgets.window_behaviour import answering_elsewhere, keyboard_busy_elsewhere
from app.ipc.server import Connection
from app.workers import WorkerPool
from core.capture.drafts import Draft
from core.capture.machine import (
    APP_CLOSED,
    CaptureService,
    CaptureTicket,
    NeedsHuman,
    Pending,
    Recorded,
    outcome_to_result,
)
from core.capture.pending import PendingStore, pending_items
from core.capture.proposal import ParsedProposal
from core.decider.service import UsualChoice
from core.errors import ErrorCode, InvalidDecision, ProtocolError, describe
from core.ipc.methods import (
    JOURNAL_CHANGED,
    AppShowParams,
    DecisionPendingParams,
    DecisionPresentParams,
    JournalChangedParams,
)
from core.ipc.protocol import (
    Request,
    RequestIdType,
    error_from_exception,
    parse_params,
    shutting_down_error,
)
from core.ipc.questions import (
    QUESTIONS_ASK,
    Answer,
    QuestionsAskParams,
    QuestionsAskResult,
)

log = logging.getLogger(__name__)

QUESTIONS_PER_CONNECTION = 3
"""Question windows one client may hold open; an agent asks one at a time."""
QUESTION_WINDOWS_MAX = 24
"""Question windows open at once across all clients."""
DECISIONS_PER_CONNECTION = 3
"""`decision.present` requests one client may have in progress or waiting on a window; an
agent asks one at a time. A flood of them would build a window each on the GUI thread."""
DECISIONS_IN_PROGRESS_MAX = 24
"""`decision.present` requests in progress or waiting on a window across all clients."""
JOURNAL_CHANGED_COALESCE_MS = 250
"""`journal.changed` notices within this window of the first cause one catch-up."""

_Window = CaptureWindow | QuestionsWindow
UsualChoiceOf = Callable[[ParsedProposal], UsualChoice | None]


@dataclass(slots=True)
class _Waiter:
    connection: Connection
    request_id: RequestIdType
    on_closed: Callable[[], None] | None = None
    """What the connection's `closed` signal calls for this wait, disconnected once answered:
    a client that stays connected for hours must not keep every window it ever waited for."""


@dataclass(slots=True)
class _OpenCapture:
    """A decision's window and who waits for it. `closed`: the window is gone (deleted on the
    next event-loop turn); replies still reach the waiters, nothing reaches the window."""

    ticket: CaptureTicket
    window: CaptureWindow
    agent: str
    waiters: list[_Waiter] = field(default_factory=list)
    closed: bool = False
    person_opened: bool = False
    """The person opened or raised it themselves (the tray, the journal): it is theirs, and
    stays when the agents waiting for it go away."""


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
        decision_asked(str, str): (project alias, problem) an agent asked a new question and
            its window is on screen; never for a decision the person opened themselves.
        journal_requested(): a client asked to show the journal window.
        journal_changed(): another process changed records (`journal.changed`).
        answered_for_person(str, str): (decision id, chosen label) the profile answered an
            agent's question of an automatic kind without a window.
    """

    answered_for_person = Signal(str, str)
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
        *,
        usual_choice: UsualChoiceOf | None = None,
    ) -> None:
        """`usual_choice` gives the window's "Your usual choice" line (read in a worker)."""
        super().__init__(parent)
        self._usual_choice = usual_choice
        self._capture = capture
        self._pending = pending
        self._workers = workers
        self._open: dict[str, _OpenCapture] = {}
        self._asked: list[_OpenQuestions] = []
        self._beginning: list[_Waiter] = []
        """`decision.present` requests whose proposal a worker is reading."""
        self._waiting_turn: list[_Window] = []
        self._quitting = False
        self._changed_later = QTimer(self)
        self._changed_later.setSingleShot(True)
        self._changed_later.setInterval(JOURNAL_CHANGED_COALESCE_MS)
        self._changed_later.timeout.connect(self.journal_changed)

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
        if self._quitting:
            connection.reply_error(request.id, shutting_down_error())
            return
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
        self._check_decision_room(connection)
        raw: Mapping[str, Any] = (
            params.proposal if params.proposal is not None else {"decision_id": params.decision_id}
        )

        def begin() -> Begun:
            return with_draft(
                self._capture.begin(
                    dict(raw),
                    workspace=params.workspace,
                    session_id=params.session_id,
                    agent=params.agent,
                ),
                self._usual_choice,
            )

        waiter = _Waiter(connection, request.id)
        self._beginning.append(waiter)

        def begun_now(begun: Begun) -> None:
            self._beginning.remove(waiter)
            self._on_begun(waiter, begun, params.agent)

        def failed(exc: BaseException) -> None:
            self._beginning.remove(waiter)
            self._reply_error(waiter, exc)

        self._workers.submit(begin, begun_now, failed)

    def _check_decision_room(self, connection: Connection) -> None:
        """Refuses a `decision.present` beyond the caps (BUSY naming the limit): each waiting
        one holds a window, and each window is built on the GUI thread."""
        waiting = [
            *self._beginning,
            *(waiter for capture in self._open.values() for waiter in capture.waiters),
        ]
        mine = sum(1 for waiter in waiting if waiter.connection is connection)
        _check_room(
            "decision requests are already waiting",
            mine,
            DECISIONS_PER_CONNECTION,
            len(waiting),
            DECISIONS_IN_PROGRESS_MAX,
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
            self.open_pending(
                params.decision_id,
                shown=lambda: connection.reply(request.id, {"shown": True}),
                failed=lambda exc: self._reply_error(_Waiter(connection, request.id), exc),
            )
            return
        self.journal_requested.emit()
        connection.reply(request.id, {"shown": True})

    def _journal_changed(self, connection: Connection, request: Request) -> None:
        """Answered at once; the catch-up follows once per window, however many senders."""
        parse_params(JournalChangedParams, request)
        if not self._changed_later.isActive():
            self._changed_later.start()
        connection.reply(request.id, {"accepted": True})

    def _ask_questions(self, connection: Connection, request: Request) -> None:
        """One window per call, answered or dismissed by the person; nothing touches disk
        (the hook journals the answers itself), so no worker is needed."""
        params = parse_params(QuestionsAskParams, request)
        self._check_question_room(connection)
        asked = _OpenQuestions(QuestionsWindow(params), _Waiter(connection, request.id))
        self._asked.append(asked)
        asked.window.answered.connect(lambda answers: self._questions_answered(asked, answers))
        asked.window.dismissed.connect(lambda: self._questions_done(asked, {"status": "dismissed"}))
        asked.on_closed = lambda: self._questions_withdrawn(asked)
        connection.closed.connect(asked.on_closed)
        if asked in self._asked:
            connection.mark_waiting(request.id)
            self._bring_up(asked.window, user_asked=False)
            workspace = PurePath(params.workspace).name if params.workspace else ""
            self.decision_asked.emit(workspace, params.questions[0].question)

    def _check_question_room(self, connection: Connection) -> None:
        """Refuses a window beyond the caps (BUSY naming the limit); nothing opens then."""
        mine = sum(1 for asked in self._asked if asked.waiter.connection is connection)
        total = len(self._asked)
        _check_room(
            "question windows are already open",
            mine,
            QUESTIONS_PER_CONNECTION,
            total,
            QUESTION_WINDOWS_MAX,
        )

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
        self._next_turn_soon()
        return True

    def release_on_quit(self) -> None:
        """The app quits: every agent waiting for a decision gets it back now, recorded or
        pending at the stage the person reached, with the call that resumes it, as a client
        reads it from the journal after a crash. Nothing is asked any more.

        Call once the workers are idle, so each ticket holds what reached the disk.
        """
        self._quitting = True
        for capture in list(self._open.values()):
            ticket = capture.ticket
            result = outcome_to_result(ticket.recorded or ticket.defer(APP_CLOSED))
            for waiter in capture.waiters:
                self._reply(waiter, result)
            self._drop_waiters(capture)

    # --- windows -------------------------------------------------------------------------------

    def open_pending(
        self,
        decision_id: str,
        *,
        shown: Callable[[], None] | None = None,
        failed: Callable[[BaseException], None] | None = None,
    ) -> None:
        """Raises the decision's window, resuming it from the journal if none is open.

        `shown` is called once the window is up, `failed` with why not (no such pending
        decision): a caller over the socket learns which, instead of a "shown" for nothing.
        """
        current = self._open.get(decision_id)
        if current is not None:
            current.person_opened = True
            self._bring_up(current.window, user_asked=True)
            if shown is not None:
                shown()
            return

        def resume() -> Begun:
            state = self._pending.load(decision_id)
            return with_draft(
                self._capture.begin(
                    {"decision_id": decision_id},
                    workspace=state.proposal.workspace,
                    session_id=state.session_id,
                    agent=state.proposal.agent,
                ),
                self._usual_choice,
            )

        def begun(begun: Begun) -> None:
            self._on_begun(None, begun, "")
            if shown is not None:
                shown()

        def not_begun(exc: BaseException) -> None:
            log.warning("cannot open pending decision %s: %s", decision_id, exc)
            if failed is not None:
                failed(exc)

        self._workers.submit(resume, begun, not_begun)

    def open_windows(self) -> list[CaptureWindow]:
        return [capture.window for capture in self._open.values()]

    def _on_begun(self, waiter: _Waiter | None, begun: Begun, agent: str) -> None:
        """An agent's request (`waiter`) or the person's own (`None`) is ready to show."""
        outcome = begun.outcome
        if isinstance(outcome, Recorded):
            if waiter is not None:
                self._reply(waiter, outcome_to_result(outcome))
            if outcome.decided_by == "profile" and outcome.rule_id:
                self.answered_for_person.emit(outcome.record.id, outcome.record.selected_label())
            return
        assert isinstance(outcome, NeedsHuman)
        ticket = outcome.ticket
        if self._quitting:
            if waiter is not None:
                self._reply(waiter, outcome_to_result(ticket.defer(APP_CLOSED)))
            return
        current = self._open.get(ticket.decision_id)
        opened = current is None
        if current is None:
            current = self._open_window(ticket, agent or ticket.proposal.agent, begun)
        if waiter is None:
            current.person_opened = True
        else:
            current.waiters.append(waiter)
            waiter.connection.mark_waiting(waiter.request_id)
            capture = current
            waiter.on_closed = lambda: self._forget_waiter(capture, waiter)
            waiter.connection.closed.connect(waiter.on_closed)
        self._bring_up(current.window, user_asked=waiter is None)
        if opened and waiter is not None:
            proposal = ticket.proposal
            self.decision_asked.emit(proposal.project_alias, proposal.problem)

    def _bring_up(self, window: _Window, *, user_asked: bool) -> None:
        """To the front with the keyboard, unless an agent asked while the person uses another
        of our windows: while they answer another decision it waits its turn behind, flashing;
        over the journal window it shows on top, flashing, and the keys stay there."""
        if user_asked or not keyboard_busy_elsewhere(window):
            if window in self._waiting_turn:
                self._waiting_turn.remove(window)
            window.present()
            return
        if not answering_elsewhere(window):
            window.present(activate=False, behind=False)
            return
        if window not in self._waiting_turn:
            self._waiting_turn.append(window)
        window.present(activate=False)

    def waiting_turn(self) -> list[_Window]:
        """Windows shown without the keyboard, oldest first."""
        return list(self._waiting_turn)

    def _next_turn_soon(self) -> None:
        """After the event loop settles focus: the oldest waiting window comes forward."""
        QTimer.singleShot(0, self, self._next_turn)

    def _next_turn(self) -> None:
        self._waiting_turn = [w for w in self._waiting_turn if self._still_open(w)]
        if not self._waiting_turn or answering_elsewhere(self._waiting_turn[0]):
            return
        self._waiting_turn.pop(0).present()

    def _still_open(self, window: _Window) -> bool:
        windows: list[_Window] = [*self.open_windows(), *self.question_windows()]
        return any(window is open_window for open_window in windows) and window.isVisible()

    def _open_window(self, ticket: CaptureTicket, agent: str, begun: Begun) -> _OpenCapture:
        window = CaptureWindow(capture_request(ticket, agent, begun.draft, begun.usual))
        capture = _OpenCapture(ticket, window, agent)
        self._open[ticket.decision_id] = capture
        window.choice_made.connect(lambda sel, custom: self._choose(capture, sel, custom))
        window.rationale_submitted.connect(
            lambda reason, rejections: self._submit(capture, reason, rejections)
        )
        window.cancelled.connect(lambda stage: self._cancel(capture, stage))
        window.draft_changed.connect(lambda typed: self._keep_draft(capture, typed))
        self.pending_changed.emit()
        return capture

    def _keep_draft(self, capture: _OpenCapture, draft: Draft) -> None:
        """Saved in order with choose/submit/cancel, so a late draft never follows a record."""
        self._workers.submit_in_order(
            capture.ticket.decision_id,
            lambda: capture.ticket.save_draft(draft),
            lambda _stored: None,
            lambda exc: self._draft_failed(capture, exc),
        )

    def _draft_failed(self, capture: _OpenCapture, exc: BaseException) -> None:
        log.warning("draft of %s not kept: %s", capture.ticket.decision_id, exc)
        if not capture.closed and capture.window.isVisible():
            capture.window.show_error(f"Your typing is not kept as a draft yet: {exc}")

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
        self._release(capture)
        self._next_turn_soon()
        self._workers.submit_in_order(
            capture.ticket.decision_id,
            lambda: capture.ticket.cancel(stage),
            lambda outcome: self._finished(capture, outcome),
            lambda exc: self._fail_waiters(capture, exc),
        )

    def _finished(self, capture: _OpenCapture, outcome: Recorded | Pending) -> None:
        self._open.pop(capture.ticket.decision_id, None)
        if isinstance(outcome, Recorded) and not capture.closed:
            capture.window.close_after_record()
            self._release(capture)
            self._next_turn_soon()
        result = outcome_to_result(outcome)
        for waiter in capture.waiters:
            self._reply(waiter, result)
        self._drop_waiters(capture)
        self.pending_changed.emit()

    def _release(self, capture: _OpenCapture) -> None:
        """The window closed for good: it is deleted on the next event-loop turn (this may run
        inside its own signal). Deleting it is what frees it: its signals' connections hold
        `capture`, which holds the window, so neither would ever be collected otherwise."""
        if capture.closed:
            return
        capture.closed = True
        if capture.window in self._waiting_turn:
            self._waiting_turn.remove(capture.window)
        capture.window.deleteLater()

    def _show_error(self, capture: _OpenCapture, exc: BaseException) -> None:
        if capture.closed:  # closed while the write ran: the waiters get the outcome
            log.error("capture of %s failed: %s", capture.ticket.decision_id, exc)
            return
        if isinstance(exc, InvalidDecision):
            capture.window.show_error(str(exc))
            return
        log.error("capture of %s failed: %s", capture.ticket.decision_id, exc)
        capture.window.show_error(
            f"Could not save: {describe(exc)}. Your answers are kept; try again."
        )

    def _fail_waiters(self, capture: _OpenCapture, exc: BaseException) -> None:
        for waiter in capture.waiters:
            self._reply_error(waiter, exc)
        self._drop_waiters(capture)
        self.pending_changed.emit()

    @staticmethod
    def _drop_waiters(capture: _OpenCapture) -> None:
        """The waiters were answered: their connections no longer call back for this window."""
        for waiter in capture.waiters:
            if waiter.on_closed is not None:
                with contextlib.suppress(RuntimeError, TypeError):  # the connection is gone
                    waiter.connection.closed.disconnect(waiter.on_closed)
                waiter.on_closed = None
        capture.waiters.clear()

    def _forget_waiter(self, capture: _OpenCapture, waiter: _Waiter) -> None:
        """An agent that went away withdraws its question (docs/protocol.md): once nobody
        waits for a window an agent opened, it closes and the decision stays pending at the
        stage reached, resumable from the tray. A window the person has started answering
        stays instead, saying so: what they typed is kept as a draft at once, and finishing
        still records the decision. A window the person opened themselves always stays."""
        if waiter not in capture.waiters:
            return
        capture.waiters.remove(waiter)
        waiter.on_closed = None
        if capture.waiters or capture.closed or capture.person_opened:
            return
        window = capture.window
        if window.touched:
            who = capture.agent or "The agent"
            window.show_notice(
                f"{who} stopped waiting for this answer. What you typed is kept as a draft; "
                "record the decision when you are done, or close the window to finish later."
            )
        else:
            window.close()  # as Escape does: pending at this stage, nothing typed to keep

    @staticmethod
    def _reply(waiter: _Waiter, result: dict[str, Any]) -> None:
        if not waiter.connection.is_closed:
            waiter.connection.reply(waiter.request_id, result)

    @staticmethod
    def _reply_error(waiter: _Waiter, exc: BaseException) -> None:
        if not waiter.connection.is_closed:
            waiter.connection.reply_error(waiter.request_id, error_from_exception(exc))


def _check_room(what: str, mine: int, per_connection: int, total: int, in_all: int) -> None:
    """BUSY naming the limit when this client, or all of them, already hold the most."""
    if mine >= per_connection:
        message = f"{mine} {what} for this client"
        raise ProtocolError(ErrorCode.BUSY, message, data={"limit": per_connection})
    if total >= in_all:
        raise ProtocolError(ErrorCode.BUSY, f"{total} {what}", data={"limit": in_all})


@dataclass(frozen=True, slots=True)
class Begun:
    """A capture's outcome with what its window shows besides the proposal."""

    outcome: object
    draft: Draft | None = None
    usual: UsualChoice | None = None


def with_draft(outcome: object, usual_of: UsualChoiceOf | None = None) -> Begun:
    """The outcome and, for a decision that needs the person, its kept draft and usual choice
    (both read from disk, so this runs in a worker)."""
    if not isinstance(outcome, NeedsHuman):
        return Begun(outcome)
    usual = None
    if usual_of is not None:
        try:
            usual = usual_of(outcome.ticket.proposal)
        except Exception:  # a hint only: the window opens without it
            log.exception("no usual choice for %s", outcome.ticket.decision_id)
    return Begun(outcome, outcome.ticket.draft(), usual)


def capture_request(
    ticket: CaptureTicket,
    agent: str,
    draft: Draft | None = None,
    usual: UsualChoice | None = None,
) -> CaptureRequest:
    proposal = ticket.proposal
    selection = ticket.selection
    return CaptureRequest(
        decision_id=ticket.decision_id,
        problem=proposal.problem,
        options=list(proposal.options),
        decision_kind=proposal.decision_kind,
        risk_level=proposal.risk_level,
        domains=list(proposal.domains),
        languages=list(proposal.languages),
        detector_confidence=proposal.detector_confidence,
        project_alias=proposal.project_alias,
        session_id=proposal.session_id,
        agent=agent,
        header=proposal.header,
        stage=ticket.stage,
        selected_option_id=selection.option_id if selection else "",
        custom_selection=selection.custom if selection else "",
        draft=draft,
        usual_choice=usual,
    )
