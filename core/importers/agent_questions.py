"""One answered AskUserQuestion question becomes one record, however the journal learns of it.

Why one builder: the hook answers a question in the Decision Journal window and journals it
at once; the Claude Code transcript importer later reads the same question from the session's
transcript. Both build the record here, from the same key (`claude-code:<session>:<tool use
id>`, `#<n>` for later questions of one call), the same project (the working directory the
question was asked in), the same option ids and the same decision kind (the question's header
as a slug, else `agent_question`), so both arrive at one record id. The importer then finds
the window's record and keeps it as it is (see `core.importers.sources.claude_code`).

What differs is only what the journal can vouch for. An answer given in our window is the
human's (`selection: user`, the agent's options `model`, a reason the human typed `user`);
one read from a transcript stays `imported`, because a transcript's answers may come from a
hook or an SDK and the file is editable.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.gocompat.gotime import GoTime
from core.gocompat.text import go_trim
from core.importers.base import RecordItem, Skip
from core.importers.shaping import SourceDecision, SourceOption, kind_slug, record_from_source
from core.record.identity import ProjectIdentity
from core.record.models import DecisionRecord, Provenance, RejectedReason

SOURCE = "claude-code"
"""The key's prefix, and the importer's kind."""
DEFAULT_KIND = "agent_question"
"""The decision kind of a question without a header."""
WINDOW_TAG = "ask-user-question"
"""Tags every question answered in the Decision Journal window."""
NO_REASON = "(no reason given)"
NOT_CHOSEN = "(not chosen; no reason given)"
ALSO_CHOSEN = "(also chosen in a multi-select answer)"


@dataclass(frozen=True, slots=True)
class AnsweredQuestion:
    """One question of an AskUserQuestion call, with the answer it got.

    Args:
        index: the question's position in the call (0 for the first).
        chosen: the listed option answered, or None when `custom` holds the answer.
        custom: free text, or several labels of a multi-select answer joined with ", ".
        also_chosen: listed options that are part of a multi-select `custom` answer.
        amended: listed options the free-text answer builds on (not rejections).
    """

    session_id: str
    tool_use_id: str
    index: int
    question: str
    header: str
    options: tuple[SourceOption, ...]
    identity: ProjectIdentity
    chosen: int | None = None
    custom: str = ""
    also_chosen: tuple[int, ...] = ()
    amended: tuple[int, ...] = ()
    reason: str = ""
    when: GoTime | None = None
    tags: tuple[str, ...] = ()


def question_key(session_id: str, tool_use_id: str, index: int) -> str:
    """The stable key of one question: the record id derives from it."""
    base = f"{SOURCE}:{session_id}:{tool_use_id}"
    return base if index == 0 else f"{base}#{index}"


def question_kind(header: str) -> str:
    return kind_slug(header, DEFAULT_KIND)


def transcript_record(question: AnsweredQuestion) -> RecordItem | Skip:
    """The record as a transcript states it: every field `imported`."""
    key = question_key(question.session_id, question.tool_use_id, question.index)
    return record_from_source(
        SourceDecision(
            importer=SOURCE,
            key=key,
            problem=go_trim(question.question),
            decision_kind=question_kind(question.header),
            options=question.options,
            identity=question.identity,
            chosen=question.chosen,
            custom=question.custom,
            also_chosen=question.also_chosen,
            amended=question.amended if not question.also_chosen else (),
            reason=question.reason,
            when=question.when,
            session_id=question.session_id,
            tags=question.tags,
            evidence_refs=(key,),
        )
    )


def window_record(question: AnsweredQuestion) -> RecordItem | Skip:
    """The same record (same id and kind) as the human answered it in our window.

    The rejections carry runtime placeholders and the record has detector confidence 0: the
    human gave at most one optional reason, and AskUserQuestion reports no material-fork
    confidence, so the record is audit history, never preference evidence.
    """
    built = transcript_record(question)
    if isinstance(built, Skip):
        return built
    record = built.record
    return RecordItem(built.key, _as_answered_in_window(record, question), built.when)


def _as_answered_in_window(record: DecisionRecord, question: AnsweredQuestion) -> DecisionRecord:
    also = {record.options[i].id for i in question.also_chosen if i < len(record.options)}
    amended = {record.options[i].id for i in question.amended if i < len(record.options)}
    reason = go_trim(question.reason)
    header = go_trim(question.header)
    return record.model_copy(
        update={
            "options": [o.model_copy(update={"source": "model"}) for o in record.options],
            "rejected_reasons": [
                RejectedReason(
                    option_id=r.option_id,
                    reason=_placeholder(r, also, amended),
                    source="runtime",
                )
                for r in record.rejected_reasons
            ],
            "selection_reason_raw": reason or NO_REASON,
            "tags": [WINDOW_TAG] + ([header] if header else []),
            "detector_confidence": 0.0,
            "provenance": Provenance(
                options="model",
                selection="user",
                rationale="user" if reason else "runtime",
                summary="runtime",
            ),
        }
    )


def _placeholder(rejected: RejectedReason, also: set[str], amended: set[str]) -> str:
    if rejected.option_id in also:
        return ALSO_CHOSEN
    return rejected.reason if rejected.option_id in amended else NOT_CHOSEN


def answered_in_window(record: DecisionRecord) -> bool:
    """The record was journaled by the hook when the human answered in our window."""
    return WINDOW_TAG in record.tags and record.provenance.selection == "user"
