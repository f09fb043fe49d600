"""`decision-journal hook codex`: Codex's PreToolUse hook (Bash, apply_patch, MCP tools).

Same gating as Claude Code and the same output shape, which Codex reads too. Codex treats a
hook that prints unknown fields as failed and runs the tool, so the output carries nothing but
the documented `hookSpecificOutput` fields. Codex names our tools `mcp__decision_journal__*`
(its server names keep only letters, digits and `_`); `core.agents.tools` knows that spelling.
Codex has no AskUserQuestion to answer.
"""

from __future__ import annotations

from typing import TextIO

from app.hooks.clients import CODEX
from app.hooks.pretool import run_pre_tool
from core.journal import Journal


def run(journal: Journal, stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    return run_pre_tool(journal, CODEX, stdin, stdout, stderr)
