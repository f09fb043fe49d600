"""Every SQL statement of the journal index: writing entries, and the queries the window runs.

Not thread-safe by itself; `JournalIndex` serializes access to the one connection.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, NamedTuple

import msgspec

from core.gocompat.gotime import GoTime
from core.gocompat.text import go_trim
from core.index.entry import NS, IndexEntry, key, unpack_json, workspace_keys
from core.index.fulltext import fts_document, fts_expression
from core.index.index_file import INDEXES, RECORD_COLUMNS
from core.index.query import IndexFilter
from core.index.rows import Facets, ListRow, ProjectSummary
from core.record.shape import RecordShape

if TYPE_CHECKING:  # annotations only: a read of the index builds no model
    from core.record.models import DecisionRecord

# The plain view's decoder loads with the first cached record decoded (`_shape`, `_words_of`):
# a listing reads only the list columns, and building the views' types is a noticeable part of
# its start (bench/CHANGES.md).

_ORDER = "ORDER BY upd_s DESC, upd_sub DESC, id DESC"
_CHUNK = 500
_INSERT = (
    f"INSERT INTO records (rowid, {', '.join(RECORD_COLUMNS)}) "
    f"VALUES (?, {', '.join('?' for _ in RECORD_COLUMNS)})"
)
_NEXT_ROWID = "SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'records'), 0) + 1"
"""Row ids are never reused, so a word left behind in the FTS table can never reach a new row."""
_JSON = "(SELECT json FROM record_json WHERE rid = records.rowid)"
_FEW = 2000
_SECURE_DELETE_MODES = {0: "OFF", 1: "ON", 2: "FAST"}
"""`PRAGMA secure_delete` reads FAST back as 2 but takes 2 as plain true: restore by name."""
BATCH_ROWS = 2000
"""Rows a bulk build writes per transaction. Each commit writes every page it touched (the last,
partly filled leaf of each table again and again) and flushes FTS5's pending words as a new
segment that later merges rewrite, so committing each chunk of files on its own (250 rows)
made a bulk build slower (bench/browse_bench.py; bench/CHANGES.md)."""
_COUNT_UPTO = "SELECT count(*) FROM (SELECT rowid FROM words WHERE words MATCH ? LIMIT ?)"


class _ListColumns(NamedTuple):
    """The `records` columns a list row is made of, by the names they have in the table."""

    id: str
    problem: str
    project_id: str
    project_alias: str
    decision_kind: str
    risk_level: str
    status: str
    selected_label: str
    upd_s: int
    upd_sub: int
    upd_offset: int
    revision: int
    deleted: int


_ROW_COLUMNS = ", ".join(_ListColumns._fields)


def _time(seconds: int, sub: int, offset: int) -> GoTime:
    return GoTime(seconds * NS + sub, offset)


def _where(flt: IndexFilter) -> tuple[str, list[object]]:
    """The WHERE clause deciding exactly what `index_filter.filter_matches` decides."""
    clauses: list[str] = []
    params: list[object] = []
    if not flt.include_deleted:
        clauses.append("deleted = 0")
    for column, wanted in (
        ("project_key", flt.project_id),
        ("kind_key", flt.decision_kind),
        ("status_key", flt.status),
        ("risk_key", flt.risk_level),
    ):
        if go_trim(wanted):
            clauses.append(f"{column} = ?")
            params.append(key(wanted))
    if go_trim(flt.workspace):
        clean, prefix = workspace_keys(flt.workspace)
        clauses.append(
            "(workspace_clean <> x'' AND (workspace_clean = ? OR substr(workspace_clean, 1, ?) = ?"
            " OR substr(?, 1, length(workspace_prefix)) = workspace_prefix))"
        )
        params.extend([clean, len(prefix), prefix, clean])
    if go_trim(flt.domain):
        clauses.append("rowid IN (SELECT rid FROM domains WHERE domain_key = ?)")
        params.append(key(flt.domain))
    if flt.updated_from is not None:
        clauses.append("(upd_s, upd_sub) >= (?, ?)")
        params.extend(divmod(flt.updated_from.unix_ns, NS))
    if flt.updated_to is not None:
        clauses.append("(upd_s, upd_sub) < (?, ?)")
        params.extend(divmod(flt.updated_to.unix_ns, NS))
    expression = fts_expression(flt.query)
    if expression is not None:
        clauses.append("rowid IN (SELECT rowid FROM words WHERE words MATCH ?)")
        params.append(expression)
    return (" WHERE " + " AND ".join(clauses)) if clauses else "", params


def _chunks(items: Sequence[str]) -> Iterator[Sequence[str]]:
    for start in range(0, len(items), _CHUNK):
        yield items[start : start + _CHUNK]


class SqliteIndex:
    """The derived tables over one connection: records, domains and the `words` FTS5 table."""

    def __init__(self, connection: sqlite3.Connection) -> None:
        self.connection = connection
        self._batched: int | None = None
        """In a bulk build, the rows written since its last commit; None otherwise."""
        self._data_version: int | None = None
        """SQLite's data version when `changed_elsewhere` last looked."""

    def close(self) -> None:
        self.connection.close()

    def changed_elsewhere(self) -> bool:
        """Whether another connection (another process's index) committed rows since the last
        call; the first call only takes note. Such rows never show in this connection's own
        reconcile counts: the other process already wrote what this one would have read."""
        version = int(self.connection.execute("PRAGMA data_version").fetchone()[0])
        seen, self._data_version = self._data_version, version
        return seen is not None and seen != version

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        self.connection.execute("BEGIN IMMEDIATE")
        try:
            yield self.connection
        except BaseException:
            self.connection.execute("ROLLBACK")
            raise
        self.connection.execute("COMMIT")

    # writing ----------------------------------------------------------------------------------

    def signatures(self) -> dict[str, str]:
        return dict(self.connection.execute("SELECT file_name, sig FROM records").fetchall())

    def file_digests(self) -> dict[str, str]:
        return dict(self.connection.execute("SELECT file_name, digest FROM records").fetchall())

    def file_for_id(self, record_id: str) -> str | None:
        """The one file holding record_id (file names match ids case-insensitively)."""
        rows = self.connection.execute(
            "SELECT file_name FROM records WHERE id_key = ?", (record_id.lower(),)
        ).fetchall()
        return str(rows[0][0]) if len(rows) == 1 else None

    @contextmanager
    def bulk(self) -> Iterator[None]:
        """Drops the secondary indexes for a large build and creates them again afterwards.

        Why: rows arrive in directory order, so each index would take random inserts; sorting
        every index once at the end is several times faster on a large journal. Meanwhile
        writes share transactions of `BATCH_ROWS` rows; what was written completely is
        committed even when the build is interrupted.
        """
        with self._transaction() as db:
            for name in INDEXES:
                db.execute(f"DROP INDEX IF EXISTS {name}")
        self._batched = 0
        try:
            yield
        finally:
            self._commit_batch()
            self._batched = None
            with self._transaction() as db:
                for statement in INDEXES.values():
                    db.execute(statement)

    def apply(
        self, entries: Sequence[IndexEntry], removed: Iterable[str], *, new: bool = False
    ) -> tuple[int, int, int]:
        """Replaces or adds entries and drops removed files: (added, changed, removed) rows.

        `changed` counts only rows whose content changed, not files that were merely touched.
        `new` promises that no row exists for these files yet (a build into an empty index),
        so nothing is looked up: without its indexes, a lookup would scan the table.
        """
        added = changed = 0
        with self._writing(len(entries), new=new) as db:
            names = [entry.file_name for entry in entries]
            old = {} if new else self._digests_of(names)
            self._delete(list(old))
            dropped = self._delete([name for name in removed if name not in old])
            first = db.execute(_NEXT_ROWID).fetchone()[0]
            self._insert(first, entries)
        for entry in entries:
            previous = old.get(entry.file_name)
            if previous is None:
                added += 1
            elif previous != entry.digest:
                changed += 1
        return added, changed, dropped

    @contextmanager
    def _writing(self, rows: int, *, new: bool) -> Iterator[sqlite3.Connection]:
        """A transaction of its own, or a share of the batch's when a bulk build adds rows.

        A failed share rolls the whole batch back, never half of its rows into the batch's
        commit: the batch's files then have no rows and are read again at the next reconcile.
        (A savepoint per share would keep the rest, but FTS5 flushes its words at each one.)
        Any other write, such as a store commit's, commits the batch first and then fails or
        succeeds on its own.
        """
        if self._batched is None or not new:
            self._commit_batch()
            with self._transaction() as db:
                yield db
            return
        db = self.connection
        if not db.in_transaction:
            db.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            if db.in_transaction:  # some errors end the transaction themselves
                db.execute("ROLLBACK")
            self._batched = 0
            raise
        self._batched += rows
        if self._batched >= BATCH_ROWS:
            self._commit_batch()

    def _commit_batch(self) -> None:
        """Commits what a bulk build wrote since its last commit, if anything."""
        if self._batched is not None and self.connection.in_transaction:
            self.connection.execute("COMMIT")
            self._batched = 0

    def _digests_of(self, names: Sequence[str]) -> dict[str, str]:
        found: dict[str, str] = {}
        for chunk in _chunks(names):
            marks = ", ".join("?" for _ in chunk)
            found.update(
                self.connection.execute(
                    f"SELECT file_name, digest FROM records WHERE file_name IN ({marks})", chunk
                ).fetchall()
            )
        return found

    def _delete(self, names: Sequence[str]) -> int:
        deleted = 0
        for chunk in _chunks(names):
            marks = ", ".join("?" for _ in chunk)
            found = self.connection.execute(
                f"SELECT rowid, {_JSON} FROM records WHERE file_name IN ({marks})", chunk
            ).fetchall()
            rowids = [(rowid,) for rowid, _ in found]
            self.connection.executemany(
                "INSERT INTO words (words, rowid, body) VALUES ('delete', ?, ?)",
                ((rowid, _words_of(blob)) for rowid, blob in found),
            )
            self.connection.executemany("DELETE FROM domains WHERE rid = ?", rowids)
            self.connection.executemany("DELETE FROM record_json WHERE rid = ?", rowids)
            self.connection.executemany("DELETE FROM records WHERE rowid = ?", rowids)
            deleted += len(rowids)
        return deleted

    def _insert(self, first_rowid: int, entries: Sequence[IndexEntry]) -> None:
        rowids = range(first_rowid, first_rowid + len(entries))
        db = self.connection
        db.executemany(_INSERT, ((r, *e.columns()) for r, e in zip(rowids, entries, strict=True)))
        db.executemany(
            "INSERT INTO record_json VALUES (?, ?)",
            ((r, e.json) for r, e in zip(rowids, entries, strict=True)),
        )
        db.executemany(
            "INSERT INTO words (rowid, body) VALUES (?, ?)",
            ((r, e.document) for r, e in zip(rowids, entries, strict=True)),
        )
        db.executemany(
            "INSERT INTO domains VALUES (?, ?, ?)",
            ((r, k, d) for r, e in zip(rowids, entries, strict=True) for k, d in e.domains),
        )

    def clear(self) -> None:
        """Empties every table; indexes are dropped first so rows leave without index upkeep.

        Secure delete (on in many SQLite builds) would zero every freed page and write the whole
        file again through the WAL (bench/CHANGES.md). Clearing only precedes a rebuild from the
        same record files (asked for, or because most of them changed signature), which refills the
        freed pages with the same content, so here it runs in FAST mode (cells are still overwritten
        where that costs no I/O).
        """
        previous = _SECURE_DELETE_MODES[
            self.connection.execute("PRAGMA secure_delete").fetchone()[0]
        ]
        self.connection.execute("PRAGMA secure_delete = FAST")
        try:
            self._clear_tables()
        finally:
            self.connection.execute(f"PRAGMA secure_delete = {previous}")

    def _clear_tables(self) -> None:
        with self._transaction() as db:
            for name in INDEXES:
                db.execute(f"DROP INDEX IF EXISTS {name}")
            db.execute("INSERT INTO words (words) VALUES ('delete-all')")
            db.execute("DELETE FROM domains")
            db.execute("DELETE FROM record_json")
            db.execute("DELETE FROM records")
            for statement in INDEXES.values():
                db.execute(statement)

    def checkpoint(self) -> None:
        """Folds a large write back into the database so the WAL file does not stay huge."""
        self.connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    # reading ----------------------------------------------------------------------------------

    def query_ids(self, flt: IndexFilter) -> list[str]:
        where, params = _where(flt)
        table = "records NOT INDEXED" if self._few_words_match(flt.query) else "records"
        sql = f"SELECT id FROM {table}{where} {_ORDER}"
        if flt.limit > 0:
            sql += " LIMIT ?"
            params.append(flt.limit)
        return [row[0] for row in self.connection.execute(sql, params)]

    def _few_words_match(self, query: str) -> bool:
        """Whether the text condition alone leaves so few rows that they should drive the query.

        Then the rows come from the FTS match by rowid and are sorted; otherwise the sort index
        is walked and each row checked against the match. Counting stops at `_FEW`, and the
        exact form of the last word is counted first because a prefix match builds its whole
        list before the first row.
        """
        expression = fts_expression(query)
        if expression is None:
            return False
        for candidate in (fts_expression(query + " "), expression):
            found = self.connection.execute(_COUNT_UPTO, (candidate, _FEW + 1)).fetchone()[0]
            if found > _FEW:
                return False
        return True

    def _by_id(self, columns: str, ids: Sequence[str]) -> dict[str, tuple[Any, ...]]:
        """Rows by exact id, found through the case-insensitive id index."""
        found: dict[str, tuple[Any, ...]] = {}
        for chunk in _chunks(list(dict.fromkeys(ids))):
            marks = ", ".join("?" for _ in chunk)
            keys = [record_id.lower() for record_id in chunk]
            wanted = set(chunk)
            for row in self.connection.execute(
                f"SELECT {columns} FROM records WHERE id_key IN ({marks})", keys
            ):
                if row[0] in wanted:
                    found[row[0]] = row
        return found

    def rows(self, ids: Sequence[str]) -> list[ListRow]:
        found = self._by_id(_ROW_COLUMNS, ids)
        out = []
        for record_id in ids:
            row = found.get(record_id)
            if row is not None:
                out.append(_list_row(row))
        return out

    def records(self, ids: Sequence[str]) -> list[DecisionRecord]:
        found = self._by_id(f"id, {_JSON}", ids)
        return [_record(found[i][1]) for i in ids if i in found]

    def shapes(self, ids: Sequence[str]) -> list[RecordShape]:
        found = self._by_id(f"id, {_JSON}", ids)
        return [_shape(found[i][1]) for i in ids if i in found]

    def compact(self, ids: Sequence[str]) -> list[bytes]:
        """The records' compact JSON (`core.record.codec.compact_record`), in the order of ids."""
        found = self._by_id(f"id, {_JSON}", ids)
        return [unpack_json(found[i][1]) for i in ids if i in found]

    def stored(self, record_id: str) -> tuple[str, str, RecordShape] | None:
        """(file name, stat signature, record) of the row holding exactly `record_id`."""
        row = self._by_id(f"id, file_name, sig, {_JSON}", [record_id]).get(record_id)
        return None if row is None else (str(row[1]), str(row[2]), _shape(row[3]))

    def projects(self) -> list[ProjectSummary]:
        rows = self.connection.execute(
            "SELECT project_id, project_alias, upd_s, upd_sub, upd_offset, active FROM ("
            " SELECT project_id, project_alias, upd_s, upd_sub, upd_offset,"
            f"  row_number() OVER (PARTITION BY project_key {_ORDER}) AS n,"
            "  sum(deleted = 0) OVER (PARTITION BY project_key) AS active"
            " FROM records WHERE project_key <> '') WHERE n = 1"
        ).fetchall()
        summaries = [
            ProjectSummary(project_id, alias or project_id, active, _time(s, sub, off))
            for project_id, alias, s, sub, off, active in rows
        ]
        summaries.sort(key=lambda p: (key(p.alias), p.project_id))
        return summaries

    def facets(self) -> Facets:
        def distinct(column: str) -> list[str]:
            return [
                row[0]
                for row in self.connection.execute(
                    f"SELECT DISTINCT {column} FROM records WHERE {column} <> '' ORDER BY 1"
                )
            ]

        domains = [
            row[0]
            for row in self.connection.execute(
                "SELECT min(domain) FROM domains GROUP BY domain_key ORDER BY domain_key"
            )
        ]
        return Facets(domains, distinct("kind_key"), distinct("risk_key"), distinct("status_key"))

    def current_project_id(self) -> str:
        row = self.connection.execute(
            f"SELECT project_id FROM records WHERE deleted = 0 AND project_key <> '' {_ORDER} "
            "LIMIT 1"
        ).fetchone()
        return str(row[0]) if row else ""

    def digests(self, include_deleted: bool) -> list[tuple[str, str]]:
        sql = "SELECT id, digest FROM records" + ("" if include_deleted else " WHERE deleted = 0")
        return sorted(self.connection.execute(sql).fetchall())


