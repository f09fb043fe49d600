"""Journal health check: every record, every history chain, permissions and lock files, and
whether a capture can write.

Why probe writes: a journal can read perfectly and still lose the next decision, because a
folder capture writes into is read-only, full, or owned by someone else. Only creating and
removing a file proves it; a mode bit does not (root, ACLs, read-only mounts).
"""

from __future__ import annotations

import os
import secrets
import stat
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from core.bulk.parallel_read import read_every_record
from core.errors import JournalError, JournalNotAFolder, UnsafePath
from core.record.shape import StoredRead
from core.store.decisions import DecisionStore
from core.store.location import journal_root_problem
from core.store.safefs import DIR_MODE, FILE_MODE
from core.store.temp_sweep import SweepReport, sweep_tree, temp_target


@dataclass(frozen=True, slots=True)
class Finding:
    path: str
    problem: str
    runbook: str

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


SYNC_DIR = "sync"
"""The sync working copy's folder in the journal (`core.sync.state.WORKING_COPY`)."""
CAPTURE_DIRS = ("pending", "records", "cache")
"""The folders a capture writes: the waiting decision, the record, the index and profile."""
_PROBE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)


@dataclass(frozen=True, slots=True)
class WriteProbe:
    """Whether capture can write one folder, found by creating and removing a probe file.

    `probed` is the folder the probe was made in: the folder itself, or, before the first
    capture creates it, the nearest existing folder above it.
    """

    directory: str
    exists: bool
    probed: str
    error: str = ""

    @property
    def ok(self) -> bool:
        return not self.error

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "writable": self.ok}


def probe_capture_writes(root: Path) -> list[WriteProbe]:
    """One probe per folder of `CAPTURE_DIRS` under root, in that order."""
    return [_probe(root / name) for name in CAPTURE_DIRS]


def write_findings(probes: list[WriteProbe]) -> list[Finding]:
    """The failed probes as findings, pointing at the runbook entry that fixes them."""
    return [
        Finding(p.directory, f"capture cannot write here: {p.error}", "journal-not-writable")
        for p in probes
        if not p.ok
    ]


def _probe(directory: Path) -> WriteProbe:
    target = directory
    while not os.path.lexists(target) and target != target.parent:
        target = target.parent
    exists = target == directory
    try:
        if not os.path.isdir(target) or os.path.islink(target):
            raise UnsafePath(f"{target} is not a directory")
        _create_and_remove(target / f".doctor-probe-{secrets.token_hex(6)}")
    except (OSError, JournalError) as exc:
        error = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return WriteProbe(str(directory), exists, str(target), error)
    return WriteProbe(str(directory), exists, str(target))


def _create_and_remove(path: Path) -> None:
    fd = os.open(path, _PROBE_FLAGS, FILE_MODE)
    try:
        os.write(fd, b"\n")
    finally:
        os.close(fd)
        os.unlink(path)


@dataclass(slots=True)
class JournalHealth:
    """What a check found: the problems, and the history revisions with no digest yet
    (written before digests were kept, or by KernForge), which are not a problem."""

    findings: list[Finding] = field(default_factory=list)
    unsealed: int = 0


@dataclass(slots=True)
class RepairReport:
    """What `doctor --repair` did (stale temp files removed, history digests written), and
    the journal's health after it."""

    removed_temps: list[str] = field(default_factory=list)
    kept_temps: list[str] = field(default_factory=list)
    health: JournalHealth = field(default_factory=JournalHealth)

    @property
    def sealed(self) -> int:
        return self.health.unsealed


def check_journal(store: DecisionStore) -> list[Finding]:
    """Lists every problem; an empty list means the journal is healthy."""
    return check_health(store).findings


def check_health(store: DecisionStore, *, seal: bool = False) -> JournalHealth:
    """Every problem, and how many history revisions had no digest (`seal` writes them)."""
    health = JournalHealth()
    unusable = journal_root_problem(store.root)
    if unusable is not None:
        health.findings.append(Finding(str(store.root), unusable, JournalNotAFolder.runbook_anchor))
        return health
    if not store.root.exists():
        return health
    health.findings.extend(_check_tree(store.root))
    misplaced = _not_directories(store.records_dir, store.history_dir)
    if misplaced:
        health.findings.extend(misplaced)
        return health
    unreadable, revised = _read_every_record(store)
    health.findings.extend(unreadable)
    # A first revision without history files has nothing to chain: reading it again, under
    # its lock, doubled the check's time (bench/CHANGES.md).
    ids = revised | _history_ids(store)
    for record_id in sorted(ids):
        try:
            health.unsealed += len(store.check_history(record_id, seal=seal).unsealed)
        except JournalError as exc:
            where = str(store.history_dir / record_id)
            anchor = exc.runbook_anchor or "broken-history-chain"
            health.findings.append(Finding(where, str(exc), anchor))
    return health


def repair_journal(store: DecisionStore) -> RepairReport:
    """The safe repairs: stale temp files removed, digests written for history revisions
    that have none. Nothing else is changed; what is left is for the runbook."""
    swept = sweep_tree(store.root) if store.root.exists() else SweepReport()
    return RepairReport(swept.removed, swept.kept, check_health(store, seal=True))


def _not_directories(*folders: Path) -> list[Finding]:
    """A file where the journal keeps a folder: nothing below it can be read or checked."""
    return [
        Finding(str(folder), "is not a directory", "symlink-or-special-file")
        for folder in folders
        if os.path.lexists(folder) and not stat.S_ISDIR(os.lstat(folder).st_mode)
    ]


def _read_every_record(store: DecisionStore) -> tuple[list[Finding], set[str]]:
    """Each record file read strictly, by the reading processes of a cold build: the findings
    for those that cannot be read, and the ids of records past their first revision.

    Why not the store's listing: that builds a full model of every record in this process,
    and the check needs only each record's verdict and revision, which is several times faster
    on a large journal (bench/CHANGES.md).
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
    """Every entry's kind and mode; the sync working copy only as one folder.

    Why not inside `sync/`: it is git's repository, whose files git writes with the user's
    umask; what keeps them private is the folder itself (and the copy's own setting, which
    the next sync restores), so a `sync/` others can read is one finding, not one per file.
    """
    findings = []
    for directory, dirnames, filenames in os.walk(root, followlinks=False):
        if directory == str(root) and SYNC_DIR in dirnames:
            dirnames.remove(SYNC_DIR)
            findings.extend(_check_entry(root / SYNC_DIR))
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
    if temp_target(path.name) is not None:
        return [
            Finding(str(path), "leftover temporary file from an interrupted write", "temp-file")
        ]
    return []
