"""One journal directory and the services over it; the single entry point adapters open."""

from __future__ import annotations

import os
from pathlib import Path

from core.capture.pending import PendingStore
from core.index.journal_index import JournalIndex, Progress
from core.index.rows import ReconcileReport
from core.profile.store import ProfileStore
from core.profile.worker import ProfileRebuildWorker
from core.store.decisions import DecisionStore
from core.store.location import resolve_journal_dir


class Journal:
    """Owns the store for one journal root; other services attach here as they are added."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.store = DecisionStore(root)
        self.profile = ProfileStore(
            self.store.root, self.store, lock_timeout=self.store.lock_timeout
        )
        self.pending = PendingStore(root)
        # Opened on first query, so commands that never browse do not pay for it.
        self.index = JournalIndex(self.store.root, self.store)
        self.store.add_listener(self.index)

    @classmethod
    def open(cls, explicit: str | os.PathLike[str] | None = None) -> Journal:
        return cls(resolve_journal_dir(explicit))

    def start_profile_worker(self) -> ProfileRebuildWorker:
        """A worker for this journal's profile, registered to hear every committed revision."""
        worker = ProfileRebuildWorker(self.profile)
        self.store.add_listener(worker)
        return worker


def catch_up(
    index: JournalIndex, profile_worker: ProfileRebuildWorker, progress: Progress | None = None
) -> ReconcileReport:
    """Reconciles the index, and rebuilds the profile when records changed behind our back.

    Why: the CLI, a sync tool or another app instance edit records without this process's
    commit listener hearing it, so the profile would stay stale until the next edit made here.
    """
    report = index.reconcile(progress)
    if report.added or report.changed or report.removed:
        rebuild_if_stale(profile_worker)
    return report


def warm_up(index: JournalIndex, profile_worker: ProfileRebuildWorker) -> None:
    """Soon after start: the index first, then the profile if it no longer matches.

    Why in that order: without caches (a first start on an existing journal, or after an index
    format change) both read every record, and run together they fight over the same cores. With the
    index first, the journal window's first page comes much sooner and the profile is current no
    later (measured by hand; bench/CHANGES.md). A reconcile already running (the window's) is waited
    for, not repeated.
    """
    try:
        index.ensure_reconciled()
    finally:
        rebuild_if_stale(profile_worker)


def rebuild_if_stale(profile_worker: ProfileRebuildWorker) -> None:
    """The profile is a cache of the journal: when it no longer matches, derive it again.

    A failed rebuild reports "error", not "stale", so a broken journal is not retried in a loop.
    """
    if profile_worker.status().state == "stale":
        profile_worker.request_rebuild()
