"""Journal health check: every record, every history chain, permissions and lock files."""

from __future__ import annotations

import os
import stat
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from core.errors import JournalError
from core.filters import ListFilter
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
    listing = store.list_with_issues(ListFilter(include_deleted=True))
    for issue in listing.issues:
        findings.append(Finding(issue.path, issue.error, _anchor_for(issue.error)))
    # A first revision without history files has nothing to chain: reading it again, under
    # its lock, doubled the check's time (10,000 records: 3.05 s of 4.9 s).
    ids = {r.id for r in listing.records if r.revision > 1}
    ids |= _history_ids(store)
    for record_id in sorted(ids):
        try:
            store.history(record_id)
        except JournalError as exc:
            where = str(store.history_dir / record_id)
            findings.append(Finding(where, str(exc), exc.runbook_anchor or "broken-history-chain"))
    return findings


def _history_ids(store: DecisionStore) -> set[str]:
    try:
        return {name for name in os.listdir(store.history_dir) if not name.startswith(".")}
    except FileNotFoundError:
        return set()


def _anchor_for(error: str) -> str:
    lowered = error.lower()
    if "symbolic link" in lowered or "not a regular file" in lowered:
        return "symlink-or-special-file"
    if "storage limit" in lowered:
        return "record-over-size-cap"
    return "unreadable-record"


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
