"""The reason the agent reads when a pending decision blocks its tool call.

Why apart from `gating`: the hook's quick path writes this text from the pending index alone
(`app.hooks.pending_answer`), so it must not load the pending store, pydantic or the record models;
the full path writes the same text from the pending files. Either way it names the decision,
what the human does, the resume call in the client's own spelling and the tools that still
run.
"""

from __future__ import annotations

from core.messages import runbook

TYPE_CHECKING = False  # `typing` stays out of the quick path (core.bulk.named_tuple)
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Protocol

    from app.hooks.clients import ClientHook

    class Blocking(Protocol):
        """A pending decision that blocks the caller: a `Blocker` of
        `core.capture.workspace_pending`, or an entry of `core.capture.pending_index`."""

        @property
        def decision_id(self) -> str: ...
        @property
        def problem(self) -> str: ...
        @property
        def damaged(self) -> bool: ...


RUNBOOK = runbook.reference("decision-pending")


def deny_reason(blockers: Sequence[Blocking], tool_name: str, hook: ClientHook) -> str:
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
