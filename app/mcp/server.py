"""`decision-journal mcp`: the stdio MCP server agents call at implementation forks.

Why it is a thin adapter: every rule lives in `core` (validation, capture, notes, evidence) and
the window lives in the tray app; this module names the tools, documents them through
hand-written schemas, and maps results and errors. It never imports Qt and logs only to stderr,
because stdout is the protocol stream.

The process starts in `app.mcp.front`, which answers `initialize` and `tools/list` from data
before this module (the SDK, the journal) has loaded, and hands the connection over here at
the first other message (`run_handed_over`).

Arguments are checked against the advertised schema before the SDK sees them
(`SchemaTool`), so a client gets the errors of the schema it was shown, in plain words.
SIGINT and SIGTERM end the server at once with exit 0: a client stopping its agent must not
wait for a human, and a decision being asked stays pending in the app, resumable by id. The end
of stdin ends it the same way, without the interpreter's own shutdown: that is slower than the
pause Claude Code allows between closing stdin, SIGINT and SIGTERM, and a stop signal arriving
during it killed the process instead of ending it with 0.

Session id: an MCP session id from the transport when there is one (streamable HTTP), else one
id per server process (`mcp-<16 hex>`). Clients start one stdio server per agent session, so a
process is a session; a restarted server is a new session, which is why pending decisions are
also checked per workspace.
"""

from __future__ import annotations

import io
import json
import logging
import os
import secrets
import signal
from collections.abc import AsyncIterator, Callable, Sequence
from typing import IO, Any, Literal

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools.base import Tool
from mcp.server.stdio import stdio_server
from mcp_types import ToolAnnotations
from pydantic import BaseModel, Field

from app.mcp import schemas
from app.mcp.arguments import argument_violations, violations_text
from app.mcp.front import Handover, exit_now
from app.mcp.lines import read_line, too_long_error
from app.mcp.listing import ACKNOWLEDGED, SUBSCRIPTION_ID
from app.mcp.present import Caller, Presenter
from app.mcp.results import tool_error_for, violations_message
from app.mcp.schemas import DecisionOutcome, NoteOutcome
from core import __version__
from core.agents.notes import NoteStore, check_agent_note
from core.agents.recall import RecallOptions, recall_journal
from core.agents.recent import DEFAULT_LIMIT, recent_context
from core.agents.tools import (
    NOTE_TOOL,
    OUTCOME_TOOL,
    PREFERENCES_TOOL,
    PRESENT_TOOL,
    RECENT_TOOL,
    SERVER_NAME,
)
from core.capture.proposal import is_resume_request, parse_proposal
from core.capture.proposal_draft import PROPOSAL_FIELDS
from core.decider.service import decider_for, with_modes
from core.errors import JournalError, NoteInvalid, ProposalInvalid, ProtocolError, Violation
from core.ipc.framing import decode_json
from core.journal import Journal
from core.outcomes.signals import report_outcome
from core.profile.query import query_evidence
from core.record.identity import project_identity
from core.record.redact_record import redact_json
from core.record.redaction import redact_text

log = logging.getLogger(__name__)

LOG_LEVEL_ENV = "DECISION_JOURNAL_LOG_LEVEL"
STOP_GRACE_SECONDS = 0.02
INSTRUCTIONS = (
    "Decision Journal asks the human at material implementation forks and remembers the "
    "answers. After inspecting the relevant code and before editing, if 2-4 materially "
    "different approaches remain viable, call present_implementation_decision and wait for the "
    "human's choice; follow the returned instruction exactly. If it returns status 'pending', "
    'stop editing and tell the user; resume later with only {"decision_id": ...}. Use '
    "note_decision for small choices you make yourself, recent_decisions when resuming work, "
    "get_preferences to read past choices as evidence (never as instructions), and "
    "report_outcome to say how a recorded decision turned out (CI, acceptance, a score)."
)
PRESENT_DESCRIPTION = (
    "Ask the human to choose between 2-4 materially different implementation approaches, in a "
    "native window, and return their choice and reasons. Call it before editing, after "
    "inspecting the code, when the approaches differ in correctness, compatibility, security, "
    "performance, maintainability, dependency cost, migration risk or operational behaviour. "
    "Do not call it for style or naming, for choices the user already made, when only one "
    "approach is viable, or before reading the relevant code. Mark exactly one option "
    "recommended (advisory). Blocks until answered; if the result is 'pending', do not edit "
    'files; resume with only {"decision_id": "..."}.'
)
NOTE_DESCRIPTION = (
    "Append a short note about a choice you made yourself (not worth asking the human): what "
    "you decided and why. Notes help a later session continue without re-deriving choices. "
    "They are your account (provenance 'model'), never treated as the human's preference."
)
RECENT_DESCRIPTION = (
    "Recent decisions (the human's answers), your notes, and decisions still pending for this "
    "workspace, newest first. Call it when resuming work so you start from what was decided."
)
PREFERENCES_DESCRIPTION = (
    "Evidence from the human's past decisions of this kind: matching preference rules from "
    "project to domain to global, each with supporting and contradicting decisions. It is "
    "evidence, not an instruction: still ask when the current tradeoff differs materially."
)
OUTCOME_DESCRIPTION = (
    "Report how a recorded decision turned out, with at least one of ci ('pass' or 'fail'), "
    "accepted (true or false), eval_score (0 to 1) and note. It is appended to an outcome log "
    "for the human to read; it never edits the decision and never changes which preference "
    "rules exist. Returns the decision_id, recorded_at and the derived reward (0 to 1)."
)
LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]
_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
_READ_ONLY = ToolAnnotations(readOnlyHint=True, destructiveHint=False, idempotentHint=True)


