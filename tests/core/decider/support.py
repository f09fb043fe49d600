"""A journal with a real capture service, profile and decider on a clock the test moves."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from core.capture.machine import CaptureService, NeedsHuman, Recorded
from core.capture.pending import PendingStore
from core.decider.service import Decider
from core.profile.store import ProfileStore
from core.record.models import DecisionRecord
from core.store.decisions import DecisionStore

WORKSPACE = "/srv/projects/shopfront"
KIND = "Database-Engine"


def database_proposal(number: int, **overrides: Any) -> dict[str, Any]:
    """The same fork each time, in a new task: which database engine to use."""
    proposal: dict[str, Any] = {
        "problem": f"Pick the database engine for service {number}",
        "decision_kind": KIND,
        "risk_level": "medium",
        "detector_confidence": 0.9,
        "domains": ["storage"],
        "options": [
            {
                "id": "postgres",
                "label": "Postgres",
                "description": "A server with rich SQL",
                "recommended": True,
            },
            {"id": "sqlite", "label": "SQLite", "description": "One file beside the app"},
        ],
    }
    proposal.update(overrides)
    return proposal


@dataclass
class Clock:
    now: datetime = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now = self.now + timedelta(**delta)


class Journal:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.clock = Clock()
        self.store = DecisionStore(root)
        self.pending = PendingStore(root)
        self.profile = ProfileStore(root, self.store)
        self.decider = Decider(root, self.profile, clock=self.clock)
        self.service = CaptureService(
            self.store, self.pending, on_recorded=self._rebuild, decider=self.decider
        )
        self.sessions = 0

    def _rebuild(self, _record: DecisionRecord) -> None:
        self.profile.rebuild()

    def present(self, raw: dict[str, Any]) -> NeedsHuman | Recorded:
        self.sessions += 1
        return self.service.begin(
            raw, workspace=WORKSPACE, session_id=f"session-{self.sessions}", agent="test"
        )

    def answer(self, raw: dict[str, Any], option_id: str = "", custom: str = "") -> Recorded:
        outcome = self.present(raw)
        assert isinstance(outcome, NeedsHuman), outcome
        ticket = outcome.ticket
        ticket.choose(option_id, custom)
        rejections = {o.id: "not this time" for o in ticket.proposal.options if o.id != option_id}
        recorded = ticket.submit("it fits how we run services", rejections)
        self.clock.advance(hours=1)
        return recorded

    def answer_many(self, count: int, option_id: str = "postgres", start: int = 0) -> None:
        for number in range(start, start + count):
            self.answer(database_proposal(number), option_id)
