"""`decision-journal hook cursor`: Cursor's `beforeShellExecution`, `beforeMCPExecution` and
`preToolUse` (file-edit tools) hooks.

Cursor sends `hook_event_name`, `conversation_id` and `workspace_roots` with every event, the
`command` of a terminal command, and the `tool_name` of an MCP or other tool call; it reads
`{"permission": "deny", "user_message": …, "agent_message": …}` on stdout, the agent seeing
`agent_message`. This follows Cursor's documented hook contract (no Cursor client can run in
the test suite; tests/data/hooks/cursor_*.input.json are its documented event shapes).
"""

from __future__ import annotations

from typing import TextIO

from app.hooks.clients import CURSOR
from app.hooks.pretool import run_pre_tool
from core.journal import Journal


def run(journal: Journal, stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    return run_pre_tool(journal, CURSOR, stdin, stdout, stderr)
