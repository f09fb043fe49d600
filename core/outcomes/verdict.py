"""The outcome of an answer against the asker's recommendation: accept, amend or redirect.

Why derived, never stored: the outcome follows from the options, the recommendation and the
selection already in a record, so computing it on read keeps it right after a correction and
adds nothing to the record format. The rules are the owner-decision ledger's (seed 004):
choosing the recommended option accepts it; an answer that starts from the recommended option's
label and adds to it (an "Other" text such as "Use a queue, capped at three retries") amends it;
anything else redirects. Without a recommendation, or without an answer, there is no outcome
("out of scoring", not "none").
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from core.gocompat.text import collapse_spaces, go_trim
from core.record.shape import RecordShape, option_label_of

Verdict = Literal["accept", "amend", "redirect"]
ACCEPT: Verdict = "accept"
AMEND: Verdict = "amend"
REDIRECT: Verdict = "redirect"
OUTCOMES: tuple[Verdict, ...] = (ACCEPT, AMEND, REDIRECT)

_BRACKETED = re.compile(r"\s*[(\[]([^()\[\]]*)[)\]]")
_NEGATED = re.compile(r"\bnot\s+recommend", re.IGNORECASE)
_PREFIX = re.compile(r"^\s*recommended\s*(?::|\s[-\u2013\u2014])\s*", re.IGNORECASE)
_SUFFIX = re.compile(r"\s*(?::|\s[-\u2013\u2014])\s*recommended\s*$", re.IGNORECASE)
_NEGATION_BEFORE = re.compile(
    r"\b(?:not|no|don't|do not|never|instead of|rather than|without|avoid)\W+(?:\w+\W+){0,2}$"
)


def _marker_spans(label: str) -> list[tuple[int, int]]:
    """Where the recommendation markers are, by the ledger's one test (`isRecommendedLabel`)."""
    spans = [
        m.span()
        for m in _BRACKETED.finditer(label)
        if "recommend" in m.group(1).casefold() and not _NEGATED.search(m.group(1))
    ]
    if not _NEGATED.search(label):
        for pattern in (_PREFIX, _SUFFIX):
            match = pattern.search(label)
            if match:
                spans.append(match.span())
    return spans


def is_recommended_label(label: str) -> bool:
    """True for "X (Recommended)", "Recommended: X", "X - recommended"; never "not recommended"."""
    return bool(_marker_spans(label))


def strip_recommended(label: str) -> str:
    """The label without its recommendation marker, as the ledger stores `recommended`."""
    text = label
    for start, end in sorted(_marker_spans(label), reverse=True):
        text = text[:start] + " " + text[end:]
    return collapse_spaces(text)


def _norm(text: str) -> str:
    return collapse_spaces(strip_recommended(text)).casefold().strip(" .;,:!")


def _extends(answer: str, recommended: str) -> bool:
    """The answer names the recommended option and is not negating it."""
    if not recommended:
        return False
    if answer.startswith(recommended):
        return True
    for match in re.finditer(r"(?<!\w)" + re.escape(recommended) + r"(?!\w)", answer):
        if not _NEGATION_BEFORE.search(answer[: match.start()]):
            return True
    return False


def extends_label(answer: str, label: str) -> bool:
    """Whether free text builds on an option (names it, not negated) without being it."""
    wanted, given = _norm(label), _norm(answer)
    return given != wanted and _extends(given, wanted)


def classify_answer(
    answer: str | Sequence[str] | None, options: Sequence[str], recommended: str | None
) -> Verdict | None:
    """The outcome of one answer (a label, free text, or several labels of a multi-select)."""
    if recommended is None or not go_trim(recommended):
        return None
    parts = [answer] if isinstance(answer, str) else list(answer or [])
    parts = [p for p in parts if go_trim(p)]
    if not parts:
        return None
    wanted = _norm(recommended)
    labels = {_norm(option) for option in options}
    normalized = [_norm(part) for part in parts]
    if normalized == [wanted]:
        return ACCEPT
    if len(normalized) == 1 and normalized[0] in labels:
        return REDIRECT
    if any(_extends(part, wanted) for part in normalized):
        return AMEND
    return REDIRECT


def record_outcome(record: RecordShape) -> Verdict | None:
    """The outcome of a stored record, or None when it has no recommendation."""
    recommended = record.recommended_option_id
    if not recommended:
        return None
    if record.selected_option_id:
        return ACCEPT if record.selected_option_id == recommended else REDIRECT
    labels = [option.label for option in record.options]
    return classify_answer(record.custom_selection, labels, option_label_of(record, recommended))


@dataclass(frozen=True, slots=True)
class KindAcceptance:
    """How often the user took the agents' recommendation for one decision kind."""

    decision_kind: str
    accept: int
    amend: int
    redirect: int

    @property
    def total(self) -> int:
        return self.accept + self.amend + self.redirect

    @property
    def accept_rate(self) -> float:
        return self.accept / self.total if self.total else 0.0


def acceptance_by_kind(
    records: Iterable[RecordShape], *, include_imported: bool = True
) -> list[KindAcceptance]:
    """Per kind, the outcomes of active records that had a recommendation; most asked first.

    `include_imported=False` keeps only records whose selection the user made or confirmed.
    """
    counts: dict[str, Counter[Verdict]] = {}
    for record in records:
        if record.is_deleted:
            continue
        if not include_imported and record.provenance.selection.lower() != "user":
            continue
        outcome = record_outcome(record)
        if outcome is not None:
            counts.setdefault(record.decision_kind, Counter())[outcome] += 1
    rows = [KindAcceptance(kind, c[ACCEPT], c[AMEND], c[REDIRECT]) for kind, c in counts.items()]
    rows.sort(key=lambda row: (-row.total, row.decision_kind))
    return rows
