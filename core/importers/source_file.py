"""Reading one import source file: a regular file, within its size limit, read once.

Why here and not in each importer: an imported file is hostile until checked. A FIFO or a
device (`/dev/zero`) never ends, and a file of hundreds of megabytes costs many times its size
in memory once parsed, so its kind and size are checked from the open descriptor before a
byte is read, and never more than the limit is read even when the file grows meanwhile.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from core import limits
from core.messages.wording import too_large


class SourceRefused(ValueError):
    """The file is not one an import reads; the message says why, naming the limit."""


def read_source(path: Path, limit: int | None = None) -> bytes:
    """The file's bytes; `limit` defaults to `core.limits.IMPORT_TEXT_FILE_MAX`.

    Raises:
        SourceRefused: not a regular file, or larger than `limit` bytes.
        OSError: it cannot be opened or read.
    """
    limit = limits.IMPORT_TEXT_FILE_MAX if limit is None else limit
    with open_regular(path) as handle:
        size = os.fstat(handle.fileno()).st_size
        if size > limit:
            raise SourceRefused(_too_large(size, limit))
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise SourceRefused(_too_large(len(data), limit))
    return data


def open_regular(path: Path) -> BinaryIO:
    """The file opened for reading, once it is known to be a regular file.

    Raises:
        SourceRefused: a pipe, a device or a socket (checked on the open descriptor).
        OSError: it cannot be opened.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags)  # non-blocking: opening a FIFO with no writer must not hang
    handle = os.fdopen(fd, "rb")
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        handle.close()
        raise SourceRefused("is not a regular file (a pipe, a device or a socket)")
    return handle


def is_regular_file(path: Path) -> bool:
    """A regular file that is not a symlink: what a folder walk may read."""
    try:
        return stat.S_ISREG(path.lstat().st_mode)
    except OSError:
        return False


def read_source_text(path: Path, limit: int | None = None) -> str:
    """The file as UTF-8 text.

    Raises:
        SourceRefused, OSError: as `read_source`.
        UnicodeDecodeError: it is not UTF-8.
    """
    text = read_source(path, limit).decode("utf-8")
    return text.replace("\r\n", "\n").replace("\r", "\n")  # as open()'s universal newlines


def bounded_lines(
    handle: BinaryIO, limit: int | None = None
) -> Iterator[tuple[bytes | None, int, bool]]:
    """Each line of a log as (its bytes, its length, whether it ends with a newline).

    `limit` defaults to `core.limits.IMPORT_LINE_MAX`.
    A line longer than `limit` comes as None with its full length: it is read past in pieces
    and never held whole, so one endless line cannot take the memory an import has.
    """
    limit = limits.IMPORT_LINE_MAX if limit is None else limit
    while raw := handle.readline(limit + 1):
        if len(raw) <= limit or raw.endswith(b"\n"):
            yield raw, len(raw), raw.endswith(b"\n")
            continue
        length, piece = len(raw), b""
        while piece := handle.readline(limits.MIB):
            length += len(piece)
            if piece.endswith(b"\n"):
                break
        yield None, length, piece.endswith(b"\n")


def _too_large(size: int, limit: int) -> str:
    return f"{too_large(size, limit)} for one imported file"