def _words_of(blob: Any) -> str:
    """The full-text document a row went in with, from its cached record; its words must be
    given back exactly to take them out (the table keeps no text).

    Why the plain view: decoding the cached JSON in C costs a tenth of the pydantic parse, and
    it gives back the very strings the record was encoded from.
    """
    from core.bulk.record_view import plain_view  # noqa: PLC0415  # see the imports

    data = unpack_json(blob)
    try:
        return fts_document(plain_view(data))
    except msgspec.DecodeError:
        from core.record.models import DecisionRecord  # noqa: PLC0415  # see the imports

        return fts_document(DecisionRecord.model_validate_json(data))


def _shape(blob: Any) -> RecordShape:
    """The cached record decoded in C (msgspec's plain view), for readers of a few fields; a
    tenth of the cost of the pydantic model."""
    from core.bulk.record_view import plain_view  # noqa: PLC0415  # see the imports

    data = unpack_json(blob)
    try:
        return plain_view(data)
    except msgspec.DecodeError:
        from core.record.models import DecisionRecord  # noqa: PLC0415  # see the imports

        return DecisionRecord.model_validate_json(data)


def _record(blob: Any) -> DecisionRecord:
    """The cached record; it was validated when read from its file, so parsing suffices."""
    from core.record.models import DecisionRecord  # noqa: PLC0415  # see the imports

    return DecisionRecord.model_validate_json(unpack_json(blob))


def _list_row(row: tuple[Any, ...]) -> ListRow:
    """The list row of a `_ROW_COLUMNS` selection."""
    c = _ListColumns._make(row)
    return ListRow(
        id=str(c.id),
        problem=str(c.problem),
        project_id=str(c.project_id),
        project_alias=str(c.project_alias),
        decision_kind=str(c.decision_kind),
        risk_level=str(c.risk_level),
        status=str(c.status),
        selected_label=str(c.selected_label),
        updated_at=_time(c.upd_s, c.upd_sub, c.upd_offset),
        revision=int(c.revision),
        deleted=bool(c.deleted),
    )
