"""What moves between machines, and which merge unit each journal file belongs to.

Why an allowlist: caches (`cache/`, `profiles/`) are rebuilt from records on each machine,
`pending/` and `drafts/` are one machine's in-flight state, locks and temp files belong to a
running process, and `quarantine/` holds files this machine refused. Anything the journal adds
later stays local until it is named here.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from core.store.safefs import TEMP_MARK

RECORDS = "records"
HISTORY = "history"
CONFLICTS = "sync-conflicts"
LOG_FOLDERS = {"notes": ".jsonl", "outcomes": ".ndjson", "imports": ".ndjson"}
"""Append-only logs: two machines' lines are united, never one file over the other."""
PER_RECORD_FOLDERS = (HISTORY, "corrections", CONFLICTS)
_RECORD_FILE = re.compile(r"[^/]+\.json")
_HISTORY_FILE = re.compile(r"revision-\d{6,}\.json(\.sha256)?")
_CORRECTION_FILE = re.compile(r"revision-\d{6,}\.json")
_CONFLICT_FILE = re.compile(r"((revision|note)-\d{6,}\.[0-9a-f]{8}|conflict)\.json")


@dataclass(frozen=True, slots=True)
class Unit:
    """A merge unit: one record with its history, one log, or one other file."""

    kind: str
    key: str


def unit_of(path: str) -> Unit | None:
    """The merge unit of a journal-relative POSIX path, or None when it never moves."""
    parts = path.split("/")
    if any(part.startswith(".") or TEMP_MARK in part or part.endswith(".lock") for part in parts):
        return None
    if len(parts) == 2 and parts[0] == RECORDS and _RECORD_FILE.fullmatch(parts[1]):
        return Unit("record", parts[1][: -len(".json")])
    if len(parts) == 2 and parts[0] in LOG_FOLDERS and parts[1].endswith(LOG_FOLDERS[parts[0]]):
        return Unit("log", path)
    if len(parts) != 3:
        return None
    folder, _, name = parts
    if folder == HISTORY and _HISTORY_FILE.fullmatch(name):
        return Unit("record", parts[1])
    if folder == "corrections" and _CORRECTION_FILE.fullmatch(name):
        return Unit("file", path)
    if folder == CONFLICTS and _CONFLICT_FILE.fullmatch(name):
        return Unit("file", path)
    return None


def record_path(record_id: str) -> str:
    return f"{RECORDS}/{record_id}.json"


def history_path(record_id: str, revision: int, *, digest: bool = False) -> str:
    suffix = ".sha256" if digest else ""
    return f"{HISTORY}/{record_id}/revision-{revision:06d}.json{suffix}"


def scan_journal(root: Path) -> Iterator[tuple[str, os.stat_result]]:
    """Every file that moves, as (relative path, lstat); links and special files are skipped."""
    for folder in (RECORDS, *LOG_FOLDERS):
        yield from _scan_flat(root, folder)
    for folder in PER_RECORD_FOLDERS:
        base = root / folder
        for entry in _entries(base):
            if entry.is_dir(follow_symlinks=False):
                yield from _scan_flat(root, f"{folder}/{entry.name}")


def _scan_flat(root: Path, folder: str) -> Iterator[tuple[str, os.stat_result]]:
    for entry in _entries(root / folder):
        path = f"{folder}/{entry.name}"
        info = entry.stat(follow_symlinks=False)
        if stat.S_ISREG(info.st_mode) and unit_of(path) is not None:
            yield path, info


def _entries(directory: Path) -> list[os.DirEntry[str]]:
    if directory.is_symlink():
        return []
    try:
        return sorted(os.scandir(directory), key=lambda entry: entry.name)
    except (FileNotFoundError, NotADirectoryError):
        return []
