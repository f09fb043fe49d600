"""Which tool calls a pending decision blocks, and the reason the agent reads.

Why it reads the pending files directly: the hook runs before every tool call of every agent,
often with no app running, so it must decide from the journal alone, fast, and without Qt.
The rule is the spec's: while a decision is pending for this session or this workspace, only
tools known to be read-only run; everything else, including unknown tools and other MCP
servers' tools, fails closed.
"""

from __future__ import annotations

from app.hooks.clients import ClientHook
from core.capture.workspace_pending import Blocker, find_blockers
from core.messages import runbook

__all__ = ["RUNBOOK", "Blocker", "deny_reason", "find_blockers"]

RUNBOOK = runbook.reference("decision-pending")


def deny_reason(blockers: list[Blocker], tool_name: str, hook: ClientHook) -> str:
    """What the agent reads when a tool is denied: which decision, what the human does, how
    to resume (as this client spells the call), and which of its tools still run."""
    first = blockers[0]
    allowed = f"Read-only tools ({', '.join(hook.named)}) and the decision-journal tools still run."
    blocked = f" {hook.blocked_note}" if hook.blocked_note else ""
    if first.damaged:
        return (
            f"Tool {tool_name} is blocked: the pending implementation decision file "
            f"{first.decision_id} is unreadable, so edits stay blocked until it is repaired. "
            "Tell the user to run `decision-journal pending` and `decision-journal doctor` and "
            f"follow {RUNBOOK}.{blocked} {allowed}"
        )
    problem = f" ({first.problem[:160]!r})" if first.problem else ""
    more = f" and {len(blockers) - 1} more" if len(blockers) > 1 else ""
    return (
        f"Tool {tool_name} is blocked: implementation decision {first.decision_id}{problem}"
        f"{more} is pending and must be answered by the human before any edit or command. "
        "The human answers it in the Decision Journal window (tray icon, or "
        f"`decision-journal ask` in a terminal). To resume, call {hook.resume(first.decision_id)} "
        f"and follow its instruction.{blocked} Until then use only read-only tools "
        f"({', '.join(hook.named)}) and the decision-journal tools; do not guess the answer."
    )
