"""Filesystem primitives that refuse links and special files and never leave half-written data.

Why: the journal is private reasoning data; a symlink planted in it must not redirect reads or
writes, and a crash mid-write must leave either the old or the new file, never a torn one.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path

from core.errors import (
    NotFound,
    OversizedFile,
    UnsafePath,
    is_storage_failure,
    storage_failure,
)

DIR_MODE = 0o700
FILE_MODE = 0o600
_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_O_BINARY = getattr(os, "O_BINARY", 0)
_READ_STEP = 1 << 16
TEMP_MARK = ".tmp-"
TEMP_TOKEN_BYTES = 6


def check_no_links(root: Path, target: Path) -> None:
    """lstat every component from the journal root down to target; missing ones are fine."""
    current = root
    components = [root, *_components_below(root, target)]
    for current in components:
        try:
            info = os.lstat(current)
        except FileNotFoundError:
            return
        if stat.S_ISLNK(info.st_mode) or _is_reparse_point(info):
            raise UnsafePath(
                f"implementation decision path contains a symbolic link or reparse point: "
                f"{current}",
                path=str(current),
            )


def _components_below(root: Path, target: Path) -> list[Path]:
    try:
        relative = target.relative_to(root)
    except ValueError as exc:
        raise UnsafePath(f"path {target} is outside the journal {root}", path=str(target)) from exc
    if ".." in relative.parts:  # lexically below root, but `..` climbs back out
        raise UnsafePath(f"path {target} climbs out of the journal {root}", path=str(target))
    out = []
    current = root
    for part in relative.parts:
        current = current / part
        out.append(current)
    return out


def _is_reparse_point(info: os.stat_result) -> bool:
    attributes = getattr(info, "st_file_attributes", 0)
    return bool(attributes & getattr(stat, "FILE_ATTRIBUTE_REPARSE_POINT", 0))


def ensure_private_dir(root: Path, directory: Path) -> None:
    """Creates directory (and parents below root) as 0700 and tightens existing ones.

    The folders above root that are missing (a fresh account has no `~/.local/share`, and
    `--journal /new/a/b` names a path that does not exist yet) are created as 0700 too; the
    ones that exist are the user's and keep their mode.
    """
    with explained_os_errors("create the folder", directory):
        create_missing_parents(root)
        check_no_links(root, directory)
        for path in [root, *_components_below(root, directory)]:
            with contextlib.suppress(FileExistsError):
                path.mkdir(mode=DIR_MODE)
            info = os.lstat(path)
            if not stat.S_ISDIR(info.st_mode):
                raise UnsafePath(f"journal path is not a directory: {path}", path=str(path))
            if os.name == "posix" and stat.S_IMODE(info.st_mode) != DIR_MODE:
                os.chmod(path, DIR_MODE)


def read_at(fd: int, size: int, offset: int) -> bytes:
    """`os.pread` where it exists; elsewhere (Windows) a seek and a read, so the descriptor must
    be the caller's own, shared with no other thread."""
    if hasattr(os, "pread"):
        return os.pread(fd, size, offset)
    os.lseek(fd, offset, os.SEEK_SET)
    return os.read(fd, size)


def ensure_private_file(root: Path, path: Path, what: str = "journal file") -> None:
    """Creates `path` as an empty 0600 file when missing, and tightens an existing one; for
    files another library opens (SQLite would create them with the umask's mode)."""
    check_no_links(root, path)
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags, FILE_MODE)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UnsafePath(f"{what} is not a regular file: {path}", path=str(path))
        if os.name == "posix" and stat.S_IMODE(info.st_mode) != FILE_MODE:
            os.fchmod(fd, FILE_MODE)
    finally:
        os.close(fd)


@contextlib.contextmanager
def explained_os_errors(action: str, path: Path | str) -> Iterator[None]:
    """Turns a disk-full, read-only, permission or I/O failure into a `StorageFailure`.

    Other OS errors (a missing file, an existing one) pass unchanged: callers handle those.
    """
    try:
        yield
    except OSError as exc:
        if is_storage_failure(exc):
            raise storage_failure(exc, action, path) from exc
        raise


def create_missing_parents(path: Path) -> None:
    """Creates every missing folder above path, outermost first, as 0700; existing ones stay.

    Raises:
        UnsafePath: an existing ancestor is not a directory.
        OSError: a folder cannot be created (no permission, a read-only file system).
    """
    missing = []
    current = path.parent
    while not os.path.lexists(current) and current != current.parent:
        missing.append(current)
        current = current.parent
    if not os.path.isdir(current):
        raise UnsafePath(f"journal path has a parent that is not a directory: {current}")
    for folder in reversed(missing):
        with contextlib.suppress(FileExistsError):
            folder.mkdir(mode=DIR_MODE)
            if os.name == "posix":
                os.chmod(folder, DIR_MODE)


