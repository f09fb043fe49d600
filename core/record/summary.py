"""The decision's summary sentence: the reference's Korean template, stored, and an English
rendering of the same facts for display (never stored, so records stay byte-compatible).

Agents read English whichever way they asked (the MCP tool or `decision-journal ask`), so the
instruction that goes with a recorded answer is written here once, in English."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.gocompat.text import go_trim
from core.messages.language import KOREAN
from core.record.origin import is_automatic
from core.record.shape import option_label_of

if TYPE_CHECKING:  # annotations only
    from core.record.shape import RecordShape

REASON_MISSING = "reason not provided"
ALTERNATIVE_LABEL = "Alternatives not recorded in the source"
"""The option an import adds when its source named only the chosen approach (a record needs
two); the English summary does not list it as a rejected alternative."""


def is_stand_in_label(label: str) -> bool:
    """Whether an option's label is the importers' stand-in (`ALTERNATIVE_LABEL`): the one
    rule the English summary and the Markdown exports (`core.exporters.stand_in`) leave it
    out by."""
    return go_trim(label) == ALTERNATIVE_LABEL


def _rejected_parts(
    record: RecordShape, *, without_stand_in: bool = False
) -> list[tuple[str, str]]:
    """(label, reason) of each rejection; `without_stand_in` leaves out the importers' stand-in
    for alternatives the source did not record (the stored Korean sentence keeps it)."""
    parts = []
    for rejection in record.rejected_reasons:
        label = go_trim(option_label_of(record, rejection.option_id)) or rejection.option_id
        if without_stand_in and is_stand_in_label(label):
            continue
        parts.append((label, go_trim(rejection.reason) or REASON_MISSING))
    return parts


def korean_summary(record: RecordShape) -> str:
    """The reference's template, plus the rejected alternatives when there are any."""
    selected = record.selected_label()
    if not selected:
        return ""
    reason = go_trim(record.selection_reason_raw) or REASON_MISSING
    sentence = (
        f"{record.problem} 문제를 해결할 때 이 사용자는 {selected} 결정을 {reason} 때문에 했다."
    )
    rejected = _rejected_parts(record)
    if rejected:
        joined = "; ".join(f"{label}: {why}" for label, why in rejected)
        sentence += f" 다른 방안은 {joined} 때문에 선택하지 않았다."
    return sentence


def english_summary(record: RecordShape) -> str:
    """The same facts in English; a reason that ends its own sentence gets no second full
    stop ("…at no extra cost." never becomes "…cost.."), and an option named by a sentence
    (an imported ADR's "We will use Python 3.") loses its full stop inside this one."""
    selected = record.selected_label()
    if not selected:
        return ""
    reason = go_trim(record.selection_reason_raw) or REASON_MISSING
    chose = _clause(go_trim(selected))
    who = "the user's preference profile" if is_automatic(record) else "the user"
    sentence = f"To solve “{record.problem}”, {who} chose {chose} because {_ended(reason)}"
    rejected = _rejected_parts(record, without_stand_in=True)
    if rejected:
        joined = "; ".join(f"{_clause(label)}, because {_clause(why)}" for label, why in rejected)
        sentence += f" Rejected: {_ended(joined)}"
    return sentence


def summary_in(record: RecordShape, language: str) -> str:
    """The summary a person reading `language` sees: the stored Korean sentence (or, before
    the store wrote one, the sentence it will write) for KOREAN, the English rendering for any
    other (see `core.messages.language`)."""
    if language == KOREAN:
        return go_trim(record.summary_sentence) or korean_summary(record)
    return english_summary(record)


_TERMINAL = ("...", "…", "!", "?")


def _clause(text: str) -> str:
    """A reason inside the sentence: its own closing full stops dropped, an ellipsis kept."""
    if text.endswith(_TERMINAL):
        return text
    return text.rstrip(".").rstrip() or text


def _ended(text: str) -> str:
    """A reason that ends the sentence: one full stop, unless it ends in its own way."""
    clause = _clause(text)
    return clause if clause.endswith(_TERMINAL) else clause + "."


def recorded_instruction(record: RecordShape, profile_warning: str = "") -> str:
    """What an agent does with a recorded answer, in English, with its English summary."""
    text = (
        f"Implementation decision recorded: {record.selected_label()} (id={record.id}). "
        "Continue the implementation with this choice and do not ask this decision again."
    )
    summary = english_summary(record)
    if summary:
        text += f" Summary: {summary}"
    if profile_warning:
        text += f" Preference profile warning: {go_trim(profile_warning).rstrip('.')}."
    return text
