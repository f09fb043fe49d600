"""One journal directory and the services over it; the single entry point adapters open."""

from __future__ import annotations

import os
from pathlib import Path

from core.index import JournalIndex
from core.location import resolve_journal_dir
from core.pending import PendingStore
from core.profile_store import ProfileStore
from core.store import DecisionStore


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
