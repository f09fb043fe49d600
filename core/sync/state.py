"""This machine's sync settings and bookkeeping, kept inside `sync/.git/` so they never move.

`config.json`: the journal's sync id (the keyring user name), this machine's random id and
name, whether the remote is encrypted, where the key is. `index.json`: for each journal file
last exported, its stat, plaintext digest and working-copy name, so an unchanged file is neither
read nor re-encrypted (age output is randomised: a re-encrypted file would be a new blob).
`state.json`: the last sync's time and result, and a merge in progress (to redo after a kill).
"""

from __future__ import annotations

import json
import os
import socket
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from core.errors import InvalidDecision
from core.store.safefs import atomic_write, ensure_private_dir
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
class IndexEntry:
    size: int
    mtime_ns: int
    ino: int
    digest: str
    name: str


@dataclass(slots=True)
class SyncState:
    last_sync_at: str = ""
    last_result: str = ""
    last_error: str = ""
    merging: str = ""
    segment: int = 0
    known: dict[str, str] = field(default_factory=dict)
    machines: dict[str, str] = field(default_factory=dict)
    announce_name: bool = False
    """This machine was renamed: the next export tells the others (a manifest of no paths)."""
    seen: dict[str, int] = field(default_factory=dict)
    """Machine id → the highest manifest sequence number verified from it (this machine's own:
    the highest it pushed); an older one on the remote is a rollback."""
    blobs: dict[str, list[Any]] = field(default_factory=dict)
    """Working-copy name → [SHA-256 of the blob, plaintext length (-1: not padded), and the
    file's size, mtime_ns and inode], so a manifest lists the tree without reading every blob
    again (a file whose stat differs is read again)."""
    refused_at: str = ""
    """When the last sync that refused anything ran ("" when none ever did)."""
    refused_count: int = 0
    refusals: list[dict[str, str]] = field(default_factory=list)
    """That sync's refusals (`core.sync.report.Refusal.to_dict`), the first `KEPT_REFUSALS`."""


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


class StateFiles:
    """Reads and writes the three files under `<journal>/sync/.git/decision-journal/`."""

    def __init__(self, journal_root: Path) -> None:
        self.journal_root = journal_root
        self.working_copy = journal_root / WORKING_COPY
        self.directory = self.working_copy / ".git" / STATE_DIR

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

    def index(self) -> dict[str, IndexEntry]:
        raw = self._read("index.json") or {}
        return {path: IndexEntry(*values) for path, values in raw.items()}

    def save_index(self, index: dict[str, IndexEntry]) -> None:
        self._write("index.json", {path: list(asdict(e).values()) for path, e in index.items()})

    def state(self) -> SyncState:
        raw = self._read("state.json")
        if not raw:
            return SyncState()
        known = {name for name in SyncState.__dataclass_fields__}
        return SyncState(**{k: v for k, v in raw.items() if k in known})

    def save_state(self, state: SyncState) -> None:
        # its fields as they are: `asdict` would deep-copy the name map and blob digests
        self._write("state.json", {f.name: getattr(state, f.name) for f in fields(state)})

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
