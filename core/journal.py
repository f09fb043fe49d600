"""One journal directory and the services over it; the single entry point adapters open."""

from __future__ import annotations

import os
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from core.store.location import resolve_journal_dir

if TYPE_CHECKING:  # each service loads with its first use: a command pays only for its own
    from core.capture.pending import PendingStore
    from core.index.journal_index import JournalIndex, Progress
    from core.index.rows import IndexReadReport
    from core.profile.store import ProfileStore
    from core.profile.worker import ProfileRebuildWorker
    from core.store.decisions import DecisionStore


class Journal:
    """One journal root and its services, each made (and its code loaded) on first use.

    Why lazily: every command opens the journal, and most use one service; `status` reads only
    `pending/`, `show` only the store. The index listens to the store's commits from the
    moment both exist; one made later catches up on its first query, as after any other
    process's change.
    """

    def __init__(self, root: Path) -> None:
        self.root = root

    @cached_property
    def store(self) -> DecisionStore:
        from core.store.decisions import DecisionStore  # noqa: PLC0415

        store = DecisionStore(self.root)
        index = self.__dict__.get("index")
        if index is not None:  # opened first (a read): it hears this store's commits from now on
            store.add_listener(index)
        return store

    @cached_property
    def profile(self) -> ProfileStore:
        from core.profile.store import ProfileStore  # noqa: PLC0415

        return ProfileStore(self.store.root, self.store, lock_timeout=self.store.lock_timeout)

    @cached_property
    def pending(self) -> PendingStore:
        from core.capture.pending import PendingStore  # noqa: PLC0415

        return PendingStore(self.root)

    @cached_property
    def index(self) -> JournalIndex:
        """Opened on first query, so commands that never browse do not pay for it; nor does a
        read of a current index pay for the store (`JournalIndex.store`), made when first used."""
        from core.index.journal_index import JournalIndex  # noqa: PLC0415

        store = self.__dict__.get("store")
        index = JournalIndex(self.root, store)
        if store is not None:
            store.add_listener(index)
        return index

    @classmethod
    def open(cls, explicit: str | os.PathLike[str] | None = None) -> Journal:
        return cls(resolve_journal_dir(explicit))

    def start_profile_worker(self) -> ProfileRebuildWorker:
        """A worker for this journal's profile, registered to hear every committed revision
        (after the index, which then hears each first)."""
        from core.profile.worker import ProfileRebuildWorker  # noqa: PLC0415

        _ = self.index
        worker = ProfileRebuildWorker(self.profile)
        self.store.add_listener(worker)
        return worker


def catch_up(
    index: JournalIndex, profile_worker: ProfileRebuildWorker, progress: Progress | None = None
) -> IndexReadReport:
    """Catches the index up, and rebuilds the profile when records changed behind our back.

    Why: the CLI, a sync tool or another app instance edit records without this process's
    commit listener hearing it, so the profile would stay stale until the next edit made here.
    """
    report = index.read_changed_files(progress)
    if report.added or report.changed or report.removed:
        rebuild_if_stale(profile_worker)
    return report


def warm_up(index: JournalIndex, profile_worker: ProfileRebuildWorker) -> None:
    """Soon after start: the index first, then the profile if it no longer matches.

    Why in that order: without caches (a first start on an existing journal, or after an index
    format change) both read every record, and run together they fight over the same cores. With the
    index first, the journal window's first page comes much sooner and the profile is current no
    later (measured by hand; bench/CHANGES.md). A catch-up already running (the window's) is waited
    for, not repeated.
    """
    try:
        index.ensure_caught_up()
    finally:
        rebuild_if_stale(profile_worker)


def rebuild_if_stale(profile_worker: ProfileRebuildWorker) -> None:
    """The profile is a cache of the journal: when it no longer matches, derive it again.

    A failed rebuild reports "error", not "stale", so a broken journal is not retried in a loop.
    """
    if profile_worker.status().state == "stale":
        profile_worker.request_rebuild()
