"""Removes the temporary files our writes leave when the writing process is killed.

Why: every write goes to `.<name>.tmp-<hex>` and is renamed into place; a writer killed in
between leaves the temp file behind, and nothing else ever removes it, so they pile up with
every killed writer. A temp file is ours and stale only when all of these hold: its name has
exactly the shape `core.store.safefs.temp_name` gives, it is a regular file, it is older than
`STALE_AFTER_SECONDS` (no write takes that long), and the lock of the file it was replacing,
where there is one, is free (a writer holds that lock for the whole write).
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from core.store.safefs import TEMP_MARK, TEMP_TOKEN_BYTES

STALE_AFTER_SECONDS = 300.0
OPEN_SWEEP_DIRS = ("records", "pending", "drafts", "corrections", "notes", "profiles", "cache")
"""The folders swept when a journal is opened: all but the per-record history folders, which
a record's next edit sweeps under its lock (and `doctor --repair` sweeps all of them)."""
SWEEP_STAMP = Path("cache") / "temp-sweep.stamp"
"""Touched after each sweep at open, so a journal opened again soon is not scanned again."""
OPEN_SWEEP_INTERVAL_SECONDS = 3600.0
"""How often opening a journal sweeps: listing a large `records/` and its locks is the cost,
and left-over temp files only take space meanwhile."""
_TEMP = re.compile(rf"\.(.+){re.escape(TEMP_MARK)}[0-9a-f]{{{2 * TEMP_TOKEN_BYTES}}}")
_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)


@dataclass(slots=True)
class SweepReport:
    """What a sweep removed, and the temp files it kept because they may still be in use."""

    removed: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)


def temp_target(name: str) -> str | None:
    """The file a temp file of ours was going to replace, or None when name is not ours."""
    match = _TEMP.fullmatch(name)
    return match.group(1) if match else None


def sweep_on_open(root: Path, *, now: float | None = None) -> SweepReport:
    """The cheap sweep run when a journal is opened: the top-level folders, at most once per
    `OPEN_SWEEP_INTERVAL_SECONDS`. Best effort: a journal that cannot be written is left
    alone."""
    report = SweepReport()
    moment = time.time() if now is None else now
    stamp = root / SWEEP_STAMP
    try:
        if moment - os.stat(stamp).st_mtime < OPEN_SWEEP_INTERVAL_SECONDS:
            return report
    except OSError:
        pass
    for name in OPEN_SWEEP_DIRS:
        sweep_folder(root, root / name, report, now=moment)
    with contextlib.suppress(OSError):
        if stamp.parent.is_dir() and not stamp.parent.is_symlink():
            stamp.touch(mode=0o600)
    return report


def sweep_tree(root: Path, *, now: float | None = None) -> SweepReport:
    """Every folder under the journal (history included), for `doctor --repair`."""
    report = SweepReport()
    moment = time.time() if now is None else now
    for directory, _dirnames, _filenames in os.walk(root, followlinks=False):
        sweep_folder(root, Path(directory), report, now=moment)
    return report


def sweep_folder(
    root: Path, directory: Path, report: SweepReport, *, now: float | None = None
) -> None:
    """Removes the stale temp files of one folder (not below it)."""
    try:
        with os.scandir(directory) as listing:
            entries = [e for e in listing if e.name.startswith(".") and temp_target(e.name)]
    except OSError:
        return
    moment = time.time() if now is None else now
    for entry in entries:
        path = directory / entry.name
        if _is_stale(root, directory, entry, moment) and _remove(path):
            report.removed.append(str(path))
        else:
            report.kept.append(str(path))


def remove_stale_temps(directory: Path, names: Iterable[str]) -> None:
    """Removes the named temp files of a folder whose lock the caller holds, once stale."""
    moment = time.time()
    for name in names:
        path = directory / name
        with contextlib.suppress(OSError):
            info = os.lstat(path)
            if stat.S_ISREG(info.st_mode) and moment - info.st_mtime >= STALE_AFTER_SECONDS:
                os.unlink(path)


def _is_stale(root: Path, directory: Path, entry: os.DirEntry[str], now: float) -> bool:
    try:
        info = entry.stat(follow_symlinks=False)
    except OSError:
        return False
    if not stat.S_ISREG(info.st_mode) or now - info.st_mtime < STALE_AFTER_SECONDS:
        return False
    lock = _lock_of(root, directory, temp_target(entry.name) or "")
    return lock is None or _lock_is_free(lock)


def _lock_of(root: Path, directory: Path, target: str) -> Path | None:
    """The lock a writer of target holds: its own `.lock`, or for a history folder's files
    the lock of the record they belong to."""
    own = directory / f"{target}.lock"
    if os.path.lexists(own):
        return own
    if directory.parent == root / "history":
        record_lock = root / "records" / f"{directory.name}.json.lock"
        if os.path.lexists(record_lock):
            return record_lock
    return None


def _lock_is_free(lock: Path) -> bool:
    """Whether no process holds the lock; an unopenable or odd lock file counts as held."""
    import portalocker  # noqa: PLC0415  # its import reads package metadata: only when sweeping

    try:
        fd = os.open(lock, os.O_RDWR | _O_NOFOLLOW | _O_CLOEXEC | _O_NONBLOCK)
    except OSError:
        return False
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        return False
    with os.fdopen(fd, "r+b") as handle:
        try:
            portalocker.lock(handle, portalocker.LOCK_EX | portalocker.LOCK_NB)
        except portalocker.AlreadyLocked:
            return False
        portalocker.unlock(handle)
        return True


def _remove(path: Path) -> bool:
    try:
        os.unlink(path)
    except OSError:  # gone already, or the folder is read-only: nothing to count
        return False
    return True