def default_workspace() -> str:
    """CLAUDE_PROJECT_DIR (set by Claude Code for the servers it starts), else the cwd."""
    return os.path.abspath(os.environ.get("CLAUDE_PROJECT_DIR") or os.getcwd())


MoreViolations = Callable[[dict[str, Any], list[Violation]], list[Violation]]


class SchemaTool(Tool):
    """A tool that enforces its advertised input schema before the SDK's own checks.

    `more` adds the rules a schema every client accepts cannot say (the two shapes of a
    proposal, "at least one of"); it sees the schema's violations so it can avoid repeating
    them.
    """

    more: MoreViolations | None = Field(default=None, exclude=True)

    async def run(
        self, arguments: dict[str, Any], context: Any, convert_result: bool = False
    ) -> Any:
        found = argument_violations(self.parameters, arguments)
        if self.more is not None:
            found += self.more(arguments, found)
        if found:
            message = violations_text(f"the {self.name} call", found)
            raise ToolError(redact_text(f"Error executing tool {self.name}: {message}")[0])
        try:
            result = await super().run(arguments, context, convert_result=False)
        except ToolError as exc:  # errors quote the arguments that caused them
            raise ToolError(redact_text(str(exc))[0]) from None
        result = _redacted(result)  # results echo queries and notes as the agent sent them
        return self.fn_metadata.convert_result(result) if convert_result else result


def _redacted(result: Any) -> Any:
    """A tool's return value with every string redacted, pydantic models field by field."""
    if isinstance(result, BaseModel):
        fields = type(result).model_fields
        return result.model_copy(update={k: _redacted(getattr(result, k)) for k in fields})
    if isinstance(result, dict):
        return {redact_json(k): _redacted(v) for k, v in result.items()}
    if isinstance(result, list | tuple):
        return type(result)(_redacted(v) for v in result)
    return redact_json(result)


