"""Listing a whole journal: the record files with their stat, and every record.

Why one module: the index's reconcile, the profile's facts cache and the store's list each
walk `records/`; they share this walk (`record_stats`) and the store's own file-name rule, so
the three can never disagree about which files are records. `list_with_issues` and
`list_records` are the store's strict listing, run with the cycle collector paused: a
whole-journal list keeps every record alive, and each allocation burst would otherwise walk
them all again for nothing (see `core.bulk.gc_pause`).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from core.bulk.gc_pause import gc_paused
from core.store.record_files import is_record_file_name

if TYPE_CHECKING:  # annotations only: a read of the index builds no model, and needs no store
    from core.record.filters import ListFilter
    from core.record.models import DecisionRecord
    from core.store.decisions import DecisionStore, ListResult


def record_stats(records_dir: Path) -> dict[str, os.stat_result | None]:
    """Every record file name (`DecisionStore.record_files`' rule) with its lstat; None for a
    file that vanished while listed.

    Why not a Path per file: building one costs more than the lstat itself, and the index and
    the profile take this walk on every check.
    """
    stats: dict[str, os.stat_result | None] = {}
    try:
        entries = os.scandir(records_dir)
    except FileNotFoundError:
        return stats
    with entries:
        for entry in entries:
            name = entry.name
            if not is_record_file_name(name):
                continue
            try:
                stats[name] = entry.stat(follow_symlinks=False)
            except FileNotFoundError:
                stats[name] = None
    return stats


def list_with_issues(store: DecisionStore, flt: ListFilter | None = None) -> ListResult:
    """`DecisionStore.list_with_issues` with the cycle collector paused."""
    with gc_paused():
        return store.list_with_issues(flt)


def list_records(store: DecisionStore, flt: ListFilter | None = None) -> list[DecisionRecord]:
    """`DecisionStore.list` (fails closed on any unreadable record), collector paused."""
    with gc_paused():
        return store.list(flt)
