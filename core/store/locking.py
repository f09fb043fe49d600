"""Two-level locks: a per-path in-process mutex plus a cross-process lock on `<file>.lock`.

Why both: OS file locks are per process on POSIX (flock is per open file, but threads of one
process would share our handle), so threads serialize on the mutex and processes on the file.
"""

from __future__ import annotations

import contextlib
import os
import stat
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from core.errors import LockCancelled, LockUnsafe
from core.store.safefs import FILE_MODE, check_no_links, explained_os_errors

POLL_SECONDS = 0.01
_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)

_registry_guard = threading.Lock()
_mutexes: dict[str, threading.Lock] = {}


def _mutex_for(path: Path) -> threading.Lock:
    key = os.path.normcase(os.path.abspath(path))
    with _registry_guard:
        return _mutexes.setdefault(key, threading.Lock())


def _wait(
    acquire_once: object, cancel: threading.Event | None, timeout: float | None, what: str
) -> None:
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        if acquire_once():  # type: ignore[operator]
            return
        if cancel is not None and cancel.is_set():
            raise LockCancelled(f"waiting for the lock on {what} was cancelled")
        if deadline is not None and time.monotonic() >= deadline:
            raise LockCancelled(f"timed out waiting for the lock on {what}")
        time.sleep(POLL_SECONDS)


@contextlib.contextmanager
def locked(
    root: Path,
    path: Path,
    *,
    cancel: threading.Event | None = None,
    timeout: float | None = None,
) -> Iterator[None]:
    """Holds the in-process mutex and the OS lock on `<path>.lock` for the block."""
    mutex = _mutex_for(path)
    _wait(lambda: mutex.acquire(blocking=False), cancel, timeout, path.name)
    try:
        with _file_lock(root, path.with_name(path.name + ".lock"), cancel, timeout):
            yield
    finally:
        mutex.release()


@contextlib.contextmanager
def _file_lock(
    root: Path, lock_path: Path, cancel: threading.Event | None, timeout: float | None
) -> Iterator[None]:
    import portalocker  # noqa: PLC0415  # its import reads package metadata: only when locking

    handle = open_lock_file(root, lock_path)
    try:

        def try_lock() -> bool:
            try:
                portalocker.lock(handle, portalocker.LOCK_EX | portalocker.LOCK_NB)
            except portalocker.AlreadyLocked:
                return False
            return True

        _wait(try_lock, cancel, timeout, lock_path.name)
        try:
            _verify_lock_identity(root, lock_path, handle.fileno())
            yield
        finally:
            portalocker.unlock(handle)
    finally:
        handle.close()


def open_lock_file(root: Path, lock_path: Path) -> BinaryIO:
    """Opens (creating) a lock file, refusing a link, a FIFO or a device in its place.

    O_NONBLOCK keeps a FIFO from blocking the open; the check runs on the opened file, so
    nothing can be swapped in between.
    """
    check_no_links(root, lock_path)
    flags = os.O_CREAT | os.O_RDWR | _O_NOFOLLOW | _O_CLOEXEC | _O_NONBLOCK
    with explained_os_errors("open the lock file", lock_path):
        try:
            fd = os.open(lock_path, flags, FILE_MODE)
        except IsADirectoryError as exc:
            raise _not_regular(lock_path) from exc
        except OSError as exc:
            if os.path.islink(lock_path):
                raise LockUnsafe(
                    f"lock file is a symbolic link: {lock_path}", path=str(lock_path)
                ) from exc
            raise
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise _not_regular(lock_path)
    return os.fdopen(fd, "r+b")


def _not_regular(lock_path: Path) -> LockUnsafe:
    return LockUnsafe(
        f"lock file is not a regular file (a FIFO, a device or a folder): {lock_path}",
        path=str(lock_path),
    )


def _verify_lock_identity(root: Path, lock_path: Path, fd: int) -> None:
    """The file we locked must still be the regular file at that path (not a swapped link)."""
    held = os.fstat(fd)
    try:
        current = os.lstat(lock_path)
    except FileNotFoundError as exc:
        raise LockUnsafe(
            f"lock file vanished while held: {lock_path}", path=str(lock_path)
        ) from exc
    if not stat.S_ISREG(held.st_mode) or not stat.S_ISREG(current.st_mode):
        raise LockUnsafe(f"lock file is not a regular file: {lock_path}", path=str(lock_path))
    if (held.st_dev, held.st_ino) != (current.st_dev, current.st_ino):
        raise LockUnsafe(f"lock file was replaced while held: {lock_path}", path=str(lock_path))
    check_no_links(root, lock_path)
