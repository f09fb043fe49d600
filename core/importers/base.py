"""What every importer yields, what every import reports, and how progress reaches a UI.

Why items and not writes: an importer only reads its source and says, per source item, what it
found (a record, a note, a pending decision, an outcome signal, a skip with its reason, or an
error). One engine (`core.importers.engine`) decides idempotency, dry runs, `--since` and the
writing, so every kind reports the same counts and nothing is dropped without a reason.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from core.capture.pending import PendingDecision
from core.gocompat.gotime import GoTime
from core.outcomes.signals import OutcomeSignal
from core.record.models import DecisionRecord

if TYPE_CHECKING:
    from core.importers.notes_sink import ImportedNote
    from core.journal import Journal


@dataclass(frozen=True, slots=True)
class Skip:
    """A source item that is deliberately not written, and why (shown to the user)."""

    key: str
    reason: str
    where: str = ""


@dataclass(frozen=True, slots=True)
class ItemError:
    """A source item that should have been written but could not be."""

    where: str
    message: str
    key: str = ""


@dataclass(frozen=True, slots=True)
class Conflict:
    """A source item whose journal copy differs; the journal copy is kept, never overwritten."""

    key: str
    target: str
    message: str


@dataclass(frozen=True, slots=True)
class RecordItem:
    """A decision record; `canonical` records keep their own ID (kernforge, json merges)."""

    key: str
    record: DecisionRecord
    when: GoTime | None = None
    canonical: bool = False


@dataclass(frozen=True, slots=True)
class NoteItem:
    key: str
    note: ImportedNote
    when: GoTime | None = None


@dataclass(frozen=True, slots=True)
class PendingItem:
    key: str
    pending: PendingDecision
    when: GoTime | None = None


@dataclass(frozen=True, slots=True)
class SignalItem:
    key: str
    signal: OutcomeSignal
    when: GoTime | None = None


Item = RecordItem | NoteItem | PendingItem | SignalItem | Skip | ItemError
WRITTEN_KINDS = ("records", "notes", "pending", "signals")


@dataclass(frozen=True, slots=True)
class ImportProgress:
    """One progress tick: `done` of `total` source units (files, lines or rows)."""

    kind: str
    done: int
    total: int | None
    read: int
    imported: int
    finished: bool = False

    @property
    def fraction(self) -> float | None:
        if not self.total:
            return None
        return min(1.0, self.done / self.total)


ProgressCallback = Callable[[ImportProgress], None]


@dataclass(frozen=True, slots=True)
class ImportOptions:
    """How to run one import.

    Args:
        dry_run: report what would happen; write nothing (no records, ledger, notes, signals).
        since: items dated before this are skipped ("older than --since"); undated items stay.
        progress: called on the importing thread, at most every `progress_interval` seconds
            and once at the end; a window forwards it to its bridge object.
        cancel: set it to stop after the current item; the report says `cancelled`.
    """

    dry_run: bool = False
    since: GoTime | None = None
    progress: ProgressCallback | None = None
    cancel: threading.Event | None = None
    progress_interval: float = 0.05


@dataclass(slots=True)
class ImportReport:
    """Counts for one run; read == imported + unchanged + skipped + conflicts + errors."""

    kind: str
    source: str
    dry_run: bool = False
    read: int = 0
    imported: int = 0
    unchanged: int = 0
    written: Counter[str] = field(default_factory=Counter)
    skipped: list[Skip] = field(default_factory=list)
    conflicts: list[Conflict] = field(default_factory=list)
    errors: list[ItemError] = field(default_factory=list)
    cancelled: bool = False
    seconds: float = 0.0

    def skipped_by_reason(self) -> list[tuple[str, int]]:
        """Reasons with their counts, most frequent first, for a short human summary."""
        return Counter(skip.reason for skip in self.skipped).most_common()

    @property
    def accounted(self) -> int:
        return (
            self.imported
            + self.unchanged
            + len(self.skipped)
            + len(self.conflicts)
            + len(self.errors)
        )

    def absorb(self, other: ImportReport) -> None:
        """Adds another run's figures (a --watch pass) to this one."""
        self.read += other.read
        self.imported += other.imported
        self.unchanged += other.unchanged
        self.written.update(other.written)
        self.skipped.extend(other.skipped)
        self.conflicts.extend(other.conflicts)
        self.errors.extend(other.errors)
        self.cancelled = self.cancelled or other.cancelled
        self.seconds += other.seconds

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "source": self.source,
            "dry_run": self.dry_run,
            "read": self.read,
            "imported": self.imported,
            "unchanged": self.unchanged,
            "written": {name: self.written.get(name, 0) for name in WRITTEN_KINDS},
            "skipped": [{"key": s.key, "reason": s.reason, "where": s.where} for s in self.skipped],
            "conflicts": [
                {"key": c.key, "target": c.target, "message": c.message} for c in self.conflicts
            ],
            "errors": [{"where": e.where, "message": e.message, "key": e.key} for e in self.errors],
            "cancelled": self.cancelled,
            "seconds": round(self.seconds, 3),
        }


class ImportContext:
    """Handed to an importer: the journal it imports into and the progress counter."""

    def __init__(self, journal: Journal, kind: str, options: ImportOptions, report: ImportReport):
        self.journal = journal
        self.kind = kind
        self.options = options
        self._report = report
        self._total: int | None = None
        self._done = 0
        self._last = 0.0

    def set_total(self, total: int) -> None:
        self._total = total
        self._emit(force=True)

    def step(self, units: int = 1) -> None:
        """One more source unit (file, line, row) has been read."""
        self._done += units
        self._emit(force=False)

    def tick(self) -> None:
        """An item was handled: lets a long single file still move the counts on screen."""
        self._emit(force=False)

    def finish(self) -> None:
        self._emit(force=True, finished=True)

    def _emit(self, *, force: bool, finished: bool = False) -> None:
        callback = self.options.progress
        if callback is None:
            return
        now = time.monotonic()
        if not force and now - self._last < self.options.progress_interval:
            return
        self._last = now
        callback(
            ImportProgress(
                kind=self.kind,
                done=self._done,
                total=self._total,
                read=self._report.read,
                imported=self._report.imported,
                finished=finished,
            )
        )


class Importer(Protocol):
    """One source kind. `items` reads lazily; it never writes to the journal."""

    kind: str

    def items(self, source: Path, ctx: ImportContext) -> Iterator[Item]: ...