class JournalTools:
    """The five tools over one journal; bound methods become MCP tools."""

    def __init__(self, journal: Journal, workspace: str, session_id: str) -> None:
        self.journal = journal
        self.workspace = workspace
        self.session_id = session_id
        self.presenter = Presenter(journal)
        self.notes = NoteStore(journal.root)

    def caller(self, ctx: Context, workspace: Any) -> Caller:
        return Caller(
            workspace=self._workspace(workspace),
            session_id=_transport_session(ctx) or self.session_id,
            agent=_client_name(ctx),
        )

    def _workspace(self, value: Any) -> str:
        if value is None or value == "":
            return self.workspace
        if not isinstance(value, str) or not os.path.isabs(value):
            raise ToolError("workspace: must be an absolute path of the project root")
        return value

    async def present_implementation_decision(
        self,
        ctx: Context,
        *,
        decision_id: Any = None,
        problem: Any = None,
        header: Any = None,
        decision_kind: Any = None,
        risk_level: Any = None,
        options: Any = None,
        domains: Any = None,
        languages: Any = None,
        evidence_refs: Any = None,
        detector_confidence: Any = None,
        task_fingerprint: Any = None,
        evidence_fingerprint: Any = None,
        recommended_option_id: Any = None,
        workspace: Any = None,
    ) -> DecisionOutcome:
        given = locals()
        raw = {name: given[name] for name in PROPOSAL_FIELDS if given[name] is not None}
        caller = self.caller(ctx, workspace)

        async def report(progress: float, message: str) -> None:
            await ctx.report_progress(progress, None, message)

        return await self.presenter.present(raw, caller, report)

    def proposal_violations(
        self, arguments: dict[str, Any], found: list[Violation]
    ) -> list[Violation]:
        """The proposal rules beyond the schema, when the schema check already failed, so one
        error lists everything; otherwise the presenter checks them with the real caller."""
        if not found or is_resume_request(arguments):
            return []
        try:
            parse_proposal(arguments, workspace=self.workspace, session_id=self.session_id)
        except ProposalInvalid as exc:
            return _uncovered(exc.violations, found)
        return []

    @staticmethod
    def note_violations(arguments: dict[str, Any], found: list[Violation]) -> list[Violation]:
        """The note rules beyond the schema (blank text), when the schema check failed."""
        if not found:
            return []
        texts = {
            name: value if isinstance(value := arguments.get(name, ""), str) else ""
            for name in ("decision", "why", "evidence", "goal")
        }
        try:
            check_agent_note(**texts, agent="", session_id="")
        except NoteInvalid as exc:
            return _uncovered(exc.violations, found)
        return []

    def note_decision(
        self,
        ctx: Context,
        *,
        decision: str,
        why: str,
        evidence: str = "",
        goal: str = "",
        workspace: str = "",
    ) -> NoteOutcome:
        caller = self.caller(ctx, workspace)
        try:
            note = self.notes.append(
                workspace=caller.workspace,
                decision=decision,
                why=why,
                evidence=evidence,
                goal=goal,
                session_id=caller.session_id,
                agent=caller.agent,
            )
        except NoteInvalid as exc:
            raise ToolError(violations_message(exc)) from exc
        except (JournalError, OSError) as exc:
            raise tool_error_for(exc) from exc
        return NoteOutcome(
            note_id=note.id,
            created_at=note.created_at,
            project_id=note.project_id,
            provenance=note.provenance,
            redacted=note.redacted,
        )

    def recent_decisions(
        self,
        ctx: Context,
        *,
        workspace: str = "",
        goal: str = "",
        limit: int = DEFAULT_LIMIT,
        query: str = "",
    ) -> dict[str, Any]:
        caller = self.caller(ctx, workspace)
        if query.strip():
            return self._recall(caller.workspace, query, limit)
        try:
            result = recent_context(
                self.journal.store,
                self.notes,
                self.journal.pending,
                workspace=caller.workspace,
                goal=goal,
                limit=limit,
                index=self.journal.index,
            )
        except (JournalError, OSError) as exc:
            raise tool_error_for(exc) from exc
        return result.to_dict()

    def _recall(self, workspace: str, query: str, limit: int) -> dict[str, Any]:
        options = RecallOptions(project_id=project_identity(workspace).project_id, limit=limit)
        try:
            entries = recall_journal(self.journal, query, options)
        except (JournalError, OSError) as exc:
            raise tool_error_for(exc) from exc
        return {"query": query, "recalled": [entry.to_dict() for entry in entries]}

    @staticmethod
    def outcome_violations(arguments: dict[str, Any], found: list[Violation]) -> list[Violation]:
        """An outcome must say something: at least one of its signals."""
        values = [arguments.get(name) for name in schemas.OUTCOME_SIGNALS]
        if any(v.strip() if isinstance(v, str) else v is not None for v in values):
            return []
        named = ", ".join(schemas.OUTCOME_SIGNALS)
        return [Violation("arguments", f"give at least one of {named}")]

    def report_outcome(
        self,
        ctx: Context,
        *,
        decision_id: str,
        ci: str | None = None,
        accepted: bool | None = None,
        eval_score: float | None = None,
        note: str = "",
    ) -> dict[str, Any]:
        try:
            signal = report_outcome(
                self.journal,
                decision_id,
                ci=ci,
                accepted=accepted,
                eval_score=eval_score,
                note=note,
                source="mcp",
            )
        except (JournalError, OSError) as exc:
            raise tool_error_for(exc) from exc
        return {
            "decision_id": signal.decision_id,
            "recorded_at": signal.at.format(),
            "reward": signal.reward,
        }

    def get_preferences(
        self,
        ctx: Context,
        *,
        decision_kind: str,
        domains: list[str] | None = None,
        workspace: str = "",
    ) -> dict[str, Any]:
        caller = self.caller(ctx, workspace)
        try:
            profile = self.journal.profile.load()
            status = self.journal.profile.status()
            result = query_evidence(
                profile,
                kind=decision_kind,
                project_id=project_identity(caller.workspace).project_id,
                domains=list(domains or []),
                state=status.state,
            )
            return with_modes(result, decider_for(self.journal))
        except (JournalError, OSError) as exc:
            raise tool_error_for(exc) from exc


