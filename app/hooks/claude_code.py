"""`decision-journal hook claude-code`: Claude Code's PreToolUse hook.

Register it for every tool (matcher `*`). While a decision is pending for this session or
workspace it denies every tool that is not known read-only, naming the decision and how to
resume; otherwise it stays silent, except for AskUserQuestion, which it answers in the tray
app when one is running (see `ask_user_question`). Other events get no answer.
"""

from __future__ import annotations

from typing import TextIO

from app.hooks import ask_user_question
from app.hooks.clients import CLAUDE_CODE
from app.hooks.pretool import run_pre_tool
from core.journal import Journal


def run(journal: Journal, stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    return run_pre_tool(
        journal, CLAUDE_CODE, stdin, stdout, stderr, unblocked=ask_user_question.handle
    )
