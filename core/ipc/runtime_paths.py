"""Where the tray app's local socket lives, derived from the journal it serves.

Why: one app instance serves one journal, and every client (CLI, MCP server, hooks) must find
that instance without configuration. The socket name is a hash of the canonical journal path,
so two journals (or a test's temporary journal) never share a socket. The directory is private
to the user, so the filesystem keeps other users away before any peer-credential check runs.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import stat
import sys
from pathlib import Path

from core.errors import RuntimeDirUnsafe

APP_DIR_NAME = "decision-journal"
SUN_PATH_MAX = 104
"""macOS's sun_path holds 104 bytes (Linux 108) including the NUL; we keep every path below."""

_JOURNAL_HASH_HEX = 16
_USER_HASH_HEX = 12
_PRIVATE_MODE = 0o700


def canonical_journal_path(journal_dir: Path) -> str:
    """The one spelling of a journal path that every process derives the same socket from.

    Symlinks and relative spellings are resolved so that `~/journal` and `/home/me/journal`
    reach the same app; Windows paths are case-folded because the filesystem is.
    """
    text = os.path.realpath(os.path.abspath(os.fspath(journal_dir)))
    if sys.platform == "win32":
        text = os.path.normcase(text)
    return text


def journal_key(journal_dir: Path) -> str:
    """First 16 hex digits of sha256(canonical journal path): short, stable, collision-safe."""
    digest = hashlib.sha256(os.fsencode(canonical_journal_path(journal_dir))).hexdigest()
    return digest[:_JOURNAL_HASH_HEX]


def _fits_sun_path(path: Path) -> bool:
    return len(os.fsencode(str(path))) < SUN_PATH_MAX


def _socket_name(journal_dir: Path) -> str:
    return f"j-{journal_key(journal_dir)}.sock"


def _candidate_dirs() -> list[Path]:
    """Runtime directories in order of preference; the first usable one wins.

    Platformdirs is consulted only on macOS: on Linux it warns and invents `/tmp/runtime-<uid>`
    when XDG_RUNTIME_DIR is unset, and we prefer our own explicitly checked fallback.
    """
    candidates: list[Path] = []
    xdg = os.environ.get("XDG_RUNTIME_DIR", "")
    if xdg and os.path.isabs(xdg) and os.path.isdir(xdg):
        candidates.append(Path(xdg) / APP_DIR_NAME)
    uid = os.getuid()
    if sys.platform == "darwin":
        import platformdirs  # noqa: PLC0415  # macOS only: `status` on Linux loads none of it

        candidates.append(Path(platformdirs.user_runtime_dir(APP_DIR_NAME, appauthor=False)))
    else:
        systemd_runtime = Path(f"/run/user/{uid}")
        if systemd_runtime.is_dir() and systemd_runtime.stat().st_uid == uid:
            candidates.append(systemd_runtime / APP_DIR_NAME)
    candidates.append(Path("/tmp") / f"{APP_DIR_NAME}-{uid}")
    return candidates


def runtime_dir() -> Path:
    """The per-user directory that holds this user's sockets (not created here).

    A candidate is usable when its parent exists and a socket path inside it stays below the
    sun_path limit; `/tmp/decision-journal-<uid>` is the last resort and always fits.
    """
    if sys.platform == "win32":
        import platformdirs  # noqa: PLC0415  # Windows only (see `_candidate_dirs`)

        return Path(platformdirs.user_runtime_dir(APP_DIR_NAME, appauthor=False))
    probe_name = "j-" + "0" * _JOURNAL_HASH_HEX + ".sock"
    for candidate in _candidate_dirs():
        if candidate.parent.is_dir() and _fits_sun_path(candidate / probe_name):
            return candidate
    raise RuntimeDirUnsafe("no runtime directory fits the socket path limit")


def _user_hash() -> str:
    """Windows pipe names are global to the machine, so they carry a hash of the user."""
    user = os.environ.get("USERNAME", "") or os.environ.get("USER", "")
    domain = os.environ.get("USERDOMAIN", "")
    digest = hashlib.sha256(f"{domain}\\{user}".lower().encode("utf-8")).hexdigest()
    return digest[:_USER_HASH_HEX]


def socket_path(journal_dir: Path) -> Path:
    """The socket of the app instance serving `journal_dir`.

    On POSIX an absolute path `<runtime dir>/j-<hash>.sock`; on Windows a bare pipe name
    `decision-journal-<user hash>-<journal hash>` (Qt turns it into `\\\\.\\pipe\\<name>`).
    """
    if sys.platform == "win32":
        return Path(f"{APP_DIR_NAME}-{_user_hash()}-{journal_key(journal_dir)}")
    return runtime_dir() / _socket_name(journal_dir)


def lock_path(journal_dir: Path) -> Path:
    """The file whose lock marks the live instance for `journal_dir`.

    Why a lock besides the socket: Qt's `UserAccessOption` binds in a temporary directory and
    renames over the final path, so a second `listen()` would silently steal a live socket.
    """
    return runtime_dir() / f"j-{journal_key(journal_dir)}.lock"


def _check_private_dir(path: Path, *, repair_mode: bool) -> None:
    """Verifies `path` is a real directory owned by us and closed to everyone else.

    The checks run on a descriptor opened with O_NOFOLLOW, so the directory cannot be swapped
    for a symlink between the check and the chmod.
    """
    info = os.lstat(path)
    if stat.S_ISLNK(info.st_mode):
        raise RuntimeDirUnsafe(f"runtime directory {path} is a symbolic link; refusing it")
    if not stat.S_ISDIR(info.st_mode):
        raise RuntimeDirUnsafe(f"runtime directory {path} is not a directory")
    flags = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            raise RuntimeDirUnsafe(f"runtime directory {path} was replaced while checked") from exc
        raise
    try:
        info = os.fstat(fd)
        uid = os.getuid()
        if info.st_uid != uid:
            raise RuntimeDirUnsafe(
                f"runtime directory {path} is owned by uid {info.st_uid}, not by uid {uid}"
            )
        mode = stat.S_IMODE(info.st_mode)
        if mode & 0o077:
            if not repair_mode:
                raise RuntimeDirUnsafe(
                    f"runtime directory {path} has mode {mode:04o}; it must be 0700"
                )
            os.fchmod(fd, _PRIVATE_MODE)
    finally:
        os.close(fd)


def ensure_runtime_dir(path: Path | None = None) -> Path:
    """Creates the runtime directory 0700 if missing and refuses one that is not ours alone.

    A directory we own with looser permissions is tightened rather than refused: only we (or
    root) could have loosened it. A symlink or a directory owned by someone else is refused,
    because another user could then read or replace our socket.

    Raises:
        RuntimeDirUnsafe: the directory is a symlink, not a directory, or owned by another user.
    """
    target = runtime_dir() if path is None else path
    if sys.platform == "win32":
        target.mkdir(parents=True, exist_ok=True)
        return target
    with contextlib.suppress(FileExistsError):
        os.mkdir(target, _PRIVATE_MODE)
    _check_private_dir(target, repair_mode=True)
    return target


def check_runtime_dir(path: Path) -> None:
    """Client-side check: trust a socket only inside a private directory owned by us.

    A socket in a 0700 directory we own can only have been bound by us or root, so a client
    never hands a proposal to another user's listener.

    Raises:
        FileNotFoundError: the directory does not exist (no app has run).
        RuntimeDirUnsafe: the directory is not private to this user.
    """
    _check_private_dir(path, repair_mode=False)
