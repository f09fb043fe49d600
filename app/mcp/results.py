"""Turns records, app replies and core errors into what the agent reads.

Why one module: the same decision can be answered in the window, found already recorded, or
left pending, and the agent must see one shape for all three, with an explicit instruction. Core
errors become `ToolError`s (the model reads them) that name every broken field and the way out.

Agents read English: `summary` and `instruction` are English whatever language the decision was
asked in; the record keeps the reference's Korean sentence (the on-disk format needs it), which
the result carries as `summary_ko`.
"""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver.exceptions import ToolError

from app.mcp.arguments import violations_text
from app.mcp.schemas import DecisionOutcome, RationalesOut, RejectionOut, SelectionOut
from core.capture.machine import (
    Pending,
    outcome_to_result,
    pending_result_message,
)
from core.errors import (
    IpcError,
    JournalError,
    NotFound,
    RemoteError,
    ViolationsError,
    describe,
    wire_kind,
)
from core.journal import Journal
from core.record.models import DecisionRecord
from core.record.origin import is_automatic
from core.record.summary import english_summary, recorded_instruction

NO_APP_REASON = (
    "no Decision Journal window can be shown here (no running app and no display); the human "
    "must answer it in the tray app or with `decision-journal ask` in a terminal"
)
STOP_HINT = (
    " Tell the user that this decision waits for their answer, then stop: do not guess the "
    "choice, and do not edit files until it is answered."
)


def record_outcome(
    record: DecisionRecord, profile_warning: str = "", rule_id: str = ""
) -> DecisionOutcome:
    """The recorded answer, from the canonical record (never from a reconstructed copy)."""
    automatic = is_automatic(record)
    instruction = recorded_instruction(record, profile_warning)
    if automatic:
        instruction = (
            "Answered from the user's preference profile without asking "
            f"(rule {rule_id or 'unknown'}): this kind of decision is set to automatic "
            "answers. The user is told and may overrule it. " + instruction
        )
    return DecisionOutcome(
        status="recorded",
        decision_id=record.id,
        selection=SelectionOut(
            option_id=record.selected_option_id,
            label=record.selected_label(),
            custom=record.custom_selection,
        ),
        rationales=RationalesOut(
            selected=record.selection_reason_raw,
            rejected=[
                RejectionOut(
                    option_id=r.option_id,
                    label=record.option_label(r.option_id),
                    reason=r.reason,
                )
                for r in record.rejected_reasons
            ],
        ),
        summary=english_summary(record),
        summary_ko=record.summary_sentence,
        instruction=instruction,
        profile_warning=profile_warning,
        decided_by="profile" if automatic else "person",
        rule_id=rule_id if automatic else "",
    )


def pending_outcome(pending: Pending) -> DecisionOutcome:
    """A decision left pending here, in the shape of the app's pending reply."""
    return _pending_from_reply(outcome_to_result(pending))


def remote_outcome(result: dict[str, Any], journal: Journal) -> DecisionOutcome:
    """The app's `decision.present` result; a recorded one is re-read from the journal."""
    decision_id = str(result.get("decision_id", ""))
    if result.get("status") == "recorded":
        try:
            record = journal.store.get(decision_id)
        except (JournalError, OSError):
            return _recorded_from_reply(result)
        return record_outcome(
            record, str(result.get("profile_warning", "")), str(result.get("rule_id", ""))
        )
    return _pending_from_reply(result)


def _pending_from_reply(result: dict[str, Any]) -> DecisionOutcome:
    decision_id = str(result.get("decision_id", ""))
    message = str(result.get("message", "")) or pending_result_message(decision_id, "pending")
    return DecisionOutcome(
        status="pending",
        decision_id=decision_id,
        stage=str(result.get("stage", "")),
        selection=_selection_from_reply(result),
        instruction=message + STOP_HINT,
    )


def _selection_from_reply(result: dict[str, Any]) -> SelectionOut | None:
    option_id = str(result.get("selected_option_id", ""))
    custom = str(result.get("custom_selection", ""))
    if not option_id and not custom:
        return None
    return SelectionOut(option_id=option_id, custom=custom)


def _recorded_from_reply(result: dict[str, Any]) -> DecisionOutcome:
    """Used only when the journal cannot be read back: the app's own words, as sent."""
    rejected = [
        RejectionOut(
            option_id=str(r.get("option_id", "")),
            label=str(r.get("label", "")),
            reason=str(r.get("reason", "")),
        )
        for r in result.get("rejected_reasons", [])
        if isinstance(r, dict)
    ]
    return DecisionOutcome(
        status="recorded",
        decision_id=str(result.get("decision_id", "")),
        selection=_selection_from_reply(result),
        rationales=RationalesOut(
            selected=str(result.get("selection_reason", "")), rejected=rejected
        ),
        summary_ko=str(result.get("summary_sentence", "")),
        instruction=_reply_instruction(result),
        profile_warning=str(result.get("profile_warning", "")),
        decided_by="profile" if result.get("decided_by") == "profile" else "person",
        rule_id=str(result.get("rule_id", "")),
    )


def _reply_instruction(result: dict[str, Any]) -> str:
    """The English instruction for a recorded reply the journal could not give back."""
    decision_id = str(result.get("decision_id", ""))
    choice = str(result.get("custom_selection", "")) or str(result.get("selected_option_id", ""))
    return (
        f"Implementation decision recorded: {choice} (id={decision_id}). Continue the "
        "implementation with this choice and do not ask this decision again."
    )


def violations_message(error: ViolationsError) -> str:
    return violations_text(f"the {error.subject}", list(error.violations))


def _resume_hint(decision_id: str) -> str:
    return (
        f'Call present_implementation_decision with only {{"decision_id": "{decision_id}"}} '
        "to resume it"
    )


def tool_error_for(error: BaseException) -> ToolError:
    """A message the model can act on, as `describe` words the error (its field, limit and
    runbook entry), whether the error arose here or came from the app over the socket."""
    if isinstance(error, ViolationsError):
        return ToolError(violations_message(error))
    if isinstance(error, IpcError) and not isinstance(error, RemoteError):
        return ToolError(f"could not talk to the Decision Journal app: {error}")
    described = describe(error)
    kind: type[BaseException] | None = type(error)
    if isinstance(error, RemoteError):
        kind, details = wire_kind(error.code), error.data
    else:
        details = error.details() if isinstance(error, JournalError) else {}
    pending_id = details.get("pending_id")
    if isinstance(pending_id, str):
        return ToolError(f"{described}. {_resume_hint(pending_id)} first.")
    if kind is not None and issubclass(kind, NotFound):
        return ToolError(f"{described}; it is neither pending nor recorded in this journal.")
    if kind is None:  # a code no core error declares: the app's own refusal
        return ToolError(f"the Decision Journal app refused the request: {described}")
    return ToolError(str(described))
