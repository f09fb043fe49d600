"""Where the sync key lives: the OS keyring (the default) or a 0600 file the user chose.

Why never a plain-text fallback: a key file nobody asked for, left in the journal, would sit
beside the data it protects; without a usable keyring the user must choose `--key-file`.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from core.errors import SyncKeyUnavailable
from core.store.safefs import FILE_MODE, create_missing_parents
from core.sync.crypto import SyncKey

if TYPE_CHECKING:
    from types import ModuleType


def _keyring() -> ModuleType:
    """The `keyring` package, imported on first use: it loads its backends, HTTP and TLS
    modules, and every CLI command imports this module through the sync state."""
    import keyring  # noqa: PLC0415
    import keyring.errors  # noqa: PLC0415

    return keyring


def _fail_backend() -> type:
    """keyring's backend for "no usable keyring"."""
    from keyring.backends import fail  # noqa: PLC0415

    return fail.Keyring


SERVICE = "decision-journal-sync"
KEYRING_FIX = (
    "start a Secret Service provider in this session (GNOME Keyring or KeePassXC on Linux; "
    "macOS Keychain and Windows Credential Manager work out of the box), or pass --key-file "
    "PATH to keep the key in a file readable only by you (mode 0600)"
)


@dataclass(frozen=True, slots=True)
class KeyLocation:
    """Where one journal's key is kept: `keyring` (user name = journal id) or `file`."""

    kind: str
    journal_id: str
    path: str = ""

    def describe(self) -> str:
        if self.kind == "file":
            return f"key file {self.path} (mode 0600)"
        if not keyring_usable():
            return (
                f"OS keyring, which is unavailable in this session (no Secret Service or "
                f"other backend), so the key cannot be read here; fix: {KEYRING_FIX}"
            )
        return f"OS keyring ({backend_name()}), service {SERVICE!r}, user {self.journal_id!r}"


def keyring_usable() -> bool:
    """Whether `keyring` found a backend that can keep a secret (not its fail backend)."""
    return not isinstance(_keyring().get_keyring(), _fail_backend())


def backend_name() -> str:
    backend = _keyring().get_keyring()
    return f"{type(backend).__module__}.{type(backend).__name__}"


def _require_backend() -> None:
    if not keyring_usable():
        raise SyncKeyUnavailable(
            f"no usable OS keyring to keep the sync key (keyring backend: {backend_name()}); "
            f"fix: {KEYRING_FIX}"
        )


def store_key(location: KeyLocation, key: SyncKey) -> None:
    """Saves the key; a key file must not exist yet or already hold this key."""
    if location.kind == "file":
        _write_key_file(Path(location.path), key)
        return
    _require_backend()
    try:
        _keyring().set_password(SERVICE, location.journal_id, key.secret)
    except _keyring().errors.KeyringError as exc:
        raise SyncKeyUnavailable(
            f"the OS keyring ({backend_name()}) refused to store the sync key: {exc}; "
            f"fix: {KEYRING_FIX}"
        ) from exc


def load_key(location: KeyLocation) -> SyncKey:
    """The stored key.

    Raises:
        SyncKeyUnavailable: no backend, the entry is gone, or the key file is unsafe.
    """
    if location.kind == "file":
        return _read_key_file(Path(location.path))
    _require_backend()
    try:
        secret = _keyring().get_password(SERVICE, location.journal_id)
    except _keyring().errors.KeyringError as exc:
        raise SyncKeyUnavailable(
            f"the OS keyring ({backend_name()}) could not be read: {exc}; fix: {KEYRING_FIX}"
        ) from exc
    if not secret:
        raise SyncKeyUnavailable(
            f"the sync key is not in the OS keyring (service {SERVICE!r}, user "
            f"{location.journal_id!r}); run `decision-journal sync join --remote URL` again "
            "with the pairing string from another machine"
        )
    return SyncKey.parse(secret)


def forget_key(location: KeyLocation) -> None:
    """Removes the keyring entry; a key file is the user's own and is left alone."""
    if location.kind != "keyring":
        return
    try:
        _keyring().delete_password(SERVICE, location.journal_id)
    except _keyring().errors.PasswordDeleteError:
        return


def _write_key_file(path: Path, key: SyncKey) -> None:
    if path.exists() or path.is_symlink():
        if _read_key_file(path) != key:
            raise SyncKeyUnavailable(
                f"key file {path} already holds another key; choose a new path or delete it"
            )
        return
    create_missing_parents(path)  # ~/.config/decision-journal on a fresh home: 0700
    fd = os.open(
        path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), FILE_MODE
    )
    try:
        os.write(fd, (key.secret + "\n").encode("ascii"))
        os.fsync(fd)
    finally:
        os.close(fd)


def _read_key_file(path: Path) -> SyncKey:
    try:
        info = os.lstat(path)
    except FileNotFoundError as exc:
        raise SyncKeyUnavailable(
            f"key file {path} does not exist; write the pairing string from `decision-journal "
            f"sync export-key` (on a machine that syncs) into it, then run `chmod 600 {path}`"
        ) from exc
    if not stat.S_ISREG(info.st_mode):
        raise SyncKeyUnavailable(f"key file {path} is not a regular file (links are refused)")
    if info.st_mode & 0o077:
        raise SyncKeyUnavailable(
            f"key file {path} is readable by others (mode {stat.S_IMODE(info.st_mode):04o}); "
            f"run `chmod 600 {path}`"
        )
    if info.st_size > 4096:
        raise SyncKeyUnavailable(f"key file {path} is {info.st_size} bytes; a key is under 100")
    return SyncKey.parse(path.read_text(encoding="ascii", errors="replace"))
