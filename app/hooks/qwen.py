"""`decision-journal hook qwen`: Qwen Code's PreToolUse hook.

Register it in `settings.json` under `hooks.PreToolUse` with matcher `*`. Qwen Code sends
Claude Code's event (`session_id`, `cwd`, `hook_event_name`, `tool_name`, `tool_input`) with
its own tool names (read_file, run_shell_command, ...) and reads Claude Code's answer; exit 2
with the reason on stderr denies too (checked in Qwen Code 0.24.4's bundled sources and real
sessions). It names our tools as Claude Code does, `mcp__decision-journal__*`. Its question
tool is not answered through the app.
"""

from __future__ import annotations

from typing import TextIO

from app.hooks.clients import QWEN
from app.hooks.pretool import run_pre_tool
from core.journal import Journal


def run(journal: Journal, stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    return run_pre_tool(journal, QWEN, stdin, stdout, stderr)
