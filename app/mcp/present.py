"""`present_implementation_decision`: validate, ask the human in the tray app, or leave pending.

Why the flow looks like this:
- The proposal is validated here first, with `core.capture.proposal`, so an agent learns every
broken
  rule in one error even when no app runs.
- The tray app owns the window; this module only talks to it over `core.ipc.client`. The
  blocking socket call runs on a worker thread while the event loop sends MCP progress every
  few seconds, which keeps client idle timers (Claude Code's 30 min for stdio) from firing.
- If the client cancels (a timeout, the user pressed Esc), the socket is closed. The app then
  forgets this waiter but keeps the window open and the decision pending; a later call with
  only `{"decision_id": ...}` returns the recorded answer at once or waits again.
- Without a running app and without a display, the decision is saved as pending through the
  core capture service, and the result tells the agent exactly how to resume.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import anyio
import anyio.to_thread
from mcp.server.mcpserver.exceptions import ToolError

from app.launch import display_available, start_app
from app.mcp.results import (
    NO_APP_REASON,
    pending_outcome,
    record_outcome,
    remote_outcome,
    tool_error_for,
)
from app.mcp.schemas import DecisionOutcome
from core.capture.machine import APP_CLOSED, CaptureService, Recorded
from core.capture.proposal import is_resume_request, parse_proposal, parse_resume
from core.capture.workspace_pending import other_pending_here
from core.decider.service import decider_for
from core.errors import (
    AppNotRunning,
    ConnectionLost,
    IpcError,
    IpcTimeout,
    JournalError,
    RemoteError,
)
from core.ipc.client import IpcClient, app_is_running
from core.ipc.methods import DECISION_PRESENT
from core.ipc.protocol import is_shutting_down
from core.ipc.runtime_paths import socket_path
from core.journal import Journal

log = logging.getLogger(__name__)

PROGRESS_ENV = "DECISION_JOURNAL_PROGRESS_SECONDS"
DEFAULT_PROGRESS_SECONDS = 10.0
"""Below the 15 s the brief promises, and far below every client idle timeout we know."""
HUMAN_WAIT_SECONDS = 7 * 24 * 3600.0
"""The socket call's own limit: a human may answer days later; the client decides sooner."""
CONNECT_SECONDS = 10.0

Reporter = Callable[[float, str], Awaitable[None]]


def progress_interval() -> float:
    """Seconds between progress notifications; tests shorten it through the environment."""
    try:
        value = float(os.environ.get(PROGRESS_ENV, "") or DEFAULT_PROGRESS_SECONDS)
    except ValueError:
        return DEFAULT_PROGRESS_SECONDS
    return min(max(value, 0.05), DEFAULT_PROGRESS_SECONDS)


@dataclass(frozen=True, slots=True)
class Caller:
    """Who asks: the project root, the agent session, and a display name for the window."""

    workspace: str
    session_id: str
    agent: str = ""


