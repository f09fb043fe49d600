"""Whether a record file changed since it was read: one stat identity and one "racy" rule.

Why here: the journal index and the profile's facts cache both skip files they read before,
and both must decide alike when a file's stat still proves it unchanged. A file is identified
by its device, inode, size, modification and status-change times; ctime catches an edit whose
mtime was set back (`touch -r`, `cp -p`, `rsync -t`). Timestamps are coarse (jiffies, or
seconds on some filesystems), so a second write within one tick, of the same size, into a
reused inode would look unchanged ("racy git"): a file changed shortly before it was read is
never trusted, and is read again next time.
"""

from __future__ import annotations

import os

import msgspec

RACY_NS = 2_000_000_000
"""A file changed this recently before a scan may change again unnoticed by its stat."""


class FileIdentity(msgspec.Struct, frozen=True, gc=False, array_like=True):
    """A record file's stat identity, written as an array: dev, ino, size, mtime, ctime.

    Why a Struct: one is kept per record for the life of a process, and a tuple stays tracked
    by the cycle collector until a collection walks it; a Struct without gc never is. The
    profile's facts file stores it as this array.
    """

    device: int
    inode: int
    size: int
    mtime_ns: int
    ctime_ns: int

    @classmethod
    def of(cls, info: os.stat_result) -> FileIdentity:
        """The identity of a file as `os.stat`/`os.lstat` (or the read's `fstat`) saw it."""
        return cls(info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)

    def signature(self) -> str:
        """The identity as the index stores it: size, mtime, inode and ctime as text (inodes can
        exceed SQLite's 64-bit integers; the device is left out, as it always was)."""
        return f"{self.size}:{self.mtime_ns}:{self.inode}:{self.ctime_ns}"

    def racy(self, scan_started_ns: int) -> bool:
        """Whether the file changed too shortly before `scan_started_ns` to be trusted later."""
        return scan_started_ns - max(self.mtime_ns, self.ctime_ns) < RACY_NS
