"""Journal health check: every record, every history chain, permissions and lock files."""

from __future__ import annotations

import os
import stat
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from core.errors import JournalError
from core.parallel_read import read_every_record
from core.record_shape import StoredRead
from core.safefs import DIR_MODE, FILE_MODE
from core.store import DecisionStore


@dataclass(frozen=True, slots=True)
class Finding:
    path: str
    problem: str
    runbook: str

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def check_journal(store: DecisionStore) -> list[Finding]:
    """Lists every problem; an empty list means the journal is healthy."""
    findings: list[Finding] = []
    if not store.root.exists():
        return findings
    findings.extend(_check_tree(store.root))
    unreadable, revised = _read_every_record(store)
    findings.extend(unreadable)
    # A first revision without history files has nothing to chain: reading it again, under
    # its lock, doubled the check's time (10,000 records: 3.05 s of 4.9 s).
    ids = revised | _history_ids(store)
    for record_id in sorted(ids):
        try:
            store.history(record_id)
        except JournalError as exc:
            where = str(store.history_dir / record_id)
            findings.append(Finding(where, str(exc), exc.runbook_anchor or "broken-history-chain"))
    return findings


def _read_every_record(store: DecisionStore) -> tuple[list[Finding], set[str]]:
    """Each record file read strictly, by the reading processes of a cold build: the findings
    for those that cannot be read, and the ids of records past their first revision.

    Why not the store's listing: that builds a full model of every record in this process,
    and the check needs only each record's verdict and revision (the whole check of 100,000
    records: 24-25 s that way, 3.6-4.8 s this way; 10,000: 1.65 s, 0.59 s).
    A file removed while the check runs is gone, not damaged, and is not reported.
    """
    findings: list[Finding] = []
    revised: set[str] = set()
    for outcomes in read_every_record(store, _revision_of, None):
        for outcome in outcomes:
            if outcome.failure is not None:
                if not outcome.failure.vanished:
                    failure = outcome.failure
                    findings.append(Finding(failure.path, failure.message, failure.anchor))
            elif outcome.value is not None and outcome.value[1] > 1:
                revised.add(outcome.value[0])
    findings.sort(key=lambda finding: finding.path)
    return findings, revised


def _revision_of(_name: str, _extra: None, read: StoredRead) -> tuple[str, int]:
    """What a reading process keeps of each record for the check (a module function: it is
    sent to worker processes by name)."""
    return read.record.id, read.record.revision


def _history_ids(store: DecisionStore) -> set[str]:
    try:
        return {name for name in os.listdir(store.history_dir) if not name.startswith(".")}
    except FileNotFoundError:
        return set()


def _check_tree(root: Path) -> list[Finding]:
    findings = []
    for directory, dirnames, filenames in os.walk(root, followlinks=False):
        for name in dirnames + filenames:
            findings.extend(_check_entry(Path(directory) / name))
    findings.extend(_check_entry(root))
    return findings


def _check_entry(path: Path) -> list[Finding]:
    info = os.lstat(path)
    if stat.S_ISLNK(info.st_mode):
        kind = "lock-file-replaced" if path.name.endswith(".lock") else "symlink-or-special-file"
        return [Finding(str(path), "is a symbolic link", kind)]
    if os.name != "posix":
        return []
    mode = stat.S_IMODE(info.st_mode)
    if stat.S_ISDIR(info.st_mode):
        expected = DIR_MODE
    elif stat.S_ISREG(info.st_mode):
        expected = FILE_MODE
    else:
        return [Finding(str(path), "is not a regular file or directory", "symlink-or-special-file")]
    if mode & ~expected:
        return [
            Finding(
                str(path),
                f"permissions {oct(mode)} are too open (expected {oct(expected)})",
                "permissions-too-open",
            )
        ]
    if path.name.startswith(".") and ".tmp-" in path.name:
        return [
            Finding(str(path), "leftover temporary file from an interrupted write", "temp-file")
        ]
    return []
