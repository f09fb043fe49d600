"""The list's index work, run in the bridge's `browse` lane: first pages, counts, pages, catalog.

Why a module of its own, without Qt: how a scope is queried, frozen into a snapshot and paged
is the journal's browsing rule, not signal wiring; kept here it is tested without a window and
the bridge only hands what it returns to a signal. Runs in worker threads: `ScopeBrowser`
guards what two of them can share (the snapshot keys) and reads `latest` written by the GUI
thread (an int, replaced whole).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import replace

from app.gui.journal.requests import (
    PAGE_SIZE,
    SCOPE_CURRENT,
    SORT_NEWEST,
    Catalog,
    FilterState,
    ScopeCount,
    ScopePage,
    sort_ids,
)
from core.errors import SnapshotExpired, SnapshotTooLarge
from core.index.journal_index import JournalIndex
from core.index.query import IndexFilter
from core.index.rows import ListRow
from core.index.snapshots import SnapshotCache

KEYS_KEPT = 16
"""Filter keys remembered per snapshot; the cache itself keeps at most four snapshots."""


def filter_key(flt: IndexFilter) -> str:
    return repr(flt)


def _holds(ids: list[str], kept: str) -> bool:
    return bool(kept) and kept in ids


class ScopeBrowser:
    """One per bridge: the index queries behind the decision list.

    Args:
        index: the journal's index (thread-safe reads).
        snapshots: the page snapshot cache (tests pass one with a fake clock).
    """

    def __init__(self, index: JournalIndex, snapshots: SnapshotCache | None = None) -> None:
        self.index = index
        self.snapshots = snapshots if snapshots is not None else SnapshotCache()
        self.latest = 0
        """The newest scope generation asked for: older ones still queued are skipped."""
        self._keys: dict[str, str] = {}
        self._keys_lock = threading.Lock()
        self._current = ""
        """The project "Current project" names until `forget_current_project` ("" until found)."""

    def open_scope(
        self,
        generation: int,
        state: FilterState,
        kept: str,
        show_first: Callable[[ScopePage], None],
        *,
        first_rows: int = PAGE_SIZE,
    ) -> ScopeCount | None:
        """Hands the first page to `show_first` at once, then freezes every matching ID.

        Two steps because a broad text query over 100,000 decisions spends most of its time
        collecting every matching ID: the newest 100 (a LIMIT query) are on screen first, and
        the count and the snapshot follow. If a capture landed in between, the snapshot's
        first page replaces the one shown, so paging never skips or repeats a row. Any order
        but newest first needs every match before the first page, so it takes one step. The
        count says whether the snapshot holds `kept` (the decision on screen). None: a newer
        scope superseded this one. `first_rows`: how many rows that first answer holds (a
        reload keeps the pages the reader had scrolled through).
        """
        if generation != self.latest:
            return None  # superseded while queued: skip the query entirely
        current = self.current_project() if state.scope == SCOPE_CURRENT else ""
        flt = state.to_index_filter(current)
        if state.sort != SORT_NEWEST:
            snapshot, ids, truncated = self._sorted(flt, state.sort)
            show_first(self._page(generation, self.index.rows(ids[:first_rows]), current, flt))
            held = _holds(ids, kept)
            return ScopeCount(generation, snapshot, len(ids), None, truncated, kept, held)
        first = self.index.query_ids(replace(flt, limit=first_rows))
        show_first(self._page(generation, self.index.rows(first), current, flt))
        if len(first) == first_rows and generation != self.latest:
            return None  # the user typed on: the count of this filter is not needed
        ids = first if len(first) < first_rows else self.index.query_ids(flt)
        snapshot, ids, truncated = self._freeze(filter_key(flt), ids)
        fresh = None if ids[:first_rows] == first else self.index.rows(ids[:first_rows])
        held = _holds(ids, kept)
        return ScopeCount(generation, snapshot, len(ids), fresh, truncated, kept, held)

    def _sorted(self, flt: IndexFilter, sort: str) -> tuple[str, list[str], int]:
        """Every match, in the order the user chose, frozen in one snapshot of its own."""
        ids = sort_ids(self.index.query_ids(flt), sort, self.index.rows)
        return self._freeze(f"{filter_key(flt)}|{sort}", ids)

    def _page(
        self, generation: int, rows: list[ListRow], current: str, flt: IndexFilter
    ) -> ScopePage:
        """The first page; an empty one says where else the filter finds decisions, or that
        the journal holds none at all."""
        if rows:
            return ScopePage(generation, rows, current)
        elsewhere = len(self.index.query_ids(replace(flt, project_id=""))) if flt.project_id else 0
        anything = IndexFilter(include_deleted=True, limit=1)
        empty = not elsewhere and not self.index.query_ids(anything)
        return ScopePage(generation, rows, current, elsewhere, journal_empty=empty)

    def _freeze(self, key: str, ids: list[str]) -> tuple[str, list[str], int]:
        """(snapshot ID, the IDs kept, how many matched when over the cache's bounds)."""
        if not ids:
            return "", ids, 0
        truncated = 0
        try:
            snapshot = self.snapshots.create(key, ids)
        except SnapshotTooLarge:
            truncated = len(ids)
            ids = ids[: self.snapshots.max_ids]
            snapshot = self.snapshots.create(key, ids)
        with self._keys_lock:
            self._keys[snapshot] = key
            while len(self._keys) > KEYS_KEPT:
                del self._keys[next(iter(self._keys))]
        return snapshot, ids, truncated

    def page(self, snapshot_id: str, offset: int, limit: int) -> list[ListRow] | None:
        """A later page of a snapshot; None when it expired or one of its records vanished."""
        with self._keys_lock:
            key = self._keys.get(snapshot_id)
        try:
            ids = self.snapshots.page(snapshot_id, offset, limit, key)
        except (SnapshotExpired, ValueError):
            return None
        rows = self.index.rows(ids)
        return rows if len(rows) == len(ids) else None

    def catalog(self, waiting_project: str) -> Catalog:
        """Projects, facets and unreadable files for the filter bar and the banner."""
        current = self.current_project()
        return Catalog(
            self.index.projects(),
            self.index.facets(),
            current,
            self.index.issues(),
            waiting_project or current,
        )

    def labels(self, ids: list[str]) -> dict[str, str]:
        """{decision ID: its problem}, for the profile's evidence list."""
        return {row.id: row.problem for row in self.index.rows(ids)}

    def current_project(self) -> str:
        """The project of the newest active decision: what "Current project" lists.

        Why not the waiting agent's project: a waiting decision is not in the journal yet, so
        a scope named after it would open on an empty list. Once found it is kept until
        `forget_current_project`: an answer in another project, an edit or a delete while the
        window is open must not swap the list (or its label) under the user.
        """
        if not self._current:
            self._current = self.index.current_project_id()
        return self._current

    def forget_current_project(self) -> None:
        """The next query looks for the current project again (the window was closed)."""
        self._current = ""
