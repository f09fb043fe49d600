"""`decision-journal hook opencode`: what our opencode plugin asks before every tool call.

opencode has no command hook; its plugins' `tool.execute.before` runs before every tool, and
a plugin that throws keeps the tool from running, the error's message becoming the tool's
result for the model. Our plugin (resources/opencode/decision-journal.js) sends each call
here as `{"hook_event_name": "tool.execute.before", "session_id", "cwd", "tool_name",
"tool_input", "tool_use_id"}` and throws the `reason` of a `{"decision": "deny", "reason"}`
answer, or stderr when this exits 2 (the gate failed while a decision may be pending).
opencode names our tools `decision-journal_<tool>`.
"""

from __future__ import annotations

from typing import TextIO

from app.hooks.clients import OPENCODE
from app.hooks.pretool import run_pre_tool
from core.journal import Journal


def run(journal: Journal, stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    return run_pre_tool(journal, OPENCODE, stdin, stdout, stderr)
