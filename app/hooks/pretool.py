"""The PreToolUse flow both hooks share: read the event, find blockers, deny or stay silent.

Why exit codes matter here: both clients treat exit 0 with no output as "no opinion" and exit 2
as "block, stderr is the reason". A crash in a gate must not quietly let an edit through while
a decision is pending, and must never block an agent when nothing is pending.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TextIO

from app.hooks.gating import Blocker, deny_reason, find_blockers, is_read_only
from app.hooks.quick import STDIN_MAX, nothing_pending
from core.journal import Journal

log = logging.getLogger(__name__)

BLOCK = 2
"""Exit code both clients read as "block this tool call; stderr says why"."""


@dataclass(frozen=True, slots=True)
class HookEvent:
    """The fields of a PreToolUse event we use; everything else is ignored."""

    session_id: str
    cwd: str
    tool_name: str
    tool_input: dict[str, Any] = field(default_factory=dict)
    tool_use_id: str = ""

    @property
    def workspace(self) -> str:
        """CLAUDE_PROJECT_DIR (the project root Claude Code sets for hooks), else the event's
        cwd, else ours: the same precedence the MCP server uses, so both see one project."""
        return os.path.abspath(os.environ.get("CLAUDE_PROJECT_DIR") or self.cwd or os.getcwd())


def parse_event(text: str) -> HookEvent:
    """Reads the hook's stdin JSON.

    Raises:
        ValueError: not a JSON object, or the tool name or input has the wrong type.
    """
    value = json.loads(text)
    if not isinstance(value, dict):
        raise ValueError("hook input is not a JSON object")
    tool_name = value.get("tool_name")
    tool_input = value.get("tool_input", {})
    if not isinstance(tool_name, str) or not tool_name:
        raise ValueError("hook input has no tool_name")
    if not isinstance(tool_input, dict):
        raise ValueError("hook input's tool_input is not an object")
    return HookEvent(
        session_id=_text(value.get("session_id")),
        cwd=_text(value.get("cwd")),
        tool_name=tool_name,
        tool_input=tool_input,
        tool_use_id=_text(value.get("tool_use_id")),
    )


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def deny_output(reason: str) -> dict[str, Any]:
    """The PreToolUse decision object; Claude Code and Codex read the same shape, and Codex
    fails open on unknown fields, so nothing else is added."""
    return {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
        }
    }


def write_json(stdout: TextIO, value: dict[str, Any]) -> None:
    stdout.write(json.dumps(value, ensure_ascii=False) + "\n")
    stdout.flush()


Unblocked = Callable[[Journal, HookEvent, TextIO], int]
"""What runs when nothing blocks the tool (e.g. the AskUserQuestion window); never raises."""


def run_pre_tool(
    journal: Journal,
    stdin: TextIO,
    stdout: TextIO,
    stderr: TextIO,
    *,
    unblocked: Unblocked | None = None,
) -> int:
    """One PreToolUse event: deny while a decision is pending, else defer to `unblocked`."""
    blockers: list[Blocker] | None = None
    try:
        event = parse_event(stdin.read(STDIN_MAX))
        blockers = find_blockers(
            journal.pending, session_id=event.session_id, workspace=event.workspace
        )
        if blockers:
            if not is_read_only(event.tool_name):
                write_json(stdout, deny_output(deny_reason(blockers, event.tool_name)))
            return 0
    except Exception as exc:  # a gate must fail closed when something may be pending
        return _failed(journal, blockers, exc, stderr)
    if unblocked is None:
        return 0
    try:
        return unblocked(journal, event, stdout)
    except Exception as exc:  # nothing is pending: an error here must never block
        log.warning("decision-journal hook ignored an error: %s", exc)
        return 0


def _failed(
    journal: Journal, blockers: list[Blocker] | None, exc: Exception, stderr: TextIO
) -> int:
    """Exit 2 (block) when a decision is or may be pending; otherwise never block."""
    may_be_pending = bool(blockers) if blockers is not None else _anything_pending(journal)
    if not may_be_pending:
        log.warning("decision-journal hook ignored an error: %s", exc)
        return 0
    print(
        f"decision-journal hook failed ({type(exc).__name__}: {exc}) while an implementation "
        "decision may be pending, so this tool call is blocked. Answer or resume the pending "
        "decision (`decision-journal pending`; resume with present_implementation_decision and "
        'only {"decision_id": ...}); see docs/runbook.md#decision-pending.',
        file=stderr,
    )
    return BLOCK


def _anything_pending(journal: Journal) -> bool:
    """Unknown workspace or session: any pending file, or an unreadable directory, counts."""
    return not nothing_pending(journal.root)


def main_stdio(run: Callable[[TextIO, TextIO, TextIO], int]) -> int:
    """Runs a hook on the process's standard streams (logging stays on stderr)."""
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(message)s")
    return run(sys.stdin, sys.stdout, sys.stderr)
