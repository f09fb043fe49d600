"""Where the lines of one append-only NDJSON log are, by the values of a few of their fields.

Replaces `[e for e in AppendLog.read().entries if e.get(field) == value]`: a reader that needs
the few lines of one decision or one kind looks their offsets up in a small SQLite file and
reads only those lines, instead of parsing the whole log on every question.

Why it can be trusted: it is a cache of the log, never a source. It records how many bytes of
the log it covers, the file's identity and digests of the covered head and tail; a log that
grew is indexed from where the cache stopped, and a log that shrank, was replaced or no longer
matches those digests is indexed again from the start. Every line it returns is read from the
log itself and checked to hold the values asked for, and anything unexpected (a damaged or
foreign cache file, a line that no longer matches) rebuilds the cache, so a lookup answers
exactly what the full read would. The line after the last newline (a writer's line not finished
yet, or a torn one) is read from the log at each lookup and never cached, as `AppendLog.read`
reads it. `tests/core/bulk/test_log_index.py` holds the two equal.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from core.store.append_log import AppendLog
from core.store.safefs import check_no_links, ensure_private_dir, ensure_private_file, read_at

INDEX_FORMAT = "decision-journal-log-index/1"
EDGE_BYTES = 256
"""Bytes of the covered head and tail whose digests must still match."""
CHUNK_BYTES = 1 << 20


class _Stale(Exception):
    """The cache no longer describes the log: index it again."""


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class LogIndex:
    """The line offsets of `log` by the string values of `keys`, in `cache_path`."""

    def __init__(self, log: AppendLog, cache_path: Path, keys: tuple[str, ...]) -> None:
        if not keys or not all(k.isidentifier() for k in keys):
            raise ValueError("keys must be field names")
        self.log = log
        self.path = Path(os.path.abspath(cache_path))
        self.keys = keys
        self._meta = {"format": INDEX_FORMAT, "keys": ",".join(keys)}
        self._lock = threading.Lock()
        self._connection: sqlite3.Connection | None = None

    # --- the cache file ---------------------------------------------------------------------

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """The cache's connection inside one write transaction. The connection is kept: in WAL
        mode a commit then needs no fsync, while closing the last connection would checkpoint."""
        with self._lock:
            connection = self._connection or self._connect()
            self._connection = connection
            connection.execute("BEGIN IMMEDIATE")
            try:
                yield connection
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    connection.execute("ROLLBACK")
                raise
            connection.execute("COMMIT")

    def _connect(self) -> sqlite3.Connection:
        ensure_private_dir(self.log.root, self.path.parent)
        ensure_private_file(self.log.root, self.path, "log index")
        connection = sqlite3.connect(
            self.path, timeout=10.0, isolation_level=None, check_same_thread=False
        )
        try:
            # A power loss may drop the last commits, never half of one: the cache then covers
            # less of the log and indexes the rest again.
            connection.execute("PRAGMA journal_mode = WAL")
            connection.execute("PRAGMA synchronous = NORMAL")
            connection.execute("BEGIN IMMEDIATE")
            tables = {r[0] for r in connection.execute("SELECT name FROM sqlite_master")}
            if "meta" not in tables:
                if tables:
                    raise _Stale
                self._create(connection)
            meta = dict(connection.execute("SELECT key, value FROM meta").fetchall())
            if any(meta.get(k) != v for k, v in self._meta.items()):
                raise _Stale
            connection.execute("COMMIT")
        except BaseException:
            connection.close()
            raise
        return connection

    def _create(self, connection: sqlite3.Connection) -> None:
        columns = ", ".join(f"k_{k} TEXT" for k in self.keys)
        connection.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        connection.execute(f"CREATE TABLE lines (offset INTEGER PRIMARY KEY, {columns})")
        for key in self.keys:
            connection.execute(f"CREATE INDEX lines_{key} ON lines (k_{key}, offset)")
        connection.executemany("INSERT INTO meta VALUES (?, ?)", self._empty_meta().items())

    def _empty_meta(self) -> dict[str, str]:
        return {**self._meta, "covered": "0", "identity": "", "head": "", "tail": ""}

    def _remove(self) -> None:
        with self._lock:
            if self._connection is not None:
                with contextlib.suppress(sqlite3.Error):
                    self._connection.close()
                self._connection = None
        for suffix in ("", "-wal", "-shm", "-journal"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(f"{self.path}{suffix}")

    # --- bringing it up to date -------------------------------------------------------------

    def _open_log(self) -> int | None:
        check_no_links(self.log.root, self.log.path)
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
        flags |= getattr(os, "O_BINARY", 0)  # Windows would translate line ends otherwise
        try:
            return os.open(self.log.path, flags)
        except FileNotFoundError:
            return None

    @staticmethod
    def _identity(info: os.stat_result) -> str:
        return f"{info.st_dev}:{info.st_ino}"

    def _catch_up(self, connection: sqlite3.Connection, fd: int | None) -> tuple[int, bytes]:
        """Indexes what the log gained since the cache stopped; returns where the cache now
        stops and the unfinished line after it. Raises _Stale when the log is not the one the
        cache describes."""
        meta = dict(connection.execute("SELECT key, value FROM meta").fetchall())
        covered = int(meta["covered"])
        if fd is None:
            if covered:
                raise _Stale
            return 0, b""
        info = os.fstat(fd)
        size = info.st_size
        if covered:
            head = read_at(fd, min(EDGE_BYTES, covered), 0)
            start = max(0, covered - EDGE_BYTES)
            tail = read_at(fd, covered - start, start)
            if (
                size < covered
                or meta["identity"] != self._identity(info)
                or _digest(head) != meta["head"]
                or _digest(tail) != meta["tail"]
            ):
                raise _Stale
        rest = b""
        position = covered
        rows: list[tuple[Any, ...]] = []
        while position < size:
            more = read_at(fd, min(CHUNK_BYTES, size - position), position)
            if not more:
                break
            position += len(more)
            chunk = rest + more
            offset = position - len(chunk)
            end = chunk.rfind(b"\n") + 1
            for line in chunk[:end].split(b"\n")[:-1]:  # as a file iterates: by "\n" only
                row = self._row(offset, line)
                if row is not None:
                    rows.append(row)
                offset += len(line) + 1
            rest = chunk[end:]
        new_covered = position - len(rest)
        if rows:
            marks = ", ".join("?" for _ in range(len(self.keys) + 1))
            connection.executemany(f"INSERT INTO lines VALUES ({marks})", rows)
        if new_covered != covered:
            start = max(0, new_covered - EDGE_BYTES)
            values = {
                "covered": str(new_covered),
                "identity": self._identity(info),
                "head": _digest(read_at(fd, min(EDGE_BYTES, new_covered), 0)),
                "tail": _digest(read_at(fd, new_covered - start, start)),
            }
            connection.executemany(
                "UPDATE meta SET value = ? WHERE key = ?", [(v, k) for k, v in values.items()]
            )
        return new_covered, rest

    def _row(self, offset: int, line: bytes) -> tuple[Any, ...] | None:
        value = _parse(line)
        if value is None:
            return None
        return (offset, *(_text(value.get(k)) for k in self.keys))

    def _lookup(self, where: dict[str, str]) -> list[dict[str, Any]]:
        fd = self._open_log()
        try:
            with self._transaction() as connection:
                covered, rest = self._catch_up(connection, fd)
                clause = " AND ".join(f"k_{k} = ?" for k in where)
                offsets = [
                    r[0]
                    for r in connection.execute(
                        f"SELECT offset FROM lines WHERE {clause} ORDER BY offset",
                        tuple(where.values()),
                    )
                ]
            found = [self._line_at(fd, offset, covered, where) for offset in offsets]
            last = _parse(rest)
            if last is not None and all(_text(last.get(k)) == v for k, v in where.items()):
                found.append(last)
            return found
        finally:
            if fd is not None:
                os.close(fd)

    @staticmethod
    def _line_at(fd: int | None, offset: int, covered: int, where: dict[str, str]) -> Any:
        if fd is None or offset >= covered:
            raise _Stale
        if offset and read_at(fd, 1, offset - 1) != b"\n":
            raise _Stale
        data = b""
        while not data.endswith(b"\n") and offset + len(data) < covered:
            more = read_at(fd, min(64 * 1024, covered - offset - len(data)), offset + len(data))
            if not more:
                break
            cut = more.find(b"\n")
            data += more if cut < 0 else more[: cut + 1]
        value = _parse(data)
        if value is None or any(_text(value.get(k)) != v for k, v in where.items()):
            raise _Stale
        return value

    # --- public -----------------------------------------------------------------------------

    def lines(self, **where: str) -> list[dict[str, Any]]:
        """The log's objects whose fields equal `where` (strings), oldest first."""
        if not where or set(where) - set(self.keys):
            raise ValueError(f"look lines up by {', '.join(self.keys)}")
        try:
            return self._lookup(where)
        except (_Stale, sqlite3.DatabaseError):
            self._remove()
        try:
            return self._lookup(where)
        except (_Stale, sqlite3.DatabaseError):  # changed again while indexed: read it all
            return [
                e
                for e in self.log.read().entries
                if all(_text(e.get(k)) == v for k, v in where.items())
            ]

    def refresh(self) -> None:
        """Indexes what was appended (after an append, so the next lookup has less to do)."""
        fd = self._open_log()
        try:
            with self._transaction() as connection:
                self._catch_up(connection, fd)
        except (_Stale, sqlite3.DatabaseError):
            self._remove()
        finally:
            if fd is not None:
                os.close(fd)


def _parse(line: bytes) -> dict[str, Any] | None:
    """A line as `AppendLog.read` takes it: a JSON object, else nothing."""
    if not line.strip():
        return None
    try:
        value = json.loads(line)
    except (ValueError, UnicodeDecodeError):
        return None
    return value if isinstance(value, dict) else None


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None
