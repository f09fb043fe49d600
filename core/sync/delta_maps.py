"""Maps saved by what changed: a snapshot, and an append-only log of the changes since it.

Why: sync keeps an entry per journal file (its stat identity, digest and working-copy name)
and per blob (its digest and length), so a large journal's bookkeeping is tens of thousands
of entries. Rewriting all of them at every sync made an incremental sync cost the journal's
size; appending the entries a sync changed costs what changed. Once the log outgrows the
snapshot it is folded into a new one.

Files, in one private folder: `<stem>.json` (the snapshot: its generation and every map) and
`<stem>-<generation>.log` (one JSON array per line: `[map, key, value]` sets a key, a `null`
value removes it, `[map]` empties the map). A log belongs to the snapshot of its generation
only, so a fold cut short between writing the new snapshot and removing the old log never
replays stale changes. A save appends its lines in one write and syncs them; a write cut short
leaves a torn last line, which a reader ignores and the next save cuts off first. Lines are
written in the order given, so a save that is cut short keeps a prefix of its changes.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, TypeVar

import msgspec

from core.store.safefs import atomic_write, ensure_private_dir, explained_os_errors, fsync_dir

V = TypeVar("V")
FORMAT = 1
FOLD_MIN = 256 * 1024
"""A log is folded into a new snapshot once it is larger than the snapshot and this."""
_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_LINE = msgspec.json.Encoder()
"""A log line: compact JSON, UTF-8 as it is."""


class TrackedMap(dict[str, V]):
    """A dict that remembers which keys were set or removed (and whether it was emptied)
    since it was last saved, so a save writes only those."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.touched: set[str] = set()
        self.cleared = False

    def __setitem__(self, key: str, value: V) -> None:
        super().__setitem__(key, value)
        self.touched.add(key)

    def __delitem__(self, key: str) -> None:
        super().__delitem__(key)
        self.touched.add(key)

    def pop(self, key: str, *default: Any) -> Any:
        self.touched.add(key)
        return super().pop(key, *default)

    def popitem(self) -> tuple[str, V]:
        key, value = super().popitem()
        self.touched.add(key)
        return key, value

    def setdefault(self, key: str, default: V = None) -> V:  # type: ignore[assignment]
        if key not in self:
            self[key] = default
        return self[key]

    def update(self, *args: Any, **kwargs: Any) -> None:
        for key, value in dict(*args, **kwargs).items():
            self[key] = value

    def clear(self) -> None:
        super().clear()
        self.touched.clear()
        self.cleared = True

    def saved(self) -> None:
        """Forgets what changed: it is on disk now."""
        self.touched.clear()
        self.cleared = False


class DeltaMaps:
    """The maps kept under `directory` as `stem` (see the module docstring)."""

    def __init__(self, root: Path, directory: Path, stem: str) -> None:
        self.root = root
        self.directory = directory
        self.stem = stem
        self.generation = 0
        self.snapshot_size = 0
        self.log_size = 0
        """Bytes of whole lines in the current log (a torn tail beyond them is cut off)."""
        self.loaded = False

    @property
    def snapshot_path(self) -> Path:
        return self.directory / f"{self.stem}.json"

    def log_path(self, generation: int) -> Path:
        return self.directory / f"{self.stem}-{generation}.log"

    @property
    def exists(self) -> bool:
        return self.snapshot_path.is_file()

    def load(self) -> dict[str, dict[str, Any]] | None:
        """Every map, the log's changes applied; None when there is no snapshot yet."""
        self.loaded = True
        try:
            raw = self.snapshot_path.read_bytes()
        except FileNotFoundError:
            self.generation = self.snapshot_size = self.log_size = 0
            return None
        snapshot = msgspec.json.decode(raw)
        self.generation = int(snapshot["generation"])
        self.snapshot_size = len(raw)
        maps: dict[str, dict[str, Any]] = {k: dict(v) for k, v in snapshot["maps"].items()}
        self.log_size = 0
        try:
            log = self.log_path(self.generation).read_bytes()
        except FileNotFoundError:
            return maps
        for line, end in _whole_lines(log):
            try:
                change = msgspec.json.decode(line)
            except ValueError:
                break  # a torn line: written last, so nothing valid follows it
            _apply(maps, change)
            self.log_size = end
        return maps

    def save(
        self,
        changes: Iterable[list[Any]],
        everything: Callable[[], Mapping[str, Mapping[str, Any]]],
    ) -> None:
        """Appends `changes` (`[map, key, value]` or `[map]`), or writes a new snapshot of
        `everything` when there is none yet or the log outgrew the last one."""
        if not self.loaded:
            self.load()  # where the log ends
        if not self.exists:
            self.fold(everything())  # the first save: the changes are all of it
            return
        encoded = b"".join(_LINE.encode(change) + b"\n" for change in changes)
        if self.log_size + len(encoded) > max(self.snapshot_size, FOLD_MIN):
            self.fold(everything())
        elif encoded:
            self._append(encoded)

    def fold(self, maps: Mapping[str, Mapping[str, Any]]) -> None:
        """A new snapshot of `maps` (the next generation), then the old logs go."""
        ensure_private_dir(self.root, self.directory)
        generation = self.generation + 1
        with contextlib.suppress(FileNotFoundError):  # left by a snapshot since lost
            self.log_path(generation).unlink()
        data = msgspec.json.encode({"format": FORMAT, "generation": generation, "maps": maps})
        atomic_write(self.root, self.snapshot_path, data)
        self.generation, self.snapshot_size, self.log_size = generation, len(data), 0
        for old in self.directory.glob(f"{self.stem}-*.log"):
            with contextlib.suppress(FileNotFoundError):
                old.unlink()

    def _append(self, data: bytes) -> None:
        path = self.log_path(self.generation)
        flags = os.O_WRONLY | os.O_CREAT | _O_NOFOLLOW | _O_CLOEXEC
        with explained_os_errors("write", path):
            new = not path.exists()
            fd = os.open(path, flags, 0o600)
            try:
                os.ftruncate(fd, self.log_size)  # a torn line of a write cut short goes first
                try:
                    os.pwrite(fd, data, self.log_size)
                    os.fsync(fd)
                except BaseException:
                    with contextlib.suppress(OSError):
                        os.ftruncate(fd, self.log_size)
                    raise
            finally:
                os.close(fd)
            if new:
                fsync_dir(self.directory)
        self.log_size += len(data)


def changes_of(
    name: str, tracked: Mapping[str, Any], encode: Callable[[Any], Any]
) -> Iterator[list[Any]]:
    """The log lines for what changed in one map since it was saved: a map that is not a
    `TrackedMap` (one replaced whole) is written as emptied and filled again."""
    if not isinstance(tracked, TrackedMap):
        yield [name]
        for key, value in tracked.items():
            yield [name, key, encode(value)]
        return
    if tracked.cleared:
        yield [name]
    for key in sorted(tracked.touched):
        value = tracked.get(key)
        if key in tracked or not tracked.cleared:
            yield [name, key, None if key not in tracked else encode(value)]


def _whole_lines(data: bytes) -> Iterator[tuple[bytes, int]]:
    """Each complete line and the offset just past it; a last line without its newline is
    torn and left out."""
    start = 0
    while (end := data.find(b"\n", start)) >= 0:
        yield data[start:end], end + 1
        start = end + 1


def _apply(maps: dict[str, dict[str, Any]], change: list[Any]) -> None:
    target = maps.setdefault(str(change[0]), {})
    if len(change) == 1:
        target.clear()
    elif change[2] is None:
        target.pop(str(change[1]), None)
    else:
        target[str(change[1])] = change[2]