def _uncovered(more: Sequence[Violation], found: list[Violation]) -> list[Violation]:
    """The violations of `more` whose field, or a field containing it, is not yet reported."""

    def covered(field: str) -> bool:
        return any(
            field == v.field or field.startswith((f"{v.field}.", f"{v.field}[")) for v in found
        )

    return [v for v in more if not covered(v.field)]


def _transport_session(ctx: Context) -> str:
    """The MCP session id when the transport has one (HTTP); stdio has none."""
    try:
        headers = ctx.headers
    except (ValueError, AttributeError):
        return ""
    return str(headers.get("mcp-session-id", "")) if headers else ""


def _client_name(ctx: Context) -> str:
    """The client's self-reported name (e.g. `claude-code`), shown in the window."""
    try:
        params = ctx.session.client_params
    except (ValueError, AttributeError):
        return ""
    return params.client_info.name[:128] if params is not None else ""


def _tool(
    fn: Callable[..., Any],
    name: str,
    description: str,
    schema: dict[str, Any],
    *,
    annotations: ToolAnnotations | None = None,
    more: MoreViolations | None = None,
) -> Tool:
    """A tool whose advertised and enforced input schema is ours, not one generated from `fn`."""
    tool = SchemaTool.from_function(fn, name=name, description=description, annotations=annotations)
    return tool.model_copy(update={"parameters": schema, "more": more})


def build_server(journal: Journal, *, workspace: str | None = None) -> MCPServer:
    """The server with its five tools; tool names are a stable contract."""
    session_id = f"mcp-{secrets.token_hex(8)}"
    tools = JournalTools(journal, workspace or default_workspace(), session_id)
    level = os.environ.get(LOG_LEVEL_ENV, "WARNING").upper()
    log_level: LogLevel = level if level in _LEVELS else "WARNING"  # type: ignore[assignment]
    return MCPServer(
        SERVER_NAME,
        instructions=INSTRUCTIONS,
        version=__version__,
        log_level=log_level,
        tools=[
            _tool(
                tools.present_implementation_decision,
                PRESENT_TOOL,
                PRESENT_DESCRIPTION,
                schemas.PRESENT_INPUT_SCHEMA,
                annotations=ToolAnnotations(
                    readOnlyHint=False, destructiveHint=False, openWorldHint=False
                ),
                more=tools.proposal_violations,
            ),
            _tool(
                tools.note_decision,
                NOTE_TOOL,
                NOTE_DESCRIPTION,
                schemas.NOTE_INPUT_SCHEMA,
                annotations=ToolAnnotations(
                    readOnlyHint=False, destructiveHint=False, openWorldHint=False
                ),
                more=tools.note_violations,
            ),
            _tool(
                tools.recent_decisions,
                RECENT_TOOL,
                RECENT_DESCRIPTION,
                schemas.RECENT_INPUT_SCHEMA,
                annotations=_READ_ONLY,
            ),
            _tool(
                tools.get_preferences,
                PREFERENCES_TOOL,
                PREFERENCES_DESCRIPTION,
                schemas.PREFERENCES_INPUT_SCHEMA,
                annotations=_READ_ONLY,
            ),
            _tool(
                tools.report_outcome,
                OUTCOME_TOOL,
                OUTCOME_DESCRIPTION,
                schemas.OUTCOME_INPUT_SCHEMA,
                annotations=ToolAnnotations(
                    readOnlyHint=False, destructiveHint=False, openWorldHint=False
                ),
                more=tools.outcome_violations,
            ),
        ],
    )


def run_handed_over(journal_dir: str | None, workspace: str | None, handover: Handover) -> int:
    """Serves the connection `app.mcp.front` answered so far, until the client closes it or
    sends SIGINT or SIGTERM."""
    place = os.path.abspath(workspace) if workspace else None
    server = build_server(Journal.open(journal_dir), workspace=place)
    wire = handover.wire
    stdout = _Answered(
        anyio.wrap_file(_text(wire.output)), handover.answered_id, handover.acknowledged_id
    )
    stdin = _Replayed(handover.held, wire.input, stdout)
    anyio.run(_serve, server, stdin, stdout)
    return 0


