"""`ask`: a decision asked from a script or a terminal, in the app's window when it can be
shown, else in the terminal, else left pending; loaded only when `ask` runs (no Qt here)."""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from pathlib import Path
from typing import Any, TextIO

from app.cli.capture_cmds import PROPOSAL_FORMAT
from app.cli.exit_codes import (
    OK,
    PENDING,
    print_error,
    report_error,
)
from app.cli.terminal_ask import TerminalAsker
from app.launch import display_available, start_app
from core.capture.machine import (
    APP_CLOSED,
    CaptureOutcome,
    CaptureService,
    NeedsHuman,
    Pending,
    Recorded,
    outcome_to_result,
)
from core.capture.pending import PendingStore
from core.capture.proposal import is_resume_request, parse_proposal, parse_resume
from core.capture.workspace_pending import other_pending_here
from core.decider.service import decider_for
from core.errors import (
    AppNotRunning,
    ConnectionLost,
    ErrorCode,
    InvalidDecision,
    IpcTimeout,
    JournalError,
    PendingConflict,
    RemoteError,
    describe,
    exit_code_of,
)
from core.ipc.client import IpcClient, app_is_running
from core.ipc.protocol import error_from_exception, is_shutting_down
from core.ipc.runtime_paths import socket_path
from core.journal import Journal
from core.messages import runbook
from core.record.summary import english_summary, recorded_instruction

# A human may leave a question open for days; the call ends when they answer or cancel.
HUMAN_WAIT_SECONDS = 7 * 24 * 3600.0
NO_APP_MESSAGE = (
    "no display and no running app: the decision is saved as pending; answer it from the tray "
    'app or run `decision-journal ask` in a terminal with {"decision_id": "%s"} '
    "(" + runbook.see("app-not-running").replace("%", "%%") + ")"
)


OTHER_PENDING = (
    "implementation decision {pending} is still pending in this workspace ({problem!r}); "
    "answer it first (in the tray app, or `decision-journal ask` with "
    '{{"decision_id": "{pending}"}}), then propose again if still needed'
)
SESSION_HINT = (
    "; this ask runs as session {session!r} (--session; the default names the calling "
    "process, so every ask of one script shares it): give the asks for each workspace their "
    "own --session to ask there meanwhile"
)
APP_GONE_REASON = APP_CLOSED + '; resume with `decision-journal ask` and {"decision_id": "%s"}'


def _emit(result: dict[str, Any], journal: Journal) -> int:
    print(json.dumps(_for_agents(result, journal), ensure_ascii=False, indent=2))
    return OK if result.get("status") == "recorded" else PENDING


def _for_agents(result: dict[str, Any], journal: Journal) -> dict[str, Any]:
    """A recorded answer as the MCP tool gives it: `summary` and `message` in English, read
    back from the journal, and the record's Korean sentence as `summary_ko` (the MCP result's
    name) and `summary_sentence` (the KernForge result field). An answer the journal cannot
    give back is printed as it came."""
    if result.get("status") != "recorded":
        return result
    try:
        record = journal.store.get(str(result.get("decision_id", "")))
    except (JournalError, OSError):
        return result
    warning = str(result.get("profile_warning", ""))
    summary = english_summary(record)
    return {
        **result,
        "summary": summary,
        "summary_ko": record.summary_sentence,
        "message": recorded_instruction(record, warning),
    }


def _read_request(source: str) -> Any:
    """The proposal or resume request, from a file or (`-`) standard input.

    Raises:
        InvalidDecision: the file is missing or unreadable, or its text is not JSON.
    """
    try:
        text = sys.stdin.read() if source == "-" else Path(source).read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise InvalidDecision(f"proposal file {source} does not exist", field="file") from exc
    except UnicodeDecodeError as exc:
        raise InvalidDecision(f"proposal file {source} is not UTF-8 text", field="file") from exc
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        message = f"proposal file {source} cannot be read: {reason}"
        raise InvalidDecision(message, field="file") from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidDecision(f"input is not JSON: {exc.msg} at line {exc.lineno}") from exc


def _present_params(request: Any, args: argparse.Namespace) -> dict[str, Any]:
    params: dict[str, Any] = {
        "workspace": os.path.abspath(args.workspace),
        "session_id": args.session,
        "agent": args.agent,
    }
    if isinstance(request, dict) and set(request) == {"decision_id"}:
        params["decision_id"] = request["decision_id"]
    else:
        params["proposal"] = request
    return params


def _ask_app(
    journal: Journal, params: dict[str, Any], request: Any, args: argparse.Namespace
) -> int:
    with IpcClient(socket_path(journal.root), timeout=10.0) as client:
        try:
            result = client.call("decision.present", params, timeout=HUMAN_WAIT_SECONDS)
        except RemoteError as exc:
            if not is_shutting_down(exc):
                return _remote_failure(exc, args)
            return _after_app_gone(journal, request, args)
        except (ConnectionLost, IpcTimeout):
            return _after_app_gone(journal, request, args)
    return _emit(result, journal)


