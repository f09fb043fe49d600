"""Outcome signals: CI result, acceptance, eval score and notes reported after a decision.

Why a separate append-only log and not a record edit: a record is the human's reasoning at the
fork, with a revision history the human controls. What happened afterwards is evidence about
that choice, reported by tools and agents; it must never rewrite the record, and it must never
create or remove preference rules. It only feeds the per-rule figures shown beside them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core import limits
from core.errors import InvalidDecision
from core.gocompat.gotime import GoTime
from core.gocompat.text import go_trim, utf8_len
from core.messages.wording import too_large
from core.outcomes.reward import compute_reward
from core.record.redaction import redact_text
from core.record.validation import check_decision_id
from core.store.append_log import AppendLog

if TYPE_CHECKING:
    from core.journal import Journal

OUTCOMES_DIR = "outcomes"
SIGNALS_FILE = "signals.ndjson"
CI_VALUES = ("pass", "fail")
OUTCOME_VALUES = ("", "success", "failure", "partial", "abandoned")
SOURCE_MAX = 64


@dataclass(frozen=True, slots=True)
class OutcomeSignal:
    """One report about one decision. Absent signals are None, never a default value."""

    decision_id: str
    at: GoTime
    ci: str | None = None
    accepted: bool | None = None
    eval_score: float | None = None
    outcome: str = ""
    note: str = ""
    source: str = "cli"
    key: str = ""

    @property
    def reward(self) -> float | None:
        return compute_reward(eval_score=self.eval_score, accepted=self.accepted, ci=self.ci)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"v": 1, "decision_id": self.decision_id, "at": self.at.format()}
        for name in ("ci", "accepted", "eval_score"):
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        for name in ("outcome", "note", "source", "key"):
            if getattr(self, name):
                out[name] = getattr(self, name)
        return out


def make_signal(
    decision_id: str,
    *,
    at: GoTime | None = None,
    ci: str | None = None,
    accepted: bool | None = None,
    eval_score: float | None = None,
    outcome: str = "",
    note: str = "",
    source: str = "cli",
    key: str = "",
) -> OutcomeSignal:
    """A validated signal with its note redacted.

    Raises:
        InvalidDecision: no signal at all, an unknown CI value or outcome, an eval score outside
            [0, 1], or a note over the reason limit; the field is named.
    """
    decision_id = go_trim(decision_id)
    check_decision_id(decision_id)
    if ci is not None and ci not in CI_VALUES:
        raise InvalidDecision(f"ci must be pass or fail, got {ci!r}", field="ci")
    if eval_score is not None and not (math.isfinite(eval_score) and 0.0 <= eval_score <= 1.0):
        raise InvalidDecision(
            f"eval score must be a number from 0 to 1, got {eval_score}", field="eval"
        )
    if outcome not in OUTCOME_VALUES:
        raise InvalidDecision(
            f"outcome must be success, failure, partial or abandoned, got {outcome!r}",
            field="outcome",
        )
    note = go_trim(note)
    if utf8_len(note) > limits.REASON_MAX:
        raise InvalidDecision(
            f"outcome note {too_large(utf8_len(note), limits.REASON_MAX)}",
            field="note",
            limit=limits.REASON_MAX,
        )
    if ci is None and accepted is None and eval_score is None and not note and not outcome:
        raise InvalidDecision(
            "an outcome needs at least one of --ci, --accepted, --eval or --note", field="signals"
        )
    if not go_trim(source) or utf8_len(source) > SOURCE_MAX:
        raise InvalidDecision("outcome source must be 1 to 64 bytes", field="source")
    return OutcomeSignal(
        decision_id=decision_id,
        at=at or GoTime.now(),
        ci=ci,
        accepted=accepted,
        eval_score=None if eval_score is None else float(eval_score),
        outcome=outcome,
        note=redact_text(note)[0],
        source=go_trim(source),
        key=key,
    )


def signal_from_dict(value: dict[str, Any]) -> OutcomeSignal | None:
    """A stored line back into a signal; None for a line that is not a valid signal."""
    try:
        eval_score = value.get("eval_score")
        accepted = value.get("accepted")
        if eval_score is not None and (
            isinstance(eval_score, bool) or not isinstance(eval_score, int | float)
        ):
            return None
        if accepted is not None and not isinstance(accepted, bool):
            return None
        return make_signal(
            str(value["decision_id"]),
            at=GoTime.parse(str(value["at"])),
            ci=value.get("ci"),
            accepted=accepted,
            eval_score=None if eval_score is None else float(eval_score),
            outcome=str(value.get("outcome", "")),
            note=str(value.get("note", "")),
            source=str(value.get("source", "cli")),
            key=str(value.get("key", "")),
        )
    except (KeyError, ValueError, TypeError):
        return None


@dataclass(slots=True)
class SignalsRead:
    signals: list[OutcomeSignal] = field(default_factory=list)
    unreadable: int = 0


class OutcomeLog:
    """`<journal>/outcomes/signals.ndjson`, append-only; readers skip torn or invalid lines."""

    def __init__(self, journal_root: Path) -> None:
        self.log = AppendLog(journal_root, Path(journal_root) / OUTCOMES_DIR / SIGNALS_FILE)

    def append(self, signals: Iterable[OutcomeSignal]) -> int:
        return self.log.append(s.to_dict() for s in signals)

    def read(self) -> SignalsRead:
        raw = self.log.read()
        result = SignalsRead(unreadable=len(raw.torn))
        for entry in raw.entries:
            signal = signal_from_dict(entry)
            if signal is None:
                result.unreadable += 1
            else:
                result.signals.append(signal)
        return result


def report_outcome(
    journal: Journal,
    decision_id: str,
    *,
    ci: str | None = None,
    accepted: bool | None = None,
    eval_score: float | None = None,
    note: str = "",
    source: str = "cli",
) -> OutcomeSignal:
    """Appends one signal for an existing decision; the record itself is never touched.

    This is what the CLI `outcome` command and the MCP `report_outcome` tool call.

    Raises:
        NotFound: the decision does not exist.
        InvalidDecision: see `make_signal`.
    """
    signal = make_signal(
        decision_id, ci=ci, accepted=accepted, eval_score=eval_score, note=note, source=source
    )
    journal.store.get(signal.decision_id)
    OutcomeLog(journal.root).append([signal])
    return signal


@dataclass(frozen=True, slots=True)
class DecisionSignals:
    """The latest value of each signal for one decision, and its reward."""

    decision_id: str
    ci: str | None
    accepted: bool | None
    eval_score: float | None
    outcome: str
    reports: int
    last_at: GoTime

    @property
    def reward(self) -> float | None:
        return compute_reward(eval_score=self.eval_score, accepted=self.accepted, ci=self.ci)


def latest_by_decision(signals: Iterable[OutcomeSignal]) -> dict[str, DecisionSignals]:
    """Per decision, each signal's latest reported value (a later CI pass replaces a fail)."""
    ordered = sorted(enumerate(signals), key=lambda pair: (pair[1].at.unix_ns, pair[0]))
    merged: dict[str, DecisionSignals] = {}
    for _, signal in ordered:
        before = merged.get(signal.decision_id)
        merged[signal.decision_id] = DecisionSignals(
            decision_id=signal.decision_id,
            ci=signal.ci if signal.ci is not None else (before.ci if before else None),
            accepted=signal.accepted
            if signal.accepted is not None
            else (before.accepted if before else None),
            eval_score=signal.eval_score
            if signal.eval_score is not None
            else (before.eval_score if before else None),
            outcome=signal.outcome or (before.outcome if before else ""),
            reports=(before.reports if before else 0) + 1,
            last_at=signal.at,
        )
    return merged