class Presenter:
    """Runs one `present_implementation_decision` call against one journal."""

    def __init__(self, journal: Journal) -> None:
        self.journal = journal

    async def present(
        self, raw: dict[str, Any], caller: Caller, report: Reporter
    ) -> DecisionOutcome:
        """Validates, then asks the app (starting it when a display exists) or defers.

        Raises:
            ToolError: the proposal is invalid, another decision is pending here, the resumed
                id is unknown, or the journal is damaged; the message says what to do.
        """
        decision_id = await anyio.to_thread.run_sync(self._preflight, raw, caller)
        running = await anyio.to_thread.run_sync(self._app_available)
        if running:
            try:
                return await self._ask_app(raw, caller, decision_id, report)
            except AppNotRunning:
                log.info("the app went away before the call; saving the decision locally")
        return await anyio.to_thread.run_sync(self._defer_locally, raw, caller)

    # --- before asking --------------------------------------------------------------------

    def _preflight(self, raw: dict[str, Any], caller: Caller) -> str:
        """Local validation and the workspace check; returns the decision id."""
        try:
            if is_resume_request(raw):
                decision_id = parse_resume(raw)
            else:
                parsed = parse_proposal(
                    raw,
                    workspace=caller.workspace,
                    session_id=caller.session_id,
                    agent=caller.agent,
                )
                decision_id = parsed.decision_id
            self._refuse_other_pending_here(decision_id, caller)
        except (JournalError, OSError) as exc:
            raise tool_error_for(exc) from exc
        return decision_id

    def _refuse_other_pending_here(self, decision_id: str, caller: Caller) -> None:
        """One pending fork per workspace, across sessions (`core.capture.workspace_pending`)."""
        journal = self.journal
        blocker = other_pending_here(journal.store, journal.pending, decision_id, caller.workspace)
        if blocker is not None:
            raise ToolError(
                f"implementation decision {blocker.decision_id} is still pending in this "
                f"workspace ({blocker.problem[:120]!r}); resume it first by calling "
                f'present_implementation_decision with only {{"decision_id": '
                f'"{blocker.decision_id}"}}, then propose again if still needed.'
            )

    def _app_available(self) -> bool:
        path = socket_path(self.journal.root)
        if app_is_running(path):
            return True
        if not display_available():
            return False
        log.info("starting the Decision Journal app for %s", self.journal.root)
        return start_app(self.journal)

    # --- asking the app -------------------------------------------------------------------

    async def _ask_app(
        self, raw: dict[str, Any], caller: Caller, decision_id: str, report: Reporter
    ) -> DecisionOutcome:
        params: dict[str, Any] = {
            "workspace": caller.workspace,
            "session_id": caller.session_id,
            "agent": caller.agent,
        }
        if is_resume_request(raw):
            params["decision_id"] = decision_id
        else:
            params["proposal"] = raw
        client = _OneShotClient(socket_path(self.journal.root), CONNECT_SECONDS, client_name="mcp")
        box: dict[str, Any] = {}

        def call() -> dict[str, Any]:
            return client.call(DECISION_PRESENT, params, timeout=HUMAN_WAIT_SECONDS)

        async def wait_for_answer(group: anyio.abc.TaskGroup) -> None:
            try:
                box["result"] = await anyio.to_thread.run_sync(call, abandon_on_cancel=True)
            except Exception as exc:  # noqa: BLE001  # handed to the caller below, outside the task group
                box["error"] = exc
            finally:
                group.cancel_scope.cancel()

        try:
            await anyio.to_thread.run_sync(client.connect)
            async with anyio.create_task_group() as group:
                group.start_soon(wait_for_answer, group)
                await _report_until_cancelled(report, decision_id)
        except anyio.get_cancelled_exc_class():
            log.info("client cancelled while decision %s was open; it stays pending", decision_id)
            raise
        except AppNotRunning:
            raise
        except (JournalError, OSError) as exc:  # connecting: an unsafe runtime dir, a refusal
            raise tool_error_for(exc) from exc
        finally:
            client.close()  # on cancellation the app keeps the window and the decision pending
        return await self._app_outcome(box, raw, caller)

    async def _app_outcome(
        self, box: dict[str, Any], raw: dict[str, Any], caller: Caller
    ) -> DecisionOutcome:
        error = box.get("error")
        if error is None:
            return remote_outcome(box["result"], self.journal)
        if isinstance(error, AppNotRunning):
            raise error
        if isinstance(error, RemoteError) and not is_shutting_down(error):
            raise tool_error_for(error) from error
        if isinstance(error, RemoteError | ConnectionLost | IpcTimeout):
            return await anyio.to_thread.run_sync(self._after_app_gone, raw, caller)
        if isinstance(error, IpcError | JournalError | OSError):
            raise tool_error_for(error) from error
        raise error

    def _after_app_gone(self, raw: dict[str, Any], caller: Caller) -> DecisionOutcome:
        """The app quit or died mid-question: the journal says whether the human finished,
        and at which stage they stopped; a proposal the app never saved is saved pending."""
        return self._defer_locally(raw, caller, APP_CLOSED)

    # --- no app -----------------------------------------------------------------------------

    def _defer_locally(
        self, raw: dict[str, Any], caller: Caller, reason: str = NO_APP_REASON
    ) -> DecisionOutcome:
        service = CaptureService(
            self.journal.store, self.journal.pending, decider=decider_for(self.journal)
        )
        try:
            outcome = service.begin(
                raw,
                workspace=caller.workspace,
                session_id=caller.session_id,
                agent=caller.agent,
            )
        except (JournalError, OSError) as exc:
            raise tool_error_for(exc) from exc
        if isinstance(outcome, Recorded):
            return record_outcome(outcome.record, outcome.profile_warning, outcome.rule_id)
        return pending_outcome(outcome.ticket.defer(reason))


class _OneShotClient(IpcClient):
    """Connects once and never again: a cancellation closes the socket from the event loop
    while the worker thread may not have entered `call` yet, and that thread must then fail
    instead of opening a fresh connection that would wait for days."""

    _opened = False

    def connect(self) -> None:
        if self._opened and not self.connected:
            raise ConnectionLost("the call was cancelled before it was sent")
        super().connect()
        self._opened = True


async def _report_until_cancelled(report: Reporter, decision_id: str) -> None:
    """Progress while the human thinks: strictly increasing elapsed seconds, never raising."""
    interval = progress_interval()
    started = time.monotonic()
    while True:
        elapsed = time.monotonic() - started
        message = (
            f"Waiting for the human to answer implementation decision {decision_id} "
            f"in the Decision Journal window ({int(elapsed)} s)"
        )
        try:
            await report(round(elapsed, 3), message)
        except Exception as exc:  # noqa: BLE001  # progress is a courtesy; never let it end the wait
            log.warning("could not send progress: %s", exc)
        await anyio.sleep(interval)
