"""Private append-only NDJSON files inside the journal: the import ledger, notes, outcome signals.

Why one primitive: these logs are written by several processes at once (the tray's --watch, a
CLI import, an MCP report) and read while being written. Each append holds the journal lock of
its file and writes whole lines with O_APPEND, so a reader sees complete lines plus at most one
torn tail, which `read_lines` skips and counts instead of failing.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.store.locking import locked
from core.store.safefs import FILE_MODE, check_no_links, ensure_private_dir, read_at

_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_O_BINARY = getattr(os, "O_BINARY", 0)


@dataclass(slots=True)
class LogRead:
    """The JSON objects of a log, oldest first, and where lines could not be read."""

    entries: list[dict[str, Any]] = field(default_factory=list)
    torn: list[int] = field(default_factory=list)


def encode_line(value: dict[str, Any]) -> bytes:
    """One compact JSON line; NaN and infinities are refused so every line stays valid JSON."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return (text + "\n").encode("utf-8")


class AppendLog:
    """One NDJSON file below the journal root, created 0600 in a 0700 directory."""

    def __init__(self, root: Path, path: Path, *, lock_timeout: float | None = 30.0) -> None:
        self.root = Path(os.path.abspath(root))
        self.path = Path(os.path.abspath(path))
        self.lock_timeout = lock_timeout

    def append(self, values: Iterable[dict[str, Any]], *, sync: bool = True) -> int:
        """Appends whole lines under the file's lock; returns how many were written."""
        data = b"".join(encode_line(v) for v in values)
        if not data:
            return 0
        ensure_private_dir(self.root, self.path.parent)
        with locked(self.root, self.path, timeout=self.lock_timeout):
            self._write(data, sync)
        return data.count(b"\n")

    def _write(self, data: bytes, sync: bool) -> None:
        check_no_links(self.root, self.path)
        flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | _O_NOFOLLOW | _O_CLOEXEC | _O_BINARY
        fd = os.open(self.path, flags, FILE_MODE)
        try:
            if _ends_torn(fd):
                data = b"\n" + data  # never glue a new line onto a torn tail
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            if sync:
                os.fsync(fd)
        finally:
            os.close(fd)

    def read(self) -> LogRead:
        """Every readable object line; blank lines are ignored, torn ones listed by number."""
        result = LogRead()
        for number, line in self._lines():
            try:
                value = json.loads(line)
            except (ValueError, UnicodeDecodeError):
                result.torn.append(number)
                continue
            if isinstance(value, dict):
                result.entries.append(value)
            else:
                result.torn.append(number)
        return result

    def _lines(self) -> Iterator[tuple[int, bytes]]:
        check_no_links(self.root, self.path)
        try:
            handle = open(self.path, "rb")  # noqa: SIM115  # closed by the with below
        except FileNotFoundError:
            return
        with handle:
            for number, line in enumerate(handle, start=1):
                if line.strip():
                    yield number, line


def _ends_torn(fd: int) -> bool:
    """Whether the file's last byte is not a newline (a writer died mid-line)."""
    size = os.fstat(fd).st_size
    if size == 0:
        return False
    return read_at(fd, 1, size - 1) != b"\n"
