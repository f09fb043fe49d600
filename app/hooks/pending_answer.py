"""The hook's answer decided before the journal code loads: silence, or a deny.

Why: clients run the hook before every tool call of every agent. Loading the journal's code
(pydantic models, the store, the index) costs many times the interpreter's start, yet almost
every call finds nothing pending for the caller and prints nothing, and a denied call needs
only the pending decision's id and problem. Both are answered here from the pending
directory's listing and `core.capture.pending_index` alone: silence whatever is pending for
other sessions and workspaces, and the client's deny answer (`app.hooks.deny_text`, the text
the full path writes) when the index names what blocks the caller. Every other call (an index
that does not provably match the directory, a listing that fails, input that is not a plain
tool event, a question the app may answer) takes the full path, which decides exactly as
before and fails closed.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from app.hooks.clients import ClientHook
from app.hooks.deny_text import deny_reason
from app.hooks.event import HookEvent, parse_event
from core.bulk.named_tuple import NamedTuple
from core.bulk.pending_lookup import blocking
from core.capture.pending_index import is_pending_name, read_current

PENDING_DIR = "pending"
"""`core.capture.pending.PENDING_DIR`; a test keeps the two equal."""
ASK_TOOL = "AskUserQuestion"
"""`app.hooks.ask_user_question.TOOL_NAME`: the one tool the Claude Code hook acts on when
nothing is pending."""


class Verdict(NamedTuple):
    """`done`: exit 0 printing `answer` (nothing when it is ""). `stale_index`: files are
    pending but the index could not be trusted, so the full path should rewrite it for the
    next call."""

    done: bool
    stale_index: bool = False
    answer: str = ""


def nothing_pending(journal_root: Path) -> bool:
    """No pending file can exist: no pending directory, or one without `*.json` entries (the
    files `PendingStore` lists). False when the directory cannot be listed: then the full
    path decides, and blocks."""
    directory = journal_root / PENDING_DIR
    if not os.path.lexists(directory):
        return True
    try:
        names = os.listdir(directory)
    except OSError:
        return False
    return not any(is_pending_name(name) for name in names)


def decide(journal_root: Path, event_text: str, hook: ClientHook) -> Verdict:
    """Whether the hook may exit 0 at once, printing nothing.

    Never raises: whatever goes wrong here (input nested too deep, a working directory that
    is gone) is left to the full path, which blocks when something may be pending.
    """
    try:
        event = parse_event(event_text, hook)
        if event is None:
            return Verdict(done=True)
        if hook.answers_questions and event.tool_name == ASK_TOOL:
            return Verdict(done=False)
        if hook.allows_while_pending(event.tool_name, event.mcp_server, event.mcp_tool):
            return Verdict(done=True)
        return _pending_for(journal_root, event, hook)
    except Exception:  # noqa: BLE001  # doubt: the full path decides and fails closed
        return Verdict(done=False)


def _pending_for(journal_root: Path, event: HookEvent, hook: ClientHook) -> Verdict:
    if nothing_pending(journal_root):
        return Verdict(done=True)
    entries = read_current(journal_root / PENDING_DIR)
    if entries is None:
        return Verdict(done=False, stale_index=True)
    found = blocking(entries, session_id=event.session_id, workspace=event.workspace)
    if not found:
        return Verdict(done=True)
    reason = deny_reason(found, event.tool_name, hook)
    return Verdict(done=True, answer=json.dumps(hook.deny_output(reason), ensure_ascii=False))
