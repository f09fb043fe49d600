"""Which tool calls a pending decision blocks, and the reason the agent reads.

Why it reads the pending files directly: the hook runs before every tool call of every agent,
often with no app running, so it must decide from the journal alone, fast, and without Qt.
The rule is the spec's: while a decision is pending for this session or this workspace, only
tools known to be read-only run; everything else, including unknown tools and other MCP
servers' tools, fails closed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from app.hooks.clients import ClientHook
from core.filters import workspace_matches
from core.identity import project_identity
from core.pending import PendingIssue, PendingStore
from core.text import go_trim

RUNBOOK = "docs/runbook.md#decision-pending"


@dataclass(frozen=True, slots=True)
class Blocker:
    """A pending decision (or an unreadable pending file) that blocks this agent."""

    decision_id: str
    problem: str = ""
    damaged: bool = False


def _same_place(pending_workspace: str, pending_project: str, workspace: str) -> bool:
    """Same project, or one directory inside the other: an agent in a parent directory can
    edit the pending project's files too, so it is blocked as well."""
    if not workspace:
        return False
    if pending_project and pending_project == project_identity(workspace).project_id:
        return True
    return workspace_matches(pending_workspace, workspace)


def _issue_blocks(issue: PendingIssue, session_id: str, workspace: str) -> bool:
    """A damaged file blocks unless it is readably someone else's: fail closed."""
    if issue.session_id and issue.session_id == session_id:
        return True
    if not (issue.workspace or issue.project_id):
        return True
    return _same_place(issue.workspace, issue.project_id, workspace)


def find_blockers(pending: PendingStore, *, session_id: str, workspace: str) -> list[Blocker]:
    """Every pending decision of this session or workspace, oldest first.

    Raises:
        OSError, JournalError: the pending directory itself cannot be listed; the caller
            decides how to fail (the hooks block when the directory exists).
    """
    listing = pending.list()
    wanted_session = go_trim(session_id)
    blockers = [
        Blocker(item.decision_id, item.proposal.problem)
        for item in listing.items
        if (wanted_session and item.session_id == wanted_session)
        or _same_place(item.proposal.workspace, item.proposal.project_id, workspace)
    ]
    blockers.extend(
        Blocker(issue.decision_id or os.path.basename(issue.path), damaged=True)
        for issue in listing.issues
        if _issue_blocks(issue, wanted_session, workspace)
    )
    return blockers


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
