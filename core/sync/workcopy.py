"""Journal files ↔ the sync working copy: export what changed, apply what arrived.

Export reads only files whose stat identity (`core.bulk.file_identity`: device, inode, size,
mtime and ctime, and never trusted when the file changed too shortly before it was read) differs
from the last export's, and encrypts only those whose content changed, so an unchanged file
keeps its blob (age output is randomised) and an incremental sync costs what changed, not the
journal's size. Apply writes through `core.store.safefs` (atomic, private, no links; each
folder checked once per sync) under the same per-file lock the store and the logs take. Every
blob written keeps its digest and plaintext length in the state, from which this machine's
authenticated manifest lists the tree (`core.sync.authenticity.vouch`) without reading or
stat-ing the blobs again: every write and removal in the working copy goes through
`write_blob` and `remove_blob`, and a sync cut short has its blob cache dropped
(`core.sync.engine.SyncEngine.sync`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import time
from collections.abc import Iterable
from pathlib import Path

from core.bulk.file_identity import FileIdentity
from core.errors import NotFound
from core.store.locking import locked
from core.store.safefs import (
    atomic_write,
    check_no_links,
    ensure_private_dir,
    read_regular_file,
    read_regular_file_stat,
)
from core.sync import manifests
from core.sync.crypto import Codec
from core.sync.manifests import LegacyManifest
from core.sync.paths import CONFLICTS, history_path, record_path, scan_journal, unit_of
from core.sync.state import ExportedFile, SyncConfig, SyncState

FILE_MAX = 256 * 1024 * 1024
"""The largest journal file sync reads: well above any log the journal keeps."""
MANIFESTS = manifests.FOLDER
DEFERRED_FLUSH = hasattr(os, "sync")
"""Where the OS can flush everything at once, files that arrive are written without one fsync
each and flushed together before the merge counts as done: a join of thousands of records
would otherwise spend most of its time in fsync. A merge cut short is redone, so nothing
depends on the unflushed files until then."""


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class WorkingCopy:
    """One journal and its working copy, with this machine's index and name map."""

    def __init__(
        self,
        *,
        root: Path,
        working_copy: Path,
        codec: Codec,
        config: SyncConfig,
        index: dict[str, ExportedFile],
        state: SyncState,
    ) -> None:
        self.root = root
        self.path = working_copy
        self.codec = codec
        self.config = config
        self.index = index
        self.state = state
        self.unflushed = False
        """Journal files were written without their own fsync; `flush` makes them durable."""
        self.checked_dirs: set[Path] = set()
        """Folders made private and checked for links in this sync (each once)."""

    # names ------------------------------------------------------------------------------

    def path_of(self, name: str) -> str | None:
        """The journal path a working-copy name stands for, when known."""
        if not self.codec.encrypted:
            return name if unit_of(name) is not None else None
        return self.state.known.get(name)

    def learn_legacy_manifest(self, data: bytes) -> None:
        """Names from a format-1 manifest (trusted only while a remote migrates)."""
        manifest = LegacyManifest.decode(self.codec.open(data))
        self.state.machines.update({**manifest.machines, manifest.machine: manifest.name})
        for path in manifest.paths:
            self.state.known[self.codec.name(path)] = path

    # export -----------------------------------------------------------------------------

    def export(self) -> int:
        """Brings the working copy level with the journal; returns how many files changed."""
        seen: set[str] = set()
        changed = 0
        started = time.time_ns()
        for path, info in scan_journal(self.root):
            seen.add(path)
            entry = self.index.get(path)
            if entry is not None and entry.unchanged(FileIdentity.of(info)):
                continue
            target = self.root / path
            self._checked_dir(target.parent, create=False)
            data, read_info = read_regular_file_stat(
                self.root, target, FILE_MAX, parents_checked=True
            )
            name = self.codec.name(path)
            found = digest(data)
            if entry is None or entry.digest != found:
                self.write_blob(name, self.codec.seal(data), len(data))
                changed += 1
            if self.state.known.get(name) != path:
                self.state.known[name] = path
            self.index[path] = ExportedFile(_trusted(read_info, started), found, name)
        for path in set(self.index) - seen:
            self.remove_blob(self.index.pop(path).name)
            changed += 1
        return changed

    # blobs --------------------------------------------------------------------------------

    def write_blob(self, name: str, data: bytes, length: int = -1) -> None:
        """Writes one working-copy file; `length` is its plaintext's before padding (-1 for
        a file stored as it is)."""
        target = self.path / name
        self._checked_dir(target.parent)
        atomic_write(self.root, target, data, durable=False, parents_checked=True)
        if not name.startswith(f"{MANIFESTS}/"):
            self.state.blobs[name] = [digest(data), length]

    def remove_blob(self, name: str) -> None:
        self.state.blobs.pop(name, None)
        try:
            os.unlink(self.path / name)
        except FileNotFoundError:
            return

    def _checked_dir(self, directory: Path, *, create: bool = True) -> None:
        """Checks a folder for links once per sync (and makes it, private, unless told not
        to: a folder the scan found is read, not written)."""
        if directory not in self.checked_dirs:
            if create:
                ensure_private_dir(self.root, directory)
            else:
                check_no_links(self.root, directory)
            self.checked_dirs.add(directory)

    # journal ------------------------------------------------------------------------------

    def read(self, path: str) -> bytes | None:
        target = self.root / path
        checked = target.parent in self.checked_dirs
        try:
            return read_regular_file(self.root, target, FILE_MAX, parents_checked=checked)
        except (FileNotFoundError, NotFound):
            return None

    def locally_changed(self, path: str) -> bool:
        """Whether the journal file differs from what was last exported."""
        entry = self.index.get(path)
        data = self.read(path)
        if entry is None or data is None:
            return entry is not None or data is not None
        return entry.digest != digest(data)

    def apply(self, path: str, data: bytes | None, blob: bytes | None) -> None:
        """Writes (or, for None, removes) one journal file and its working-copy blob."""
        name = self.codec.name(path)
        target = self.root / path
        if data is None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(target)
            if path.startswith(f"{CONFLICTS}/"):
                self.checked_dirs.discard(target.parent)
                with contextlib.suppress(OSError):
                    target.parent.rmdir()
            self.remove_blob(name)
            self.index.pop(path, None)
            return
        self._checked_dir(target.parent)
        written_at = time.time_ns()
        atomic_write(self.root, target, data, durable=not DEFERRED_FLUSH, parents_checked=True)
        self.unflushed = True
        self.write_blob(name, blob if blob is not None else self.codec.seal(data), len(data))
        if self.state.known.get(name) != path:
            self.state.known[name] = path
        self.index[path] = ExportedFile(_trusted(os.lstat(target), written_at), digest(data), name)

    def apply_unit(
        self, key: str, kind: str, files: dict[str, tuple[bytes | None, bytes | None]]
    ) -> None:
        """Applies one unit's files under its lock; a record's current file goes last."""
        lock_path = self.root / _lock_target(key, kind)
        self._checked_dir(lock_path.parent)
        with locked(self.root, lock_path):
            ordered = sorted(files, key=lambda p: (p.startswith("records/"), p))
            current = record_path(key) if kind == "record" else ""
            for path in ordered:
                if current in files and (revision := _history_revision(path)) is not None:
                    self._step_current(current, revision, files)
                self.apply(path, *files[path])

    def _step_current(
        self, current: str, revision: int, files: dict[str, tuple[bytes | None, bytes | None]]
    ) -> None:
        """Before history revision N is written, the current record becomes revision N (the
        history file's own bytes), so the journal is whole at every step of a unit cut short:
        history is always 1..current-1 (the store refuses history ahead of its record, and a
        history folder with no record)."""
        data = files[history_path_of(current, revision)][0]
        if data is None or _revision_of(self.read(current)) >= revision:
            return
        target = self.root / current
        self._checked_dir(target.parent)
        atomic_write(self.root, target, data, durable=not DEFERRED_FLUSH, parents_checked=True)
        self.unflushed = True

    def flush(self) -> None:
        if self.unflushed:
            os.sync()
            self.unflushed = False

    def adopt_blobs(self, blobs: Iterable[tuple[str, bytes, int]]) -> None:
        """Takes the remote's blob (name, blob, plaintext length) for files whose plaintext
        is the same on both sides."""
        for name, blob, length in blobs:
            self.write_blob(name, blob, length)


