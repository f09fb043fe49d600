"""Journals each answered AskUserQuestion question as a decision record.

Provenance, and why it is never preference evidence:
- options come from the agent (`model`); the selection is the human's (`user`);
- the store requires a selection reason and a reason for every option not chosen. The human
  gave at most one optional reason, so a missing one is stored as "(no reason given)" and every
  rejection as a runtime placeholder, with rationale provenance `runtime` (or `user` when the
  human typed a reason) and each rejection's source `runtime`;
- `detector_confidence` is 0: AskUserQuestion reports no material-fork confidence, and the
  profile only counts records at 0.80 or above. The record is audit history, not evidence.
- decision_kind `agent-question` and tag `ask-user-question` make these easy to filter.
"""

from __future__ import annotations

import re

from app.hooks.questions_wire import Answer, Question
from core import limits
from core.identity import decision_id, evidence_fingerprint, project_identity, task_fingerprint
from core.models import (
    SCHEMA_VERSION,
    STATUS_COMPLETED,
    DecisionRecord,
    Option,
    Provenance,
    RejectedReason,
)
from core.text import equal_fold, go_trim

KIND = "agent-question"
TAG = "ask-user-question"
NO_REASON = "(no reason given)"
NOT_CHOSEN = "(not chosen; no reason given)"
ALSO_CHOSEN = "(also chosen in a multi-select answer)"
_SLUG = re.compile(r"[^a-z0-9]+")


def option_ids(question: Question) -> list[str]:
    """Readable, unique ids from the labels (`use-sqlite`), `option-N` when a label has none."""
    ids: list[str] = []
    for number, option in enumerate(question.options, start=1):
        base = _SLUG.sub("-", option.label.lower()).strip("-")[:64] or f"option-{number}"
        candidate, suffix = base, 2
        while candidate in ids:
            candidate, suffix = f"{base}-{suffix}", suffix + 1
        ids.append(candidate)
    return ids


def answer_text(answer: Answer) -> str:
    """What Claude Code receives: the label, the Other text, or labels joined with ", "."""
    parts = list(answer.labels)
    if go_trim(answer.other):
        parts.append(go_trim(answer.other))
    return ", ".join(parts)


def _clip_bytes(text: str, limit: int) -> str:
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    return data[: limit - 3].decode("utf-8", "ignore") + "…"


def build_record(
    question: Question,
    answer: Answer,
    *,
    workspace: str,
    session_id: str,
    tool_use_id: str,
) -> DecisionRecord:
    """The record of one answered question; its id is stable for one tool call."""
    identity = project_identity(workspace)
    ids = option_ids(question)
    options = [
        Option(
            id=option_id,
            label=option.label,
            description=option.description,
            order=order,
            source="model",
        )
        for order, (option_id, option) in enumerate(zip(ids, question.options, strict=True), 1)
    ]
    selected, custom = _selection(answer, options)
    chosen_labels = set(answer.labels)
    rejected = [
        RejectedReason(
            option_id=option.id,
            reason=ALSO_CHOSEN if option.label in chosen_labels else NOT_CHOSEN,
            source="runtime",
        )
        for option in options
        if option.id != selected
    ]
    reason = go_trim(answer.reason)
    task_fp = task_fingerprint(f"{session_id}\x00{tool_use_id}", question.question)
    evidence_fp = evidence_fingerprint(options, [])  # type: ignore[arg-type]
    return DecisionRecord(
        schema_version=SCHEMA_VERSION,
        id=decision_id(
            project_id=identity.project_id,
            task_fp=task_fp,
            evidence_fp=evidence_fp,
            problem=question.question,
            options=options,  # type: ignore[arg-type]
        ),
        session_id=session_id,
        project_id=identity.project_id,
        project_alias=identity.alias,
        workspace=identity.workspace,
        workspace_hash=identity.workspace_hash,
        decision_kind=KIND,
        tags=[TAG] + ([go_trim(question.header)] if go_trim(question.header) else []),
        problem=question.question,
        task_fingerprint=task_fp,
        evidence_fingerprint=evidence_fp,
        options=options,
        selected_option_id=selected,
        custom_selection=custom,
        selection_reason_raw=reason or NO_REASON,
        rejected_reasons=rejected,
        detector_confidence=0.0,
        status=STATUS_COMPLETED,
        provenance=Provenance(
            options="model",
            selection="user",
            rationale="user" if reason else "runtime",
            summary="runtime",
        ),
    )


def _selection(answer: Answer, options: list[Option]) -> tuple[str, str]:
    """(selected option id, custom text): one listed label, or Other text matching a label,
    selects that option; anything else (several labels, free text) is a custom selection."""
    other = go_trim(answer.other)
    if len(answer.labels) == 1 and not other:
        return _id_of(answer.labels[0], options), ""
    if not answer.labels and other:
        for option in options:
            if equal_fold(other, option.label):
                return option.id, ""
    return "", _clip_bytes(answer_text(answer), limits.CUSTOM_SELECTION_MAX)


def _id_of(label: str, options: list[Option]) -> str:
    return next(option.id for option in options if option.label == label)
