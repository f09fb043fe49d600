"""What every exporter shares: progress, cancellation, and all-or-nothing writes into a folder.

Why stage: an export of thousands of files that is cancelled or fails halfway must not leave a
half-written folder that looks complete. Files are written into a hidden staging folder next to
their destination and renamed into place only when every one of them was written.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import threading
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from types import TracebackType
from typing import TypeVar

from core.errors import ExportCancelled
from core.store.safefs import DIR_MODE, FILE_MODE, fsync_dir

T = TypeVar("T")
Progress = Callable[[int, int], None]
"""Called with (items done, items in total) after each item."""


def ticks(items: list[T], progress: Progress | None, cancel: threading.Event | None) -> Iterator[T]:
    """Yields items, checking cancel before each and reporting progress after each."""
    total = len(items)
    for done, item in enumerate(items, start=1):
        if cancel is not None and cancel.is_set():
            raise ExportCancelled("export cancelled; nothing was written")
        yield item
        if progress is not None:
            progress(done, total)
    if total == 0 and progress is not None:
        progress(0, 0)


def utf8(text: str) -> bytes:
    """UTF-8, with a lone surrogate (possible in JSON-decoded text) written as U+FFFD like Go."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in text).encode()


def check_name(name: str) -> str:
    """Exporters generate names; this refuses anything that could leave the target folder."""
    if not name or name in {".", ".."} or "/" in name or os.sep in name or "\0" in name:
        raise ValueError(f"unsafe export file name {name!r}")
    return name


class Staging:
    """Collects files in `<directory>/.export-<random>/`, then renames them into directory."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.directory.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
        self.stage = directory / f".export-{secrets.token_hex(6)}"
        self.stage.mkdir(mode=DIR_MODE)
        self._names: list[str] = []

    def write(self, name: str, data: bytes | Iterable[bytes]) -> None:
        """Exports hold private reasoning: files are readable by the user only. `data` may come
        in pieces, written as they come (a whole journal need not be held in memory)."""
        path = self.stage / check_name(name)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        fd = os.open(path, flags, FILE_MODE)
        with os.fdopen(fd, "wb") as handle:
            if isinstance(data, bytes):
                handle.write(data)
            else:
                handle.writelines(data)
        self._names.append(name)

    def commit(self) -> list[Path]:
        """Renames every staged file over its destination (each rename is atomic)."""
        written = []
        for name in self._names:
            target = self.directory / name
            os.replace(self.stage / name, target)
            written.append(target)
        self.stage.rmdir()
        fsync_dir(self.directory)
        return written

    def abort(self) -> None:
        with contextlib.suppress(OSError):
            shutil.rmtree(self.stage)

    def __enter__(self) -> Staging:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if self.stage.exists():
            self.abort()


def write_single(
    directory: Path,
    name: str,
    render: Callable[[Iterable[T]], bytes],
    items: Iterable[T],
    *,
    progress: Progress | None,
    cancel: threading.Event | None,
) -> Path:
    """Renders items into one file, reporting progress as each is rendered; writes atomically."""
    data = render(ticks(list(items), progress, cancel))
    with Staging(directory) as stage:
        stage.write(name, data)
        return stage.commit()[0]