_HISTORY_REVISION = re.compile(r"history/[^/]+/revision-(\d{6,})\.json")


def _history_revision(path: str) -> int | None:
    """N for a history revision file (not its digest), None for anything else."""
    match = _HISTORY_REVISION.fullmatch(path)
    return int(match.group(1)) if match else None


def history_path_of(current: str, revision: int) -> str:
    record_id = current.removeprefix("records/").removesuffix(".json")
    return history_path(record_id, revision)


def _revision_of(data: bytes | None) -> int:
    if data is None:
        return 0
    try:
        value = json.loads(data)
    except ValueError:
        return 0
    return int(value.get("revision", 0)) if isinstance(value, dict) else 0


def _lock_target(key: str, kind: str) -> str:
    """The file whose lock a unit's writes take: the record for everything kept per record
    (the store's own lock), the log itself for a log (the lock `AppendLog` takes)."""
    if kind == "record":
        return record_path(key)
    parts = key.split("/")
    return record_path(parts[1]) if kind == "file" and len(parts) == 3 else key


def _trusted(info: os.stat_result, read_at_ns: int) -> FileIdentity | None:
    """The identity of a file read (or written) at `read_at_ns`; None when it changed too
    shortly before to prove later that it did not change again (`FileIdentity.racy`)."""
    identity = FileIdentity.of(info)
    return None if identity.racy(read_at_ns) else identity