def _after_app_gone(journal: Journal, request: Any, args: argparse.Namespace) -> int:
    """The app quit or died mid-question: the journal says whether the human finished and
    where they stopped; a proposal the app never saved is saved pending (as MCP does)."""
    outcome = _begin(journal, request, args)
    if isinstance(outcome, NeedsHuman):
        ticket = outcome.ticket
        return _emit(outcome_to_result(ticket.defer(APP_GONE_REASON % ticket.decision_id)), journal)
    return _emit(outcome_to_result(outcome), journal)


def _begin(journal: Journal, request: Any, args: argparse.Namespace) -> CaptureOutcome:
    """The capture service's `begin` for this `ask`: recorded, or a ticket for the human."""
    service = CaptureService(
        journal.store, PendingStore(journal.root), decider=decider_for(journal)
    )
    return service.begin(
        request,
        workspace=os.path.abspath(args.workspace),
        session_id=args.session,
        agent=args.agent,
    )


def _remote_failure(exc: RemoteError, args: argparse.Namespace) -> int:
    message = exc.message
    if exc.code == ErrorCode.PENDING_CONFLICT:  # the app checks the per-session rule
        message += SESSION_HINT.format(session=args.session)
    payload = {"status": "error", "code": int(exc.code), "message": message, **exc.data}
    print(json.dumps(payload, ensure_ascii=False, indent=2))
    described = describe(exc)
    print_error(dataclasses.replace(described, message=message))
    return exit_code_of(exc)


def _terminal() -> tuple[TextIO, TextIO] | None:
    """The controlling terminal, even when the proposal arrived on a pipe."""
    try:
        tty_in = open("/dev/tty", encoding="utf-8")  # noqa: SIM115 - lives for the prompt
        tty_out = open("/dev/tty", "w", encoding="utf-8")  # noqa: SIM115
    except OSError:
        return None
    return tty_in, tty_out


def _ask_locally(journal: Journal, request: Any, args: argparse.Namespace) -> int:
    outcome = _begin(journal, request, args)
    if isinstance(outcome, Recorded):
        return _emit(outcome_to_result(outcome), journal)
    assert isinstance(outcome, NeedsHuman)
    terminal = None if args.no_terminal else _terminal()
    if terminal is None:
        deferred: Pending = outcome.ticket.defer(NO_APP_MESSAGE % outcome.ticket.decision_id)
        return _emit(outcome_to_result(deferred), journal)
    reader, writer = terminal
    with reader, writer:
        answer = TerminalAsker(reader, writer).ask(outcome.ticket)
        return _emit(outcome_to_result(answer), journal)


def _preflight(journal: Journal, request: Any, args: argparse.Namespace) -> str:
    """Validates locally and applies the one-pending-per-workspace rule; returns the id.

    Raises:
        InvalidDecision: the proposal or resume request breaks a rule.
        PendingConflict: another decision is pending in this workspace.
    """
    workspace = os.path.abspath(args.workspace)
    if is_resume_request(request):
        decision_id = parse_resume(request)
    else:
        parsed = parse_proposal(
            request, workspace=workspace, session_id=args.session, agent=args.agent
        )
        decision_id = parsed.decision_id
    blocker = other_pending_here(journal.store, journal.pending, decision_id, workspace)
    if blocker is not None:
        message = OTHER_PENDING.format(pending=blocker.decision_id, problem=blocker.problem[:120])
        raise PendingConflict(message, pending_id=blocker.decision_id)
    return decision_id


def _message_of(violation: Any) -> str:
    return str(violation.message if hasattr(violation, "message") else violation)


def _refused(exc: InvalidDecision | PendingConflict) -> int:
    """What `ask` prints when it asks nobody: the shapes the app's refusals have, on stdout,
    and one line on stderr (an invalid proposal's also names the proposal format)."""
    payload: dict[str, Any]
    if isinstance(exc, InvalidDecision):
        found = getattr(exc, "violations", None) or ([exc] if exc.field else [])
        violations = [
            {"field": v.field, "message": _message_of(v), "limit": v.limit} for v in found
        ]
        payload = {"status": "invalid", "message": str(exc), "violations": violations}
        payload["format"] = PROPOSAL_FORMAT
    else:
        error = error_from_exception(exc)
        payload = {"status": "error", "code": int(error.code), "message": error.message}
        payload.update(error.data)
    print(json.dumps(payload, ensure_ascii=False, indent=2))
    code = report_error(exc)
    if isinstance(exc, InvalidDecision):
        print(f"decision-journal: the proposal format is in {PROPOSAL_FORMAT}", file=sys.stderr)
    return code


def ask(journal: Journal, args: argparse.Namespace) -> int:
    try:
        request = _read_request(args.file)
        _preflight(journal, request, args)
    except (InvalidDecision, PendingConflict) as exc:
        return _refused(exc)
    params = _present_params(request, args)
    running = app_is_running(socket_path(journal.root))
    if not running and display_available() and not args.no_app:
        running = start_app(journal)
    if running:
        try:
            return _ask_app(journal, params, request, args)
        except AppNotRunning:
            pass
    try:
        return _ask_locally(journal, request, args)
    except PendingConflict as exc:  # the per-session rule (the workspace's is checked above)
        hint = SESSION_HINT.format(session=args.session)
        return _refused(PendingConflict(f"{exc}{hint}", pending_id=exc.pending_id))
    except InvalidDecision as exc:
        return _refused(exc)
