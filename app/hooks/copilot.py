"""`decision-journal hook copilot`: GitHub Copilot CLI's `preToolUse` hook.

Copilot CLI sends `{"sessionId", "timestamp", "cwd", "toolName", "toolArgs"}` with no event
name and no `tool_name` (recorded from Copilot CLI 1.0.102 in
tests/data/hooks/copilot_bash.input.json), and reads
`{"permissionDecision": "deny", "permissionDecisionReason": …}` on stdout, handing the model
"Denied by preToolUse hook: <reason>". Any other exit, 2 included, denies the tool as well, so
a hook that cannot read Copilot's event holds the agent on every tool, our resume included.
Copilot names our tools `decision-journal-<tool>`. It has no question tool to answer.
"""

from __future__ import annotations

from typing import TextIO

from app.hooks.clients import COPILOT
from app.hooks.pretool import run_pre_tool
from core.journal import Journal


def run(journal: Journal, stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    return run_pre_tool(journal, COPILOT, stdin, stdout, stderr)
