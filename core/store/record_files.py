"""Which files of `records/` are records, and the issue a listing reports for one it could
not read.

Why apart from `core.store.decisions`: the index's read of `records/` (a `list` or `show` of a
current index) needs only these, and the store's module brings its write path with it (ids,
validation, history, locks), a noticeable part of a read-only command's start
(`bench/start_bench.py`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class ListIssue:
    path: str
    error: str


def record_file_names(records_dir: Path) -> list[str]:
    """The names of the current record files; bulk scans use names, not a Path per file."""
    try:
        names = os.listdir(records_dir)
    except FileNotFoundError:
        return []
    return [name for name in names if is_record_file_name(name)]


def is_record_file_name(name: str) -> bool:
    """`*.json` in any case; lock files and dot-prefixed temporary files are not records."""
    return name.lower().endswith(".json") and not name.startswith(".")
