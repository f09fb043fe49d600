"""The rules of an agent's proposal, in the reference's order, each violation naming its field.

Why every violation at once: an agent fixes a rejected proposal in one retry only if it learns
everything that is wrong. Every limit and its wording is the record's (`core.record.fields`);
the draft they judge is read by `core.capture.proposal_draft`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from core.capture.proposal_draft import (
    LISTS,
    DraftOption,
    ProposalDraft,
    Violations,
    redacted_draft,
)
from core.errors import ProposalInvalid, Violation
from core.gocompat.text import go_lower, go_trim, utf8_len
from core.record.fields import id_rule, item_rule, number_rule, risk_problem, rule
from core.record.identity import canonical_workspace_path
from core.record.models import RISK_LEVELS, Option
from core.record.redaction import looks_sensitive
from core.record.validation import is_valid_decision_id, is_valid_option_id

_SENSITIVE = (
    "must not contain sensitive material (it looks like a secret; identifiers are refused, "
    "never rewritten)"
)


def order_violations(orders: Sequence[int]) -> list[Violation]:
    """The rule for the options of a decision that is new: no two share a position.

    Positions are read as every write normalizes them (`order` 0 or less becomes the option's
    1-based place in the list), so `[0, 1]` repeats position 1. The window, the exports and
    the history show options by position, and two at one place read as if one were missing.
    Stored records are not held to it (`core.record.validation` leaves `order` alone), so a record
    some older tool wrote with repeated orders stays readable.
    """
    found: list[Violation] = []
    first: dict[int, int] = {}
    for index, order in enumerate(orders):
        position = order if order > 0 else index + 1
        if position in first:
            found.append(
                Violation(
                    f"options[{index}].order",
                    f"position {position} is already options[{first[position]}]'s; "
                    "each option needs its own",
                )
            )
        first.setdefault(position, index)
    return found


def check_new_options(options: Sequence[Option]) -> None:
    """Refuses a new decision's options when two share a position.

    For every path that writes a decision for the first time: capture (`to_record`),
    imports and generated data.

    Raises:
        ProposalInvalid: one violation per option at a position an earlier one holds.
    """
    violations = order_violations([option.order for option in options])
    if violations:
        raise ProposalInvalid(violations)


def find_proposal_problems(draft: ProposalDraft, found: Violations) -> None:
    _check_required(draft, found)
    for name in ("problem", "decision_kind", "header"):
        found.size(name, getattr(draft, name), rule(name))
    if draft.risk_level not in RISK_LEVELS:
        found.add("risk_level", risk_problem(draft.risk_level))
    _check_confidence(draft, found)
    _check_option_count(draft, found)
    for name in LISTS:
        each = item_rule(name)
        for index, item in enumerate(getattr(draft, name)):
            found.size(f"{name}[{index}]", item, each)
    for name in ("decision_kind", "task_fingerprint", "evidence_fingerprint"):
        find_identifier_problems(name, getattr(draft, name), found)
    _check_options(draft, found)
    _check_recommendation(draft, found)


def _check_required(draft: ProposalDraft, found: Violations) -> None:
    for name in ("problem", "decision_kind"):
        if not getattr(draft, name):
            verb = "must not be blank" if name in draft.present else "is required"
            found.add(name, verb)


def _check_confidence(draft: ProposalDraft, found: Violations) -> None:
    value, limit = draft.confidence, number_rule("detector_confidence")
    if value is None:
        _if_left_out(draft, found, "detector_confidence", f"a number from {limit.span()}")
        return
    if not _in_unit_range(value):
        found.add("detector_confidence", f"must be a finite number from 0 to 1 (got {value})")
    elif value < limit.least:
        found.add(
            "detector_confidence",
            f"is below {limit.least} (got {float(value):.2f}): the decision "
            "tool is reserved for material forks",
        )


def _if_left_out(draft: ProposalDraft, found: Violations, name: str, what: str) -> None:
    """A field with no usable value is required, saying `what` it needs, when it was left out
    (one given with the wrong type already has its violation)."""
    if name not in draft.present:
        found.add(name, f"is required: {what}")


def _in_unit_range(value: int | float) -> bool:
    """0 <= value <= 1 without converting huge ints to float (which would overflow)."""
    if isinstance(value, int):
        return 0 <= value <= 1
    return math.isfinite(value) and 0.0 <= value <= 1.0


def _check_option_count(draft: ProposalDraft, found: Violations) -> None:
    count, limit = draft.option_count, rule("options")
    if count is None:
        _if_left_out(draft, found, "options", f"give {limit.span()}")
        return
    if not limit.least <= count <= limit.most:
        found.add("options", f"must have {limit.span()} (got {count})", limit.most)


def find_identifier_problems(name: str, value: str, found: Violations) -> None:
    found.size(name, value, rule("identifier"))
    if value and looks_sensitive(value):
        found.add(name, _SENSITIVE)


def _check_options(draft: ProposalDraft, found: Violations) -> None:
    ids: dict[str, int] = {}
    labels: dict[str, int] = {}
    for option in draft.options:
        _check_option_sizes(option, found)
        _check_option_content(option, found)
        where = option.where
        if option.id:
            if option.id in ids:
                found.add(f"{where}.id", f"duplicates options[{ids[option.id]}].id")
            ids.setdefault(option.id, option.index)
        key = go_lower(option.label)
        if key:
            if key in labels:
                found.add(
                    f"{where}.label",
                    f"duplicates options[{labels[key]}].label (labels compare case-insensitively)",
                )
            labels.setdefault(key, option.index)


def _check_option_sizes(option: DraftOption, found: Violations) -> None:
    where = option.where
    for name in ("id", "label", "description"):
        found.size(f"{where}.{name}", getattr(option, name), rule(f"option.{name}"))
    for name in ("pros", "cons"):
        for index, item in enumerate(getattr(option, name)):
            found.size(f"{where}.{name}[{index}]", item, item_rule("option.details"))


def _check_option_content(option: DraftOption, found: Violations) -> None:
    where = option.where
    if not option.id:
        found.add(f"{where}.id", "is required")
    elif rule("option.id").fits(utf8_len(option.id)) and not is_valid_option_id(option.id):
        found.add(
            f"{where}.id",
            f"is not a valid option id ({id_rule('option.id')}; not __custom__): {option.id!r}",
        )
    elif looks_sensitive(option.id):
        found.add(f"{where}.id", _SENSITIVE)
    if not option.label:
        found.add(f"{where}.label", "is required")
    if not option.description:
        found.add(f"{where}.description", "is required: describe the approach objectively")


def _check_recommendation(draft: ProposalDraft, found: Violations) -> None:
    """Skipped when a flag had the wrong type: its type violation already says what to fix."""
    if draft.option_count is None or draft.recommended_mistyped:
        return
    flagged = [option for option in draft.options if option.recommended]
    if len(flagged) != 1:
        found.add("options", f"exactly one option must be recommended (got {len(flagged)})")
        return
    wanted = draft.recommended_option_id
    if wanted and wanted != flagged[0].id:
        found.add(
            "recommended_option_id",
            f"must name the option flagged as recommended ({flagged[0].id!r}), got {wanted!r}",
        )


def find_caller_problems(found: Violations, *, session_id: str, workspace: str, agent: str) -> None:
    """Session and workspace end up in the record: refuse bad ones now, not after the answers."""
    if not go_trim(session_id):
        found.add("session_id", "is required")
    find_identifier_problems("session_id", go_trim(session_id), found)
    found.size("workspace", go_trim(workspace), rule("workspace"))
    if "\x00" in workspace:
        found.add("workspace", "must not contain a NUL character")
    elif problem := workspace_problem(go_trim(workspace)):
        found.add("workspace", problem)
    found.size("agent", agent, rule("identifier"))


def workspace_problem(workspace: str) -> str:
    """Why an agent's project root cannot be one, or "" when it can (an empty one is allowed).

    Why absolute: a relative path means the app's working directory to the app and the
    agent's to the agent, so the one-pending-per-workspace rule would compare places that do
    not exist. Why not the root: every directory is inside it, so one pending decision there
    would hold every agent in every project on the machine.
    """
    if not workspace:
        return ""
    if not workspace.startswith("/"):
        return f"must be an absolute path (the agent's project root), got {workspace[:80]!r}"
    if canonical_workspace_path(workspace) in ("/", "//"):
        return "must name a project's directory, not the filesystem root '/'"
    return ""


def find_decision_id_problems(value: str, found: Violations, *, what: str) -> None:
    if not is_valid_decision_id(value):
        found.add("decision_id", f"invalid {what} {value[:80]!r}: {id_rule('id')}, without '..'")
    elif looks_sensitive(value):
        found.add("decision_id", _SENSITIVE)


def find_redaction_problems(draft: ProposalDraft, found: Violations) -> None:
    """The pending file keeps redacted text; it must still validate, or resuming never could."""
    redacted = redacted_draft(draft)
    if redacted == draft:
        return
    after = Violations()
    find_proposal_problems(redacted, after)
    for violation in after.items:
        found.add(violation.field, f"after secret redaction, {violation.message}", violation.limit)
