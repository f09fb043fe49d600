"""Journals each AskUserQuestion question answered in the window as a decision record.

The record itself is built by `core.importers.agent_questions`, the builder the Claude Code
transcript importer uses too, so a later import of the same session finds this record (same
id, same kind) and keeps it. The window's answer is read as the transcript will show it: the
text Claude Code receives (`answer_text`) is matched to the options exactly as the importer
matches a transcript's answer.

Provenance, and why it is never preference evidence:
- options come from the agent (`model`); the selection is the human's (`user`);
- the store requires a selection reason and a reason for every option not chosen. The human
  gave at most one optional reason, so a missing one is stored as "(no reason given)" and every
  rejection as a runtime placeholder, with rationale provenance `runtime` (or `user` when the
  human typed a reason) and each rejection's source `runtime`;
- `detector_confidence` is 0: AskUserQuestion reports no material-fork confidence, and the
  profile only counts records at 0.80 or above. The record is audit history, not evidence.
- decision_kind is the question's header as a slug (`agent_question` without one), and the
  tag `ask-user-question` marks every record answered in the window.
"""

from __future__ import annotations

from core.gocompat.text import go_trim
from core.importers.agent_questions import AnsweredQuestion, window_record
from core.importers.answers import answer_parts, selection
from core.importers.base import Skip
from core.importers.shaping import SourceOption
from core.ipc.questions import Answer, Question
from core.outcomes.verdict import extends_label, is_recommended_label
from core.record.identity import project_identity
from core.record.models import DecisionRecord


def answer_text(answer: Answer) -> str:
    """What Claude Code receives: the label, the Other text, or labels joined with ", "."""
    parts = list(answer.labels)
    if go_trim(answer.other):
        parts.append(go_trim(answer.other))
    return ", ".join(parts)


def record_from_answer(
    question: Question,
    answer: Answer,
    *,
    index: int,
    cwd: str,
    session_id: str,
    tool_use_id: str,
) -> DecisionRecord:
    """The record of one answered question; the same question always gets the same id.

    Args:
        index: the question's position in the AskUserQuestion call.
        cwd: the working directory the question was asked in (the event's `cwd`, as the
            transcript records it), which names the record's project.

    Raises:
        ValueError: the question cannot be a record (the reason says why).
    """
    labels = [option.label for option in question.options]
    parts = answer_parts(answer_text(answer), labels, question.multi_select)
    chosen, custom, also = selection(parts, labels)
    amended = tuple(i for i, label in enumerate(labels) if custom and extends_label(custom, label))
    built = window_record(
        AnsweredQuestion(
            session_id=session_id,
            tool_use_id=tool_use_id,
            index=index,
            question=question.question,
            header=question.header,
            options=tuple(
                SourceOption(o.label, o.description, recommended=is_recommended_label(o.label))
                for o in question.options
            ),
            identity=project_identity(cwd),
            chosen=chosen,
            custom=custom,
            also_chosen=also,
            amended=amended,
            reason=answer.reason,
        )
    )
    if isinstance(built, Skip):
        raise ValueError(f"question {question.question[:80]!r} not journaled: {built.reason}")
    return built.record
