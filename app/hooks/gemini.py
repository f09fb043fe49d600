"""`decision-journal hook gemini`: Gemini CLI's BeforeTool hook.

Register it in `settings.json` under `hooks.BeforeTool` with matcher `.*`. The gating is the
same as for the other clients; the answer is Gemini's documented shape (`decision: "deny"`
with a `reason` the model reads), and exit 2 with the reason on stderr when the gate itself
fails while a decision may be pending. Gemini names our tools `mcp_decision-journal_*` and
also sends `mcp_context` (server and tool) for MCP calls; both are recognised. Gemini CLI
runs a project's hooks only in a trusted folder.
"""

from __future__ import annotations

from typing import TextIO

from app.hooks.clients import GEMINI
from app.hooks.pretool import run_pre_tool
from core.journal import Journal


def run(journal: Journal, stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    return run_pre_tool(journal, GEMINI, stdin, stdout, stderr)
