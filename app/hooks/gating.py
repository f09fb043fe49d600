"""Which tool calls a pending decision blocks, and the reason the agent reads.

Why it reads the pending files directly: the hook runs before every tool call of every agent,
often with no app running, so it must decide from the journal alone, fast, and without Qt.
The rule is the spec's: while a decision is pending for this session or this workspace, only
tools known to be read-only run; everything else, including unknown tools and other MCP
servers' tools, fails closed.
"""

from __future__ import annotations

from app.hooks.deny_text import RUNBOOK, deny_reason
from core.capture.workspace_pending import Blocker, find_blockers

__all__ = ["RUNBOOK", "Blocker", "deny_reason", "find_blockers"]