def read_regular_file(
    root: Path, path: Path, max_bytes: int, *, parents_checked: bool = False
) -> bytes:
    """Reads without following links; rejects special files and anything over max_bytes.

    `parents_checked` lets a directory scan check the directories once instead of per file;
    O_NOFOLLOW still refuses a link in the last component.
    """
    return read_regular_file_stat(root, path, max_bytes, parents_checked=parents_checked)[0]


def read_regular_file_stat(
    root: Path, path: Path | str, max_bytes: int, *, parents_checked: bool = False
) -> tuple[bytes, os.stat_result]:
    """`read_regular_file`, with the stat of the very file read (taken before reading it).

    `path` may be plain text: a bulk read of many files then builds no Path per file.
    """
    if not parents_checked:
        check_no_links(root, Path(path))
    flags = os.O_RDONLY | _O_NOFOLLOW | _O_NONBLOCK | _O_CLOEXEC | _O_BINARY
    try:
        fd = os.open(path, flags)
    except FileNotFoundError as exc:
        raise NotFound(f"{os.path.basename(path)} does not exist") from exc
    except OSError as exc:
        if os.path.islink(path):
            raise UnsafePath(f"path is a symbolic link: {path}", path=str(path)) from exc
        if is_storage_failure(exc):
            raise storage_failure(exc, "read", path) from exc
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UnsafePath(f"implementation decision path is not a regular file: {path}")
        data = _read_at_most(fd, info.st_size, max_bytes + 1)
    finally:
        os.close(fd)
    if len(data) > max_bytes:
        raise OversizedFile(
            f"implementation decision file exceeds the storage limit: {os.path.basename(path)} "
            "is over "
            f"{max_bytes} bytes",
            path=str(path),
        )
    return data, info


def _read_at_most(fd: int, expected: int, limit: int) -> bytes:
    """Up to `limit` bytes, sized by the file's stat so a small file costs one allocation.

    Why not a buffered file object: building one per file is most of the cost of reading a
    large journal's small records. A file that grew since the stat is read in full (up to the
    limit), never cut short: the first read asks for one byte more than the stat gave, and
    only a read that returns exactly the stat's size, short of that byte, is taken as the
    end, which saves the empty read that would confirm it (a sixth of a small file's cost).
    """
    chunks: list[bytes] = []
    total = 0
    want = min(expected + 1, limit)
    while total < limit:
        chunk = os.read(fd, want)
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
        if total == expected and len(chunk) < want:
            break  # at the end the stat gave, and no byte beyond it
        want = min(_READ_STEP, limit - total)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def atomic_write(
    root: Path, path: Path, data: bytes, *, durable: bool = True, parents_checked: bool = False
) -> None:
    """temp file in the same directory, write, fsync, chmod 0600, rename, fsync the directory.

    `durable=False` leaves out both fsyncs, for a cache that is checked when read: after a
    power cut it may be missing or torn, never half-replaced by a valid-looking mix.
    `parents_checked` lets a writer of many files check each directory once (with
    `ensure_private_dir`) instead of per file; the file itself is still refused when it is a
    link or not a regular file.
    """
    if not parents_checked:
        check_no_links(root, path)
    _require_regular_or_missing(path)
    temp = path.with_name(temp_name(path.name))
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_NOFOLLOW | _O_CLOEXEC | _O_BINARY
    with explained_os_errors("write", path):
        fd = os.open(temp, flags, FILE_MODE)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                if durable:
                    os.fsync(handle.fileno())
            os.chmod(temp, FILE_MODE)
            os.replace(temp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise
        if durable:
            fsync_dir(path.parent)


def temp_name(name: str) -> str:
    """The temporary name a write of `name` uses; `core.store.temp_sweep` knows it by this shape.

    The token is `secrets.token_hex`'s, written out: the operating system's random bytes in
    lowercase hex. This module is on every read's path (`list`, `show`), and `secrets` brings
    `random`, `hmac` and `base64` to a start that needs none of them."""
    return f".{name}{TEMP_MARK}{os.urandom(TEMP_TOKEN_BYTES).hex()}"


def remove_file(root: Path, path: Path) -> bool:
    """Deletes a file of the journal durably (no link on the way); False when it was gone."""
    check_no_links(root, path.parent)
    try:
        os.unlink(path)
    except FileNotFoundError:
        return False
    fsync_dir(path.parent)
    return True


def fsync_dir(directory: Path) -> None:
    """Makes the rename durable: without it a power cut can lose the new directory entry."""
    if os.name != "posix":
        return
    fd = os.open(directory, os.O_RDONLY | _O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _require_regular_or_missing(path: Path) -> None:
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    if not stat.S_ISREG(info.st_mode):
        raise UnsafePath(f"implementation decision path is not a regular file: {path}")
