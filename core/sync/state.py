"""This machine's sync settings and bookkeeping, kept inside `sync/.git/` so they never move.

`config.json`: the journal's sync id (the keyring user name), this machine's random id and
name, whether the remote is encrypted, where the key is. `state.json`: the last sync's time and
result, a merge in progress (to redo after a kill), the manifests seen. `files.json` and its log
(`core.sync.delta_maps`: saved by what changed, so an incremental sync writes what it changed):
for each journal file last exported its stat identity, plaintext digest and working-copy name
(`ExportedFile`: an unchanged file is neither read nor re-encrypted, and age output is
randomised, so a re-encrypted file would be a new blob), the journal path of each working-copy
name, and the digest and length of each blob.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import socket
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import msgspec

from core.bulk.file_identity import FileIdentity
from core.errors import InvalidDecision
from core.store.safefs import atomic_write, ensure_private_dir
from core.sync.delta_maps import DeltaMaps, TrackedMap, changes_of
from core.sync.keystore import KeyLocation

WORKING_COPY = "sync"
STATE_DIR = "decision-journal"
FORMAT = 1


@dataclass(slots=True)
class SyncConfig:
    journal_id: str
    machine: str
    machine_name: str
    encrypted: bool
    key_kind: str = "keyring"
    key_file: str = ""
    format: int = FORMAT

    @property
    def key_location(self) -> KeyLocation:
        return KeyLocation(self.key_kind, self.journal_id, self.key_file)


@dataclass(slots=True)
class ExportedFile:
    """A journal file as sync last exported it (or wrote it from the remote)."""

    identity: FileIdentity | None
    """Its stat identity when read (`core.bulk.file_identity`); None when it changed too
    shortly before it was read to be trusted, so the next export reads it again."""
    digest: str
    """SHA-256 of its plaintext, hex."""
    name: str
    """Its working-copy name."""

    def unchanged(self, identity: FileIdentity) -> bool:
        """Whether a file with this identity is proven to be the one exported."""
        return self.identity is not None and self.identity == identity

    def to_list(self) -> list[Any]:
        found = None if self.identity is None else list(msgspec.structs.astuple(self.identity))
        return [found, self.digest, self.name]

    @classmethod
    def from_list(cls, values: list[Any]) -> ExportedFile:
        found, digest, name = values
        return cls(None if found is None else FileIdentity(*found), str(digest), str(name))


@dataclass(slots=True)
class SyncState:
    last_sync_at: str = ""
    last_result: str = ""
    last_error: str = ""
    merging: str = ""
    segment: int = 0
    known: dict[str, str] = field(default_factory=TrackedMap)
    """Working-copy name → the journal path it stands for."""
    machines: dict[str, str] = field(default_factory=dict)
    announce_name: bool = False
    """This machine was renamed: the next export tells the others (a manifest of no paths)."""
    seen: dict[str, int] = field(default_factory=dict)
    """Machine id → the highest manifest sequence number verified from it (this machine's own:
    the highest it pushed); an older one on the remote is a rollback."""
    blobs: dict[str, list[Any]] = field(default_factory=TrackedMap)
    """Working-copy name → [SHA-256 of the blob, plaintext length (-1: not padded), and the
    file's size, mtime_ns and inode], so a manifest lists the tree without reading every blob
    again (a file whose stat differs is read again)."""
    refused_at: str = ""
    """When the last sync that refused anything ran ("" when none ever did)."""
    refused_count: int = 0
    refusals: list[dict[str, str]] = field(default_factory=list)
    """That sync's refusals (`core.sync.report.Refusal.to_dict`), the first `KEPT_REFUSALS`."""
    peers: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Machine id → what this machine last verified of that writer (`core.sync.peers`): its
    newest manifest's number and time, when that first arrived here, and the number of this
    machine's manifest it had seen then."""
    joining: bool = False
    """Set by `sync join` until its first merge passed every check: a refusal then fails the
    join whole (nothing is pushed over the remote), also in a sync that resumes a join cut
    short."""


MACHINE_NAME_MAX = 40


def checked_machine_name(name: str) -> str:
    """A name the user gave this machine, trimmed; refuses an empty, over-long or unprintable
    one (it is shown in listings and terminals on every machine).

    Raises:
        InvalidDecision: naming the field `name` and the limit.
    """
    trimmed = name.strip()
    if not trimmed or len(trimmed) > MACHINE_NAME_MAX or not trimmed.isprintable():
        raise InvalidDecision(
            f"a machine name must be 1 to {MACHINE_NAME_MAX} printable characters "
            f"(got {len(trimmed)})",
            field="name",
            limit=MACHINE_NAME_MAX,
        )
    return trimmed


def machine_name() -> str:
    """A short, file-name-safe host name for conflict listings (it never leaves encrypted)."""
    name = "".join(c if c.isalnum() or c in "-_" else "-" for c in socket.gethostname())
    return name[:40] or "machine"


FILES = "files"
KNOWN = "known"
BLOBS = "blobs"
EXPORTED = "exported"
MAPPED = frozenset({KNOWN, BLOBS})
"""The state's fields kept in the delta maps, not in `state.json`."""
LEGACY_FILES = ("index.json",)
"""Files of an earlier version, folded into the delta maps by the first save."""


def _same(value: Any) -> Any:
    return value


class StateFiles:
    """Reads and writes the files under `<journal>/sync/.git/decision-journal/`."""

    def __init__(self, journal_root: Path) -> None:
        self.journal_root = journal_root
        self.working_copy = journal_root / WORKING_COPY
        self.directory = self.working_copy / ".git" / STATE_DIR
        self._delta_maps: DeltaMaps | None = None

    @property
    def configured(self) -> bool:
        return (self.directory / "config.json").is_file()

    def _read(self, name: str) -> Any:
        try:
            return json.loads((self.directory / name).read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None

    def _write(self, name: str, value: Any, directory: Path | None = None) -> None:
        folder = directory or self.directory
        ensure_private_dir(self.journal_root, folder)
        data = json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        atomic_write(self.journal_root, folder / name, data)

    def config(self) -> SyncConfig:
        return SyncConfig(**self._read("config.json"))

    def save_config(self, config: SyncConfig, directory: Path | None = None) -> None:
        """Saves the config here, or in `directory` (a set-up's staging copy)."""
        self._write("config.json", asdict(config), directory)

    def index(self) -> dict[str, ExportedFile]:
        """Journal path → how it was last exported."""
        return self.load()[1]

    def state(self) -> SyncState:
        return self.load()[0]

    def load(self) -> tuple[SyncState, dict[str, ExportedFile]]:
        """The state and the index, read once."""
        raw = self._read("state.json") or {}
        known = {name for name in SyncState.__dataclass_fields__}
        state = SyncState(**{k: v for k, v in raw.items() if k in known and k not in MAPPED})
        maps = self._maps()
        state.known = TrackedMap(maps.get(KNOWN, {}))
        state.blobs = TrackedMap(maps.get(BLOBS, {}))
        exported = maps.get(EXPORTED, {})
        index: TrackedMap[ExportedFile] = TrackedMap(
            {p: ExportedFile.from_list(v) for p, v in exported.items()}
        )
        return state, index

    def save(self, state: SyncState, index: Mapping[str, ExportedFile]) -> None:
        """Saves the state and the index: the changes of their maps first (the names' paths
        before what was exported: a save cut short then leaves an older index, so the next
        export writes those files again, instead of exported files whose paths no manifest
        would name), then `state.json`."""
        changes = itertools.chain(
            changes_of(KNOWN, state.known, _same),
            changes_of(BLOBS, state.blobs, _same),
            changes_of(EXPORTED, index, ExportedFile.to_list),
        )

        def everything() -> dict[str, Mapping[str, Any]]:
            exported = {path: entry.to_list() for path, entry in index.items()}
            return {KNOWN: state.known, BLOBS: state.blobs, EXPORTED: exported}

        self._delta().save(changes, everything)
        for tracked in (state.known, state.blobs, index):
            if isinstance(tracked, TrackedMap):
                tracked.saved()
        if not isinstance(state.known, TrackedMap):
            state.known = TrackedMap(state.known)
        if not isinstance(state.blobs, TrackedMap):
            state.blobs = TrackedMap(state.blobs)
        self._save_scalars(state)

    def save_state(self, state: SyncState) -> None:
        """Saves the state alone (the index as it is on disk)."""
        self.save(state, self.index())

    def save_new_state(self, state: SyncState, directory: Path) -> None:
        """The first state of a set-up, in its staging copy (`directory`); its maps are empty."""
        self._save_scalars(state, directory)

    def _save_scalars(self, state: SyncState, directory: Path | None = None) -> None:
        # its fields as they are: `asdict` would deep-copy the lists and maps
        scalars = {f.name: getattr(state, f.name) for f in fields(state) if f.name not in MAPPED}
        self._write("state.json", scalars, directory)
        for old in LEGACY_FILES:
            with contextlib.suppress(FileNotFoundError):
                (self.directory / old).unlink()

    def _delta(self) -> DeltaMaps:
        if self._delta_maps is None:
            self._delta_maps = DeltaMaps(self.journal_root, self.directory, FILES)
        return self._delta_maps

    def _maps(self) -> dict[str, dict[str, Any]]:
        """The maps as saved; from the files of a version that wrote them whole (`index.json`,
        and the maps in `state.json`) while no snapshot exists."""
        delta = self._delta()
        maps = delta.load()
        if maps is not None:
            return maps
        state = self._read("state.json") or {}
        legacy = self._read("index.json") or {}
        # that version's stat was size, mtime and inode alone: each file is read again once
        exported = {path: [None, v[3], v[4]] for path, v in legacy.items()}
        return {KNOWN: state.get(KNOWN, {}), BLOBS: state.get(BLOBS, {}), EXPORTED: exported}

    @property
    def slot_path(self) -> Path:
        return self.directory / RESULT_FILE

    def mark(self, result: str, error: str = "") -> bool:
        """Records the outcome in the result slot (see `write_slot`); False when even that
        failed (the slot was never made, or the disk refuses every write)."""
        pid = os.getpid() if result == RUNNING else 0
        try:
            write_slot(self.slot_path, ResultSlot(result, error, pid))
        except OSError:
            return False
        return True

    def slot(self) -> ResultSlot | None:
        return read_slot(self.slot_path)


RESULT_FILE = "result"
RESULT_SIZE = 4096
RUNNING = "running"
"""The result slot while a sync runs; one left by a process that is gone was cut short."""


@dataclass(slots=True)
class ResultSlot:
    """The last sync's outcome as the slot holds it: result word, error, the syncing pid."""

    result: str = ""
    error: str = ""
    pid: int = 0

    @property
    def interrupted(self) -> bool:
        """A sync that started and never finished (killed, or the machine stopped)."""
        return self.result == RUNNING and not _alive(self.pid)


def _alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def write_slot(path: Path, slot: ResultSlot) -> None:
    """Writes the slot in place, padded to `RESULT_SIZE`: the file's blocks were allocated when
    it was made, so this write needs no new space and tells the truth on a full disk too."""
    body = json.dumps(asdict(slot), ensure_ascii=False).encode("utf-8")[: RESULT_SIZE - 1]
    data = body + b"\n" + b" " * (RESULT_SIZE - len(body) - 1)
    flags = os.O_WRONLY | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags, 0o600)
    try:
        os.pwrite(fd, data, 0)
        os.fsync(fd)
    finally:
        os.close(fd)


def read_slot(path: Path) -> ResultSlot | None:
    try:
        with open(path, "rb") as handle:
            raw = json.loads(handle.read(RESULT_SIZE).split(b"\n", 1)[0] or b"{}")
    except (OSError, ValueError):
        return None
    if not isinstance(raw, dict) or not raw:
        return None
    return ResultSlot(str(raw.get("result", "")), str(raw.get("error", "")), int(raw.get("pid", 0)))


def new_journal_id() -> str:
    return "journal-" + os.urandom(8).hex()


def new_machine_id() -> str:
    return os.urandom(4).hex()
