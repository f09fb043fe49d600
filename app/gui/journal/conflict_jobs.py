"""The journal window's sync-conflict work, as the bridge runs it in a worker.

Why apart from the bridge: the bridge only queues these and turns their results into signals;
what a listing, a load and a resolution read and write is here, over the one core function
the CLI's `sync resolve` also calls (`core.sync.resolution`), so the window and the CLI
write a resolution the same way. A correction, delete or restore goes through that module's
`revise` too, so a conflicted decision changes the same way from the window as from the CLI.
Every expected failure of a resolution comes back as a `ConflictOutcome` field the window can
show, never as an exception in the worker.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from core.errors import (
    InvalidDecision,
    JournalError,
    NoChanges,
    NotFound,
    RevisionConflict,
    describe,
)
from core.importers.confirm import Reviser
from core.journal import Journal
from core.record.corrections import Correction, apply_correction
from core.record.models import DecisionRecord
from core.sync import conflicts, resolution
from core.sync.resolution import ConflictVersions, Resolution, Revision

KEEP = "keep"
MERGE = "merge"


@dataclass(frozen=True, slots=True)
class ConflictOutcome:
    """What one resolution did; exactly one of `resolution`, `newer`, `no_changes`, `error`."""

    action: str
    decision_id: str
    resolution: Resolution | None = None
    newer: DecisionRecord | None = None
    """The record's current revision, when it changed since the window showed it."""
    no_changes: bool = False
    error: str = ""
    field: str = ""


def conflicted_ids(journal: Journal) -> frozenset[str]:
    """The decisions that wait for a choice of version."""
    return frozenset(c.record_id for c in conflicts.list_conflicts(journal.root))


def load_versions(journal: Journal, decision_id: str) -> ConflictVersions | None:
    store = journal.store
    return resolution.load_versions(store, decision_id, resolution.this_machine(store))


def revise(
    journal: Journal,
    decision_id: str,
    expected: int,
    change: Callable[[DecisionRecord], None],
    *,
    settle: bool,
    how: str,
    note: str = "",
) -> Revision:
    """A correction, delete or restore through the conflict rule (see `resolution.revise`)."""
    store = journal.store
    return resolution.revise(
        store,
        decision_id,
        expected,
        change,
        here=resolution.this_machine(store),
        settle=settle,
        note=note,
        how=how,
    )


def reviser(journal: Journal) -> Reviser:
    """`revise` without settling, for a batch of confirmations (`core.importers.confirm`): a
    decision waiting for a choice of version is listed as failed, not silently overwritten."""

    def write(
        record_id: str, expected: int, change: Callable[[DecisionRecord], None]
    ) -> DecisionRecord:
        done = revise(journal, record_id, expected, change, settle=False, how=resolution.CORRECTING)
        return done.record

    return write


def resolve(
    journal: Journal,
    decision_id: str,
    machine: str,
    expected: int,
    *,
    correction: Correction | None = None,
    note: str = "",
) -> ConflictOutcome:
    """Keeps `machine`'s version (with `correction` on top, a merge) as the next revision."""
    action = KEEP if correction is None else MERGE
    store = journal.store

    def edit(record: DecisionRecord) -> None:
        if correction is not None:
            apply_correction(record, correction)

    try:
        done = resolution.resolve_conflict(
            store,
            decision_id,
            machine,
            resolution.this_machine(store),
            expected=expected,
            edit=edit if correction is not None else None,
            note=note,
        )
    except NoChanges:
        return ConflictOutcome(action, decision_id, no_changes=True)
    except InvalidDecision as exc:
        error = str(describe(exc))
        return ConflictOutcome(action, decision_id, error=error, field=exc.field or "")
    except RevisionConflict as exc:
        try:
            newer = store.get(decision_id)
        except (NotFound, OSError):
            return ConflictOutcome(action, decision_id, error=str(describe(exc)))
        return ConflictOutcome(action, decision_id, newer=newer)
    except (JournalError, OSError) as exc:
        return ConflictOutcome(action, decision_id, error=str(describe(exc)))
    return ConflictOutcome(action, decision_id, resolution=done)
