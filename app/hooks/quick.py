"""The hook's answer when there is nothing to do, decided before the journal code loads.

Why: clients run the hook before every tool call of every agent. Loading the journal's code
(pydantic models, the store, the index) took about 0.25 s of a 0.3 s hook, yet almost every
call finds nothing pending and a tool the hook has nothing to add to, and prints nothing.
Those calls are answered here from the pending directory's listing alone; every other call
(anything pending, a listing that fails, input that is not a plain tool event, a question
the app may answer) takes the full path, which decides exactly as before.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

STDIN_MAX = 8 * 1024 * 1024
"""The most of stdin a hook reads: a tool event is small, and a runaway input must not be."""
PENDING_DIR = "pending"
"""`core.pending.PENDING_DIR`; a test keeps the two equal."""
ASK_TOOL = "AskUserQuestion"
"""`app.hooks.ask_user_question.TOOL_NAME`: the one tool the Claude Code hook acts on when
nothing is pending."""


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
    return not any(name.lower().endswith(".json") and not name.startswith(".") for name in names)


def plain_tool(event_text: str, *, answers_questions: bool) -> bool:
    """The event is a tool call the hook has nothing to add to when nothing is pending.

    Anything else (text that is not a JSON object with a tool name, or a question the hook may
    answer through the app) goes the full way, so its errors are reported as before.
    """
    try:
        event = json.loads(event_text)
    except ValueError:
        return False
    if not isinstance(event, dict):
        return False
    tool = event.get("tool_name")
    if not isinstance(tool, str) or not tool or not isinstance(event.get("tool_input", {}), dict):
        return False
    return not (answers_questions and tool == ASK_TOOL)


def nothing_to_do(journal_root: Path, event_text: str, *, answers_questions: bool) -> bool:
    """The hook may exit 0 at once, printing nothing."""
    return plain_tool(event_text, answers_questions=answers_questions) and nothing_pending(
        journal_root
    )
