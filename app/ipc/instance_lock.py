"""The lock that decides which app instance serves a journal.

Why a lock and not the socket file: a socket file left behind by a crash looks exactly like a
live one, and binding over a live one silently steals it. The kernel releases the lock when a
process dies, so whoever holds it is alive, and whoever gets it may remove a stale socket.
"""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path


class InstanceLock:
    """An exclusive, non-blocking lock on a file, held for the life of the listening server."""

    def __init__(self, fd: int) -> None:
        self._fd: int | None = fd

    @classmethod
    def try_acquire(cls, path: Path) -> InstanceLock | None:
        """The lock, or None when another live process holds it."""
        flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
        fd = os.open(path, flags, 0o600)
        try:
            if sys.platform == "win32":
                import msvcrt  # noqa: PLC0415 -- Windows-only module

                msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
            else:
                import fcntl  # noqa: PLC0415 -- POSIX-only module

                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(fd)
            if exc.errno in (errno.EAGAIN, errno.EWOULDBLOCK, errno.EACCES):
                return None
            raise
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        return cls(fd)

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)
