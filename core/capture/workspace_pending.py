"""Which pending decisions block an agent, and the one-pending-per-workspace rule.

Why in core: the hooks (which tool calls to deny), the MCP server and `decision-journal ask`
(whether a new proposal may start) apply one rule, `docs/agents.md` rule 5: while a decision
is pending for a session or a workspace, that agent waits for it. "The same workspace" means
the same project, or one directory inside the other: an agent in a parent directory can edit
the pending project's files too. A pending file that cannot be read blocks unless it is
readably someone else's (fail closed).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.capture.pending import PendingIssue, PendingStore
from core.gocompat.text import go_trim
from core.record.filters import workspace_matches
from core.record.identity import canonical_workspace_path, project_identity

if TYPE_CHECKING:  # the hooks import this module; they never need the store's code
    from core.store.decisions import DecisionStore


@dataclass(frozen=True, slots=True)
class Blocker:
    """A pending decision (or an unreadable pending file) that blocks this agent."""

    decision_id: str
    problem: str = ""
    damaged: bool = False


def same_place(pending_workspace: str, pending_project: str, workspace: str) -> bool:
    """Same project, or one directory inside the other, as written or with symlinks resolved.

    Resolved too: an agent in a subfolder of the project reached through a symlink
    (`~/src -> /data/src`, macOS's `/tmp -> /private/tmp`) edits the same files. A pending
    decision whose workspace is the filesystem root (refused for new proposals, but a file an
    older version wrote may hold one) holds only agents at the root itself: everything is
    inside '/', and one such file must not stop every agent on the machine.
    """
    if not workspace:
        return False
    caller = project_identity(workspace)
    if pending_project and pending_project == caller.project_id:
        return True
    pending_path = canonical_workspace_path(pending_workspace)
    if is_root(pending_workspace) or is_root(pending_path):
        return is_root(workspace) or is_root(caller.canonical_path)
    return workspace_matches(pending_workspace, workspace) or workspace_matches(
        pending_path, caller.canonical_path
    )


def is_root(path: str) -> bool:
    """Whether the path, as written, is the filesystem root."""
    trimmed = go_trim(path)
    return bool(trimmed) and os.path.normpath(trimmed) in ("/", "//")


def _issue_blocks(issue: PendingIssue, session_id: str, workspace: str) -> bool:
    """A damaged file blocks unless it is readably someone else's: fail closed."""
    if issue.session_id and issue.session_id == session_id:
        return True
    if not (issue.workspace or issue.project_id):
        return True
    return same_place(issue.workspace, issue.project_id, workspace)


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
        or same_place(item.proposal.workspace, item.proposal.project_id, workspace)
    ]
    blockers.extend(
        Blocker(issue.decision_id or os.path.basename(issue.path), damaged=True)
        for issue in listing.issues
        if _issue_blocks(issue, wanted_session, workspace)
    )
    return blockers


def other_pending_here(
    store: DecisionStore, pending: PendingStore, decision_id: str, workspace: str
) -> Blocker | None:
    """The readable pending decision that keeps decision_id from starting in workspace.

    Checked across sessions: a restarted agent (a new session id) must not start a second
    fork while the first still blocks its edits. A decision already recorded is never
    refused (asking again returns its answer), nor is the pending decision itself (a resume).
    """
    if store.exists(decision_id):
        return None
    for blocker in find_blockers(pending, session_id="", workspace=workspace):
        if not blocker.damaged and blocker.decision_id != decision_id:
            return blocker
    return None
