"""The pre-tool flow every client's hook shares: read the event, find blockers, deny or stay
silent.

Why exit codes matter here: Claude Code, Codex and Gemini CLI treat exit 0 with no output as
"no opinion" and exit 2 as "block, stderr is the reason". A crash in a gate must not quietly
let an edit through while a decision is pending, and must never block an agent when nothing
is pending.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Callable
from typing import Any, TextIO

from app.hooks.clients import ClientHook
from app.hooks.event import STDIN_MAX, HookEvent, parse_event
from app.hooks.gating import Blocker, deny_reason, find_blockers
from app.hooks.pending_answer import nothing_pending
from core.journal import Journal
from core.messages import runbook

log = logging.getLogger(__name__)

BLOCK = 2
"""Exit code every client reads as "block this tool call; stderr says why"."""


def write_json(stdout: TextIO, value: dict[str, Any]) -> None:
    stdout.write(json.dumps(value, ensure_ascii=False) + "\n")
    stdout.flush()


Unblocked = Callable[[Journal, HookEvent, TextIO], int]
"""What runs when nothing blocks the tool (e.g. the AskUserQuestion window); never raises."""


def run_pre_tool(
    journal: Journal,
    hook: ClientHook,
    stdin: TextIO,
    stdout: TextIO,
    stderr: TextIO,
    *,
    unblocked: Unblocked | None = None,
) -> int:
    """One hook event: deny while a decision is pending, else defer to `unblocked`."""
    blockers: list[Blocker] | None = None
    try:
        event = parse_event(stdin.read(STDIN_MAX), hook)
        if event is None:
            return 0
        if hook.allows_while_pending(event.tool_name, event.mcp_server, event.mcp_tool):
            return 0
        blockers = find_blockers(
            journal.pending, session_id=event.session_id, workspace=event.workspace
        )
        if blockers:
            reason = deny_reason(blockers, event.tool_name, hook)
            write_json(stdout, hook.deny_output(reason))
            return 0
    except Exception as exc:  # noqa: BLE001  # a gate must fail closed when something may be pending
        return _failed(journal, hook, blockers, exc, stderr)
    if unblocked is None:
        return 0
    try:
        return unblocked(journal, event, stdout)
    except Exception as exc:  # noqa: BLE001  # nothing is pending: an error here must never block
        log.warning("decision-journal hook ignored an error: %s", exc)
        return 0


def _failed(
    journal: Journal,
    hook: ClientHook,
    blockers: list[Blocker] | None,
    exc: Exception,
    stderr: TextIO,
) -> int:
    """Exit 2 (block) when a decision is or may be pending; otherwise never block."""
    may_be_pending = bool(blockers) if blockers is not None else _anything_pending(journal)
    if not may_be_pending:
        log.warning("decision-journal hook ignored an error: %s", exc)
        return 0
    print(
        f"decision-journal hook failed ({type(exc).__name__}: {exc}) while an implementation "
        "decision may be pending, so this tool call is blocked. Answer or resume the pending "
        f"decision (`decision-journal pending`; resume with {hook.resume('')}); "
        f"{runbook.see('decision-pending')}.",
        file=stderr,
    )
    return BLOCK


def _anything_pending(journal: Journal) -> bool:
    """Unknown workspace or session: any pending file, or an unreadable directory, counts."""
    return not nothing_pending(journal.root)


def main_stdio(run: Callable[[TextIO, TextIO, TextIO], int]) -> int:
    """Runs a hook on the process's standard streams (logging stays on stderr, redacted)."""
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(message)s")
    for handler in logging.getLogger().handlers:
        handler.addFilter(_redact_log_line)
    return run(sys.stdin, sys.stdout, sys.stderr)


def _redact_log_line(record: logging.LogRecord) -> bool:
    """Redacts a warning before it reaches the agent's terminal: it may quote the question or
    the error that names its input. The redactor loads only when a line is logged, so the
    hook's usual path pays nothing."""
    from core.record.redaction import redact_text  # noqa: PLC0415 - only when logging

    record.msg, record.args = redact_text(record.getMessage())[0], ()
    return True
