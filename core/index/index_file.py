"""The index's SQLite file: schema, private permissions, and replacing it when it is unusable.

Why it may delete a file: the index is a cache of `records/`. A damaged, foreign or outdated
database is never repaired, only replaced; the next reconcile fills it again from the records.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import unicodedata
from pathlib import Path

from core.index.columns import KEY_COLUMNS
from core.store.safefs import ensure_private_dir, ensure_private_file

INDEX_FORMAT = "decision-journal-index/7"
"""Bump when the schema, the keys or `core.index.fulltext` change: old files are then rebuilt."""

PAGE_SIZE = 16384
"""Bytes per database page, for a new file. Fewer, larger pages mean less SQLite work in a bulk
build, and a `record_json` row (about a kilobyte packed) wastes less of a page's end
(bench/entry_bench.py; the figures are in bench/CHANGES.md).
"""

READ_CACHE_KIB = 8192
"""SQLite's page cache per connection while it serves queries: it holds the sort indexes a page
of the list walks, and it stays allocated for the life of the connection (the app keeps one
open), so it is a standing part of the app's memory (bench/memory_bench.py)."""
BUILD_CACHE_KIB = 32768
"""The page cache while a bulk build writes: the pages its inserts and index sorts touch stay
in memory. Given back when the build ends (`SqliteIndex.bulk`)."""

RECORD_COLUMNS = ("file_name", "sig", *KEY_COLUMNS, "digest")
"""The `records` columns an insert writes, in `IndexEntry.columns` order (rowid aside)."""

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE records (
    rowid INTEGER PRIMARY KEY AUTOINCREMENT,
    file_name TEXT NOT NULL,
    sig TEXT NOT NULL,
    id TEXT NOT NULL, id_key TEXT NOT NULL,
    upd_s INTEGER NOT NULL, upd_sub INTEGER NOT NULL, upd_offset INTEGER NOT NULL,
    deleted INTEGER NOT NULL,
    project_id TEXT NOT NULL, project_key TEXT NOT NULL, project_alias TEXT NOT NULL,
    workspace_clean BLOB NOT NULL, workspace_prefix BLOB NOT NULL,
    decision_kind TEXT NOT NULL, kind_key TEXT NOT NULL,
    risk_level TEXT NOT NULL, risk_key TEXT NOT NULL,
    status TEXT NOT NULL, status_key TEXT NOT NULL,
    problem TEXT NOT NULL, selected_label TEXT NOT NULL,
    revision INTEGER NOT NULL,
    digest TEXT NOT NULL
);
CREATE TABLE record_json (rid INTEGER PRIMARY KEY, json BLOB NOT NULL);
CREATE TABLE domains (
    rid INTEGER NOT NULL, domain_key TEXT NOT NULL, domain TEXT NOT NULL,
    PRIMARY KEY (domain_key, rid)
) WITHOUT ROWID;
CREATE VIRTUAL TABLE words USING fts5 (
    body, content = '', detail = none, prefix = '1 2 3', tokenize = "ascii tokenchars '_'"
);
"""
"""`record_json` holds each row's compact record as `index_entry.pack_json` stores it, apart
from `records` so that what scans `records` (facets, projects, a bulk build's index sorts)
reads short rows."""

INDEXES = {
    "records_file": "CREATE UNIQUE INDEX IF NOT EXISTS records_file ON records (file_name)",
    "records_order": "CREATE INDEX IF NOT EXISTS records_order "
    "ON records (upd_s DESC, upd_sub DESC, id DESC)",
    "records_active_order": "CREATE INDEX IF NOT EXISTS records_active_order "
    "ON records (deleted, upd_s DESC, upd_sub DESC, id DESC)",
    "records_project": "CREATE INDEX IF NOT EXISTS records_project "
    "ON records (project_key, upd_s DESC, upd_sub DESC, id DESC)",
    "records_id_key": "CREATE INDEX IF NOT EXISTS records_id_key ON records (id_key)",
    "domains_rid": "CREATE INDEX IF NOT EXISTS domains_rid ON domains (rid)",
}
"""Secondary indexes, apart so a bulk build can drop them and sort them in once at the end.

Every open creates any that are missing, so a build interrupted midway leaves a usable file.
"""


def _expected_meta() -> dict[str, str]:
    """Word tables change with Python's Unicode version, so an index records which one it used."""
    return {"format": INDEX_FORMAT, "unicode": unicodedata.unidata_version}


def index_path(journal_root: Path) -> Path:
    return journal_root / "cache" / "index.sqlite3"


def open_index(journal_root: Path) -> sqlite3.Connection:
    """Opens the index, replacing a damaged, foreign or outdated file with an empty one.

    Raises:
        sqlite3.Error or OSError: when even a fresh database cannot be created; the caller then
            falls back to scanning the store.
        UnsafePath: when the cache directory or file is a link or special file.
    """
    path = index_path(journal_root)
    ensure_private_dir(journal_root, path.parent)
    try:
        return _open_checked(journal_root, path)
    except sqlite3.DatabaseError as exc:
        if is_transient(exc):
            raise  # another process holds it: it is busy, not broken
        remove_index_files(path)
        return _open_checked(journal_root, path)


def is_transient(error: sqlite3.Error) -> bool:
    """Busy or locked by another connection: worth retrying, never a reason to delete."""
    return getattr(error, "sqlite_errorcode", None) in {sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED}


class _Outdated(sqlite3.DatabaseError):
    """The file holds another format, Unicode version or application's tables."""


def _open_checked(journal_root: Path, path: Path) -> sqlite3.Connection:
    _create_private_file(journal_root, path)
    connection = sqlite3.connect(path, check_same_thread=False, timeout=10.0, isolation_level=None)
    try:
        connection.execute(f"PRAGMA page_size = {PAGE_SIZE}")  # only a new, empty file takes it
        connection.execute("PRAGMA journal_mode = WAL")
        connection.execute("PRAGMA synchronous = NORMAL")
        connection.execute("PRAGMA temp_store = MEMORY")
        connection.execute(f"PRAGMA cache_size = -{READ_CACHE_KIB}")
        if _read_meta(connection) != _expected_meta():
            _create_schema(connection)
        for statement in INDEXES.values():
            connection.execute(statement)
    except BaseException:
        connection.close()
        raise
    return connection


def _create_private_file(journal_root: Path, path: Path) -> None:
    ensure_private_file(journal_root, path, "journal index")


def _read_meta(connection: sqlite3.Connection) -> dict[str, str]:
    try:
        rows = connection.execute("SELECT key, value FROM meta").fetchall()
    except sqlite3.OperationalError:
        return {}
    return {str(k): str(v) for k, v in rows}


def _create_schema(connection: sqlite3.Connection) -> None:
    """Fills an empty file; a file with other tables is outdated and replaced by the caller.

    The check and the creation share one write transaction, so two processes opening a new
    index at the same time create it once.
    """
    connection.execute("BEGIN IMMEDIATE")
    try:
        meta = _read_meta(connection)
        if meta != _expected_meta():
            if meta or connection.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
                raise _Outdated(f"journal index format {meta.get('format', '?')} is outdated")
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    connection.execute(statement)
            for statement in INDEXES.values():
                connection.execute(statement)
            connection.executemany("INSERT INTO meta VALUES (?, ?)", _expected_meta().items())
        connection.execute("COMMIT")
    except BaseException:
        connection.execute("ROLLBACK")
        raise


def remove_index_files(path: Path) -> None:
    """Deletes the database with its WAL and shared-memory files."""
    for suffix in ("", "-wal", "-shm", "-journal"):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(f"{path}{suffix}")
