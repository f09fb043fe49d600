"""memory-journal: NDJSON learning-journal events (ts, agent, task, outcome, signals).

An event whose outcome or signals concern a decision in the journal becomes an outcome signal
on that decision (evalScore -> eval, acceptance -> accepted, ci -> ci), appended to the outcome
log, never written into the record. The decision is found by an explicit `decisionId` /
`decision_id` / `decision` field, by a decision ID mentioned anywhere in the event, or by a task
text equal to a decision's problem. Every other event becomes a note. Torn lines are skipped and
reported. Key: `memory-journal:<file name>:<event id or sha256 of the line>`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from core.bulk.parallel_read import read_every_record
from core.errors import InvalidDecision
from core.gocompat.text import collapse_spaces
from core.importers.base import ImportContext, Item, ItemError, NoteItem, SignalItem, Skip
from core.importers.ndjson_source import Line, first_text, jsonl_files, parse_when, read_lines
from core.importers.notes_sink import ImportedNote
from core.outcomes.signals import OUTCOME_VALUES, make_signal
from core.record.shape import StoredRead
from core.store.decisions import DecisionStore

KIND = "memory-journal"
SOURCE = "import:memory-journal"
_DECISION_ID = re.compile(r"decision-[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?")
_ID_FIELDS = ("decisionId", "decision_id", "decision")


class _Decisions:
    """Finds the decision an event is about; the problem index is built once, on first need."""

    def __init__(self, store: DecisionStore) -> None:
        self.store = store
        self._by_problem: dict[str, str] | None = None

    def find(self, event: dict[str, Any]) -> str:
        for name in _ID_FIELDS:
            value = event.get(name)
            if isinstance(value, str) and value.strip() and self._exists(value.strip()):
                return str(value.strip())
        for match in _DECISION_ID.finditer(json.dumps(event)):
            if self._exists(match.group(0)):
                return match.group(0)
        task = first_text(event, "task")
        return self._problems().get(_fold(task), "") if task else ""

    def _exists(self, decision_id: str) -> bool:
        try:
            return self.store.exists(decision_id)
        except InvalidDecision:
            return False

    def _problems(self) -> dict[str, str]:
        """Folded problem → id of the newest active record asking it.

        Read by the reading processes, which send back only each record's age, id and
        problem, not a full model of every record.
        """
        if self._by_problem is None:
            chunks = read_every_record(self.store, _problem_of, None)
            asked = sorted(o.value for chunk in chunks for o in chunk if o.value is not None)
            self._by_problem = {problem: record_id for _, record_id, problem in asked}
        return self._by_problem  # built oldest first: the newest record wins


def _problem_of(_name: str, _extra: None, read: StoredRead) -> tuple[int, str, str] | None:
    """(age, id, folded problem) of an active record, as `sort_key` orders records."""
    record = read.record
    if record.is_deleted:
        return None
    updated = record.updated_at.unix_ns if record.updated_at else 0
    return updated, record.id, _fold(record.problem)


def _fold(text: str) -> str:
    return collapse_spaces(text).casefold()


class MemoryJournalImporter:
    kind = KIND

    def items(self, source: Path, ctx: ImportContext) -> Iterator[Item]:
        files = jsonl_files(source)
        ctx.set_total(len(files))
        decisions = _Decisions(ctx.journal.store)
        for path in files:
            try:
                for line in read_lines(path):
                    yield _event_item(line, decisions)
            except OSError as exc:
                yield ItemError(str(path), f"cannot read the journal: {exc}")
            ctx.step()


def _signals(event: dict[str, Any]) -> dict[str, Any]:
    value = event.get("signals")
    return value if isinstance(value, dict) else {}


def _event_item(line: Line, decisions: _Decisions) -> Item:
    event = line.value
    if event is None:
        return Skip(f"{KIND}:{line.path.name}:{line.digest}", line.problem, line.where)
    key = f"{KIND}:{line.path.name}:{first_text(event, 'id') or line.digest}"
    when = parse_when(event, "ts", "timestamp", "time")
    signals, outcome = _signals(event), first_text(event, "outcome")
    decision_id = decisions.find(event) if (signals or outcome) else ""
    if decision_id and when is not None:
        try:
            signal = make_signal(
                decision_id,
                at=when,
                ci=_ci(signals.get("ci")),
                accepted=_bool(signals.get("acceptance", signals.get("accepted"))),
                eval_score=_score(signals.get("evalScore", signals.get("eval"))),
                outcome=outcome if outcome in OUTCOME_VALUES else "",
                note=first_text(event, "task", "note"),
                source=SOURCE,
                key=key,
            )
        except InvalidDecision as exc:
            return ItemError(line.where, f"outcome signal refused: {exc}", key=key)
        return SignalItem(key, signal, when)
    return NoteItem(key, _note(event, line), when)


def _ci(value: object) -> str | None:
    if isinstance(value, str) and value.casefold() in ("pass", "fail"):
        return value.casefold()
    if isinstance(value, bool):
        return "pass" if value else "fail"
    return None


def _bool(value: object) -> bool | None:
    return value if isinstance(value, bool) else None


def _score(value: object) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return None


def _note(event: dict[str, Any], line: Line) -> ImportedNote:
    task = first_text(event, "task", "text", "message", "summary") or "journal event"
    outcome = first_text(event, "outcome")
    signals = _signals(event)
    parts = [f"outcome {outcome}"] if outcome else []
    parts += [f"{name} {value}" for name, value in sorted(signals.items())]
    who = "/".join(x for x in (first_text(event, "agent"), first_text(event, "cli")) if x)
    return ImportedNote.of(
        workspace=first_text(event, "cwd", "workspace", "projectDir"),
        decision=task,
        why="; ".join(parts) or f"{first_text(event, 'type', 'kind') or 'event'} from {who}",
        evidence=f"{line.path.name}:{line.number}",
        session_id=first_text(event, "session", "sessionId"),
        agent=who or "memory journal",
    )