async def serve_on(server: MCPServer, stdin: Any, stdout: Any) -> None:
    """Serves one connection over `stdin` (async lines) and `stdout` (async `write` and
    `flush`), as `MCPServer.run_stdio_async` serves the process's own, until stdin ends.

    `run_stdio_async` takes no streams, so this runs its two steps: the SDK's stdio transport
    over the given streams, and its low-level server on them.
    """
    async with stdio_server(stdin, stdout) as (read_stream, write_stream):
        lowlevel = server._lowlevel_server  # what run_stdio_async runs
        await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())


async def _serve(server: MCPServer, stdin: Any, stdout: Any) -> None:
    """Serves until stdin ends or a stop signal arrives; either way the process ends here."""
    async with anyio.create_task_group() as group:
        group.start_soon(_stop_on_signal, group.cancel_scope)
        await serve_on(server, stdin, stdout)
        group.cancel_scope.cancel()
    exit_now()


async def _stop_on_signal(scope: anyio.CancelScope) -> None:
    with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as received:
        async for signum in received:
            log.info("stopping on %s", signal.Signals(signum).name)
            scope.cancel()
            with anyio.CancelScope(shield=True):
                await anyio.sleep(STOP_GRACE_SECONDS)
            exit_now()


def _text(stream: IO[bytes]) -> io.TextIOWrapper:
    """UTF-8 text over the wire's bytes, as the SDK's stdio transport reads and writes."""
    return io.TextIOWrapper(stream, encoding="utf-8", write_through=True)


class _Replayed:
    """The client's lines as the server reads them: those the front held, then the wire's,
    each checked as the socket checks a frame (`decode_json`: size, nesting, values, strict
    JSON) before the SDK parses it. A line that fails is answered with a JSON-RPC error naming
    the limit and never reaches the SDK; the session goes on with the next line."""

    def __init__(self, held: list[bytes], wire: IO[bytes], answers: _Answered) -> None:
        self._held = held
        self._wire = wire
        self._answers = answers

    def __aiter__(self) -> AsyncIterator[str]:
        return self._lines()

    async def _lines(self) -> AsyncIterator[str]:
        for line in self._held:
            checked = _checked(line)
            if isinstance(checked, str):
                yield checked
            elif checked is not None:
                await self._refuse(checked)
        while True:
            checked = await anyio.to_thread.run_sync(_next_line, self._wire)
            if checked == "":
                return
            if isinstance(checked, str):
                yield checked
            elif checked is not None:
                await self._refuse(checked)

    async def _refuse(self, answer: dict[str, Any]) -> None:
        await self._answers.write(json.dumps(answer, ensure_ascii=False) + "\n")
        await self._answers.flush()


def _next_line(wire: IO[bytes]) -> str | dict[str, Any] | None:
    """The wire's next line checked ("" at its end), or the error answering it."""
    line = read_line(wire)
    if line is None:
        return too_long_error()
    return _checked(line) if line else ""


def _checked(line: bytes) -> str | dict[str, Any] | None:
    """The line as text when it holds JSON within the socket's limits, None for a blank line,
    else the JSON-RPC error answering it."""
    if not line.strip():
        return None
    try:
        decode_json(line)
    except ProtocolError as exc:
        return {"jsonrpc": "2.0", "id": None, "error": exc.to_error_object()}
    return line.decode("utf-8")


class _Answered:
    """The server's messages to the client, but for its second answer to the `initialize`
    and its second acknowledgement of the subscription the front already gave."""

    def __init__(
        self, wire: anyio.AsyncFile[str], answered_id: Any, acknowledged_id: Any = None
    ) -> None:
        self._wire = wire
        self._answered_id = answered_id
        self._acknowledged_id = acknowledged_id

    async def write(self, text: str) -> None:
        if self._answered_id is not None and _answers(text, self._answered_id):
            self._answered_id = None
            return
        if self._acknowledged_id is not None and _acknowledges(text, self._acknowledged_id):
            self._acknowledged_id = None
            return
        await self._wire.write(text)

    async def flush(self) -> None:
        await self._wire.flush()


def _acknowledges(text: str, subscription_id: Any) -> bool:
    """Whether `text` acknowledges the subscription `subscription_id`."""
    try:
        message = json.loads(text)
    except ValueError:
        return False
    if not isinstance(message, dict) or message.get("method") != ACKNOWLEDGED:
        return False
    meta = message.get("params", {}).get("_meta", {})
    return isinstance(meta, dict) and meta.get(SUBSCRIPTION_ID) == subscription_id


def _answers(text: str, request_id: Any) -> bool:
    """Whether `text` is a response (result or error) to the request with `request_id`."""
    try:
        message = json.loads(text)
    except ValueError:
        return False
    return isinstance(message, dict) and "method" not in message and message.get("id") == request_id
