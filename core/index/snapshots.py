"""Frozen result lists for paging: new captures never shift the rows of a page already shown.

A snapshot freezes which ids match and their order, not the records: a page is loaded at each
record's latest revision. The cache is bounded as the reference dashboard's is (4 snapshots,
100,000 ids, about 64 MiB by the reference's size estimate, 15 minutes idle), evicting the least
recently used. Unlike the dashboard, reading the last page keeps the snapshot, because a list
view may page back; `discard` drops one early.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass

from core.errors import SnapshotExpired, SnapshotTooLarge

MIB = 1024 * 1024
_BASE_COST = 1024
_ID_COST = 256


def estimated_bytes(ids: list[str]) -> int:
    """The reference's estimate: 1024 + Σ(256 + 2·len(id))."""
    return _BASE_COST + sum(_ID_COST + 2 * len(i) for i in ids)


@dataclass(slots=True)
class _Snapshot:
    key: Hashable
    ids: list[str]
    size: int
    last_access: float


class SnapshotCache:
    """Thread-safe; the clock is injectable so tests control expiry."""

    def __init__(
        self,
        max_snapshots: int = 4,
        max_ids: int = 100_000,
        max_bytes: int = 64 * MIB,
        ttl_seconds: float = 900.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.max_snapshots = max_snapshots
        self.max_ids = max_ids
        self.max_bytes = max_bytes
        self.ttl_seconds = ttl_seconds
        self._clock = clock
        self._lock = threading.Lock()
        self._snapshots: OrderedDict[str, _Snapshot] = OrderedDict()

    def create(self, key: Hashable, ids: list[str]) -> str:
        """Stores a copy of ids and returns the new snapshot's id.

        Raises:
            SnapshotTooLarge: ids alone exceed a bound; the cache is left untouched.
        """
        frozen = list(ids)
        size = estimated_bytes(frozen)
        if len(frozen) > self.max_ids or size > self.max_bytes:
            raise SnapshotTooLarge(
                f"decision snapshot of {len(frozen)} ids (~{size} bytes) exceeds the limit of "
                f"{self.max_ids} ids and {self.max_bytes} bytes"
            )
        with self._lock:
            self._prune_locked()
            while self._snapshots and not self._fits(len(frozen), size):
                self._snapshots.popitem(last=False)
            snapshot_id = secrets.token_hex(16)
            self._snapshots[snapshot_id] = _Snapshot(key, frozen, size, self._clock())
            return snapshot_id

    def _fits(self, count: int, size: int) -> bool:
        snapshots = self._snapshots.values()
        return (
            len(self._snapshots) < self.max_snapshots
            and sum(len(s.ids) for s in snapshots) + count <= self.max_ids
            and sum(s.size for s in snapshots) + size <= self.max_bytes
        )

    def page(
        self, snapshot_id: str, offset: int, limit: int, key: Hashable | None = None
    ) -> list[str]:
        """ids[offset:offset+limit]; refreshes the snapshot's idle time.

        Args:
            key: when given, must equal the key the snapshot was created with, so a page of an
                old filter is never shown under a new one.

        Raises:
            SnapshotExpired: the snapshot is gone, expired, or was made for another key.
            ValueError: offset is negative or past the end, or limit is not positive.
        """
        if limit <= 0 or offset < 0:
            raise ValueError(f"invalid snapshot page: offset {offset}, limit {limit}")
        with self._lock:
            snapshot = self._live(snapshot_id)
            if key is not None and key != snapshot.key:
                raise SnapshotExpired("decision snapshot belongs to another filter")
            if offset > len(snapshot.ids):
                raise ValueError(f"snapshot offset {offset} is past its {len(snapshot.ids)} ids")
            snapshot.last_access = self._clock()
            self._snapshots.move_to_end(snapshot_id)
            return snapshot.ids[offset : offset + limit]

    def total(self, snapshot_id: str) -> int:
        with self._lock:
            return len(self._live(snapshot_id).ids)

    def discard(self, snapshot_id: str) -> None:
        with self._lock:
            self._snapshots.pop(snapshot_id, None)

    def prune(self) -> int:
        """Drops idle snapshots; returns how many. Call it from a timer, as the janitor does."""
        with self._lock:
            return self._prune_locked()

    def __len__(self) -> int:
        with self._lock:
            return len(self._snapshots)

    def _live(self, snapshot_id: str) -> _Snapshot:
        snapshot = self._snapshots.get(snapshot_id)
        if snapshot is None or self._expired(snapshot):
            self._snapshots.pop(snapshot_id, None)
            raise SnapshotExpired(
                "decision snapshot expired or was evicted; reload the list from its first page"
            )
        return snapshot

    def _expired(self, snapshot: _Snapshot) -> bool:
        return self._clock() - snapshot.last_access >= self.ttl_seconds

    def _prune_locked(self) -> int:
        stale = [sid for sid, s in self._snapshots.items() if self._expired(s)]
        for sid in stale:
            del self._snapshots[sid]
        return len(stale)
