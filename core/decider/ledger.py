"""The decider's own append-only log, `decider/ledger.ndjson`: predictions and what became of them.

Why a log of its own and not record fields: a KernForge record has no field for "the profile
predicted this" or "the profile answered this", and an unknown field would make the record
invalid there. The record keeps what KernForge round-trips (an automatic answer's selection and
rationale have `runtime` provenance, which also keeps it out of the profile's evidence); the
rule, the strength and the scoring live here, one JSON line per event:

- `prediction`: before the person answers, which option which rule expected, and how strongly;
- `scored`: the person answered a predicted decision: `agree`, `amend` or `overrule`;
- `automatic`: the profile answered for the person (never evidence, never scored);
- `overruled`: the person corrected an automatic answer (counts toward demotion);
- `mode`: a kind was set to `ask` or `auto` (by the person or by a demotion), with the reason.

The ledger moves between machines with the journal (`core.sync.paths`, a log merged as a set of
lines in one canonical order, authenticated like every synced file), so a kind set to auto on
one machine is auto on the others, and overrules on two machines count toward one demotion.

Routing reads only the lines it needs: the events of one decision (was it predicted, scored,
answered automatically, overruled) and of one kind (its score, for a demotion), looked up in
`cache/decider-ledger.sqlite3` (`core.bulk.log_index`), which each append brings up to date and
which is rebuilt from the log whenever it is missing or does not match it. Listing every kind
(`modes`) still reads the whole log.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import asdict, dataclass, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from core.bulk.log_index import LogIndex
from core.decider.policy import DECIDER_DIR
from core.errors import JournalError
from core.store.append_log import AppendLog

LEDGER_FILE = "ledger.ndjson"
LEDGER_INDEX = "cache/decider-ledger.sqlite3"

log = logging.getLogger(__name__)

EventType = Literal["prediction", "scored", "automatic", "overruled", "mode"]
EVENT_TYPES: tuple[EventType, ...] = ("prediction", "scored", "automatic", "overruled", "mode")
KIND_MODES = ("ask", "auto")
_OPTIONAL = ("mode", "reason")
"""Fields written only when set (a mode change's), so the other lines keep their shape."""
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
    mode: str = ""
    reason: str = ""

    @property
    def moment(self) -> datetime:
        return parse_time(self.at)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        for name in _OPTIONAL:
            if not data[name]:
                del data[name]
        return data


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
    if not all(isinstance(getattr(event, name), str) for name in (*strings, *_OPTIONAL)):
        return None
    if event.type == "scored" and event.outcome not in OUTCOMES:
        return None
    if (event.type == "mode") != (event.mode in KIND_MODES):
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
        self.index = LogIndex(self.log, root / LEDGER_INDEX, ("decision_id", "kind", "type"))

    def append(self, events: Iterable[Event]) -> int:
        written = self.log.append(event.to_dict() for event in events)
        try:
            self.index.refresh()
        except (JournalError, OSError):  # a cache: the next lookup indexes it, or reads all
            log.warning("the decider ledger's index was not brought up to date", exc_info=True)
        return written

    def _raw(self, **where: str) -> list[dict[str, Any]]:
        try:
            return self.index.lines(**where)
        except (JournalError, OSError):
            log.warning("the decider ledger's index cannot be read; reading the log", exc_info=True)
            entries = self.log.read().entries
            return [e for e in entries if all(e.get(k) == v for k, v in where.items())]

    def _events(self, **where: str) -> list[Event]:
        return [e for e in map(event_from_dict, self._raw(**where)) if e is not None]

    def of_decision(self, decision_id: str) -> list[Event]:
        """The events of one decision, oldest first, without reading the whole log."""
        return self._events(decision_id=decision_id)

    def of_kind(self, kind: str) -> list[Event]:
        """The events of one (folded) kind, oldest first."""
        return self._events(kind=kind)

    def mode_changes(self, kind: str) -> tuple[list[Event], int]:
        """One (folded) kind's mode changes in file order, and how many of its mode lines
        cannot be read (a reader fails closed on those: a lost "set back to ask" must never
        leave the kind answered automatically)."""
        raw = self._raw(kind=kind, type="mode")
        events = [e for e in map(event_from_dict, raw) if e is not None]
        return events, len(raw) - len(events)

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
