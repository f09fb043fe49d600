"""The decider's own append-only log, `decider/ledger.ndjson`: predictions and what became of them.

Why a log of its own and not record fields: a KernForge record has no field for "the profile
predicted this" or "the profile answered this", and an unknown field would make the record
invalid there. The record keeps what KernForge round-trips (an automatic answer's selection and
rationale have `runtime` provenance, which also keeps it out of the profile's evidence); the
rule, the strength and the scoring live here, one JSON line per event:

- `prediction`: before the person answers, which option which rule expected, and how strongly;
- `scored`: the person answered a predicted decision: `agree`, `amend` or `overrule`;
- `automatic`: the profile answered for the person (never evidence, never scored);
- `overruled`: the person corrected an automatic answer (counts toward demotion).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from core.decider.policy import DECIDER_DIR
from core.store.append_log import AppendLog

LEDGER_FILE = "ledger.ndjson"

EventType = Literal["prediction", "scored", "automatic", "overruled"]
EVENT_TYPES: tuple[EventType, ...] = ("prediction", "scored", "automatic", "overruled")
Outcome = Literal["agree", "amend", "overrule"]
OUTCOMES: tuple[Outcome, ...] = ("agree", "amend", "overrule")


def time_text(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_time(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class Event:
    """One line; `kind` is folded, `kind_label` as the proposal spelled it."""

    type: EventType
    at: str
    decision_id: str
    kind: str
    kind_label: str
    rule_id: str
    option_id: str = ""
    option_label: str = ""
    outcome: str = ""
    strength: float = 0.0
    support: int = 0
    contradictions: int = 0

    @property
    def moment(self) -> datetime:
        return parse_time(self.at)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


_FIELDS = {f.name: f.type for f in fields(Event)}


def event_from_dict(raw: dict[str, Any]) -> Event | None:
    """A line as written, or None for anything else (an unknown type, a wrong field type)."""
    if raw.get("type") not in EVENT_TYPES or set(raw) - set(_FIELDS):
        return None
    try:
        event = Event(**raw)
        event.moment  # noqa: B018  # the timestamp must parse
    except (TypeError, ValueError):
        return None
    strings = ("at", "decision_id", "kind", "kind_label", "rule_id", "option_id", "option_label")
    if not all(isinstance(getattr(event, name), str) for name in strings):
        return None
    if event.type == "scored" and event.outcome not in OUTCOMES:
        return None
    return event


@dataclass(slots=True)
class LedgerRead:
    events: list[Event]
    unreadable: int = 0


class DeciderLedger:
    def __init__(self, journal_root: Path) -> None:
        root = Path(journal_root)
        self.log = AppendLog(root, root / DECIDER_DIR / LEDGER_FILE)

    def append(self, events: Iterable[Event]) -> int:
        return self.log.append(event.to_dict() for event in events)

    def read(self) -> LedgerRead:
        raw = self.log.read()
        result = LedgerRead([], len(raw.torn))
        for entry in raw.entries:
            event = event_from_dict(entry)
            if event is None:
                result.unreadable += 1
            else:
                result.events.append(event)
        return result
