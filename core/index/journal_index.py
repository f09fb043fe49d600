"""The journal index: a derived SQLite cache of `records/` that makes browsing large journals fast.

Why a cache and not a second store: `records/` stays the only source of truth. The index keeps,
per record file, its signature, the filter and sort keys, the canonical compact JSON, the digest
and its words; `read_changed_files` brings it up to date by re-reading only files whose
signature changed (`read_all_files` drops every row and reads every file), and store writes
update it at once through `record_committed`. A damaged or outdated
database is replaced and rebuilt; if SQLite cannot work at all, every query scans the store.
"""

from __future__ import annotations

import os
import sqlite3
import stat
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from core.bulk.file_identity import FileIdentity
from core.bulk.gc_pause import gc_paused
from core.bulk.listing import record_stats
from core.errors import JournalError, unreadable_records
from core.index.entry import UNTRUSTED, IndexEntry
from core.index.index_file import index_path, is_transient, open_index, remove_index_files
from core.index.query import IndexFilter
from core.index.rows import Facets, IndexReadReport, ListRow, ProjectSummary
from core.index.scan import ScanIndex
from core.index.statements import SqliteIndex
from core.record.shape import RecordShape, StoredRead
from core.store.record_files import ListIssue, record_file_names
from core.store.safefs import check_no_links

if TYPE_CHECKING:  # the reading processes load with a build, the models with a full record
    from core.bulk.parallel_read import FileRead
    from core.record.models import DecisionRecord
    from core.store.decisions import DecisionStore

__all__ = [
    "Facets",
    "IndexFilter",
    "IndexReadReport",
    "JournalIndex",
    "ListRow",
    "ProjectSummary",
]


T = TypeVar("T")
Backend = SqliteIndex | ScanIndex
Progress = Callable[[int, int], None]

BULK_MIN = 5000
"""An empty index filled with at least this many files is built without secondary indexes."""


def _warn(message: str, *args: object) -> None:
    """A warning in this module's log. `logging` loads here, on the index's failure paths
    only: `list` and `show` open the index at every start and would otherwise pay for it."""
    import logging  # noqa: PLC0415

    logging.getLogger(__name__).warning(message, *args)


def _mostly_changed(to_read: int, known: int) -> bool:
    """Whether so many indexed files changed (a restored backup, a journal copied to another
    disk: every ctime and inode changes) that rebuilding beats changing rows one by one.

    A changed row costs about four rebuilt ones, so from a quarter of the rows on, the rebuild is as
    fast or faster (bench/browse_bench.py, `rebuild from scratch`; figures in bench/CHANGES.md).
    """
    return to_read >= BULK_MIN and 4 * to_read >= known > 0


def _compared(before: dict[str, str], after: dict[str, str]) -> tuple[int, int, int]:
    """(added, changed, removed) files between two {file name: digest} states."""
    added = sum(1 for name in after if name not in before)
    changed = sum(1 for name, digest in after.items() if before.get(name, digest) != digest)
    return added, changed, sum(1 for name in before if name not in after)


def _entry_of_read(name: str, scan_started: int, read: StoredRead) -> IndexEntry:
    """The entry of a file read for the index, under the signature of the stat the read took.

    A file changed just before the scan may change again without its signature changing
    (`FileIdentity.racy`), so its row is stored with an unknown signature and the file is read
    again at the next catch-up.
    """
    assert read.info is not None  # read from a file
    identity = FileIdentity.of(read.info)
    sig = UNTRUSTED if identity.racy(scan_started) else identity.signature()
    return IndexEntry.of_read(name, sig, read)


def _sorted_outcomes(
    outcomes: list[FileRead[IndexEntry]], issues: list[ListIssue], anchors: dict[str, str]
) -> tuple[list[IndexEntry], list[str]]:
    """(entries to write, names of files not read); unreadable files become issues."""
    entries: list[IndexEntry] = []
    failed: list[str] = []
    for outcome in outcomes:
        if outcome.value is not None:
            entries.append(outcome.value)
            continue
        failed.append(outcome.name)
        failure = outcome.failure
        if failure is not None and not failure.vanished:
            issues.append(ListIssue(failure.path, failure.message))
            anchors[failure.path] = failure.anchor
    return entries, failed


class JournalIndex:
    """The index of one journal; thread-safe, opened on first use. Implements CommitListener."""

    def __init__(self, journal_root: Path, store: DecisionStore | None = None) -> None:
        """`store`: the journal's store, which the index scans when SQLite cannot serve it;
        without one, the index opens its own when it first must (see `store`)."""
        self.root = Path(os.path.abspath(journal_root))
        self.records_dir = self.root / "records"
        self._store = store
        self.path = index_path(self.root)
        self._lock = threading.RLock()
        self._read_lock = threading.RLock()
        self._backend: Backend | None = None
        self._scan_only = False
        self._caught_up = False
        self._issues: list[ListIssue] = []
        self._anchors: dict[str, str] = {}
        self._generation = 0
        self._committed: dict[str, int] = {}
        self._changes = 0
        """`IndexReadReport.generation`: this process's commits, and catch-ups that found
        the index changed."""

    @property
    def store(self) -> DecisionStore:
        """The store this index scans when SQLite cannot serve it: the one it was given, else
        one opened here at the first need. A read of a current index never needs it, and the
        store's module (its write path with it) then does not load (bench/CHANGES.md)."""
        if self._store is None:
            from core.store.decisions import DecisionStore  # noqa: PLC0415  # see the docstring

            self._store = DecisionStore(self.root)
        return self._store

    # opening ---------------------------------------------------------------------------------

    def _open(self) -> Backend:
        """The backend, opening it when needed; never raises for a broken database."""
        with self._lock:
            if self._backend is not None:
                return self._backend
            if self._scan_only:
                self._backend = ScanIndex(self.store)
                return self._backend
            try:
                self._backend = SqliteIndex(open_index(self.root))
                self._caught_up = False  # whatever was caught up before, this one is not
            except sqlite3.Error as exc:
                if is_transient(exc):
                    _warn("journal index busy, scanning the store this time: %s", exc)
                    return ScanIndex(self.store)
                self._use_scans(exc)
            except (OSError, JournalError) as exc:
                self._use_scans(exc)  # e.g. a link planted at cache/: never follow it
            return self._open()

    def _use_scans(self, error: Exception) -> None:
        _warn("journal index unusable, scanning the store instead: %s", error)
        self._scan_only = True

    def _discard(self, error: sqlite3.Error) -> None:
        """Drops a database that failed: the next use creates and fills a fresh one."""
        _warn("journal index failed, replacing it: %s", error)
        with self._lock:
            if isinstance(self._backend, SqliteIndex):
                self._backend.close()
                if not self._scan_only:
                    remove_index_files(self.path)
            self._backend = None
            self._caught_up = False

    def close(self) -> None:
        with self._lock:
            if isinstance(self._backend, SqliteIndex):
                self._backend.close()
            self._backend = None
            self._caught_up = False

    # reading the files -----------------------------------------------------------------------

    @property
    def caught_up(self) -> bool:
        """Whether this process has caught the open index up with the files at least once."""
        with self._lock:
            return self._caught_up

    def read_changed_files(self, progress: Progress | None = None) -> IndexReadReport:
        """Re-reads changed files only; unreadable files become issues, never errors.

        Args:
            progress: called with (files read, files to read) while changed files are read,
                so a window can show a first build of a large journal.
        """
        return self._read_files(full=False, progress=progress)

    def read_all_files(self, progress: Progress | None = None) -> IndexReadReport:
        """Drops every row and reads every file again."""
        return self._read_files(full=True, progress=progress)

    def _read_files(self, *, full: bool, progress: Progress | None) -> IndexReadReport:
        started = time.perf_counter()
        with self._read_lock:
            for attempt in range(3):
                backend = self._open()
                try:
                    with gc_paused():
                        report = self._read_files_with(backend, full=full, progress=progress)
                    generation = self._count_changes(report, backend)
                except sqlite3.Error as exc:
                    self._recover(exc, attempt)
                    continue
                return IndexReadReport(
                    report.added,
                    report.changed,
                    report.removed,
                    report.unreadable,
                    time.perf_counter() - started,
                    generation,
                )
        raise AssertionError("the scan backend raises no SQLite errors")

    def _count_changes(self, report: IndexReadReport, backend: Backend) -> int:
        """The generation after a catch-up: one more when it changed rows or found rows
        another process's index committed since the last catch-up here."""
        with self._lock:
            elsewhere = isinstance(backend, SqliteIndex) and backend.changed_elsewhere()
            if elsewhere or report.added or report.changed or report.removed:
                self._changes += 1
            return self._changes

    @property
    def generation(self) -> int:
        """`IndexReadReport.generation` as it stands now; read without the lock (an int), so
        the GUI thread may ask while a query holds it."""
        return self._changes

    def ensure_caught_up(self) -> None:
        """Catches up unless this process already has; a caller arriving while a catch-up
        runs waits for it rather than starting another."""
        with self._read_lock:
            if not self._caught_up:
                self.read_changed_files()

    def _recover(self, error: sqlite3.Error, attempt: int) -> None:
        """First failure: retry (a busy database) or replace the file; second: scan the store."""
        if attempt == 0 and is_transient(error):
            _warn("journal index busy, retrying: %s", error)
            return
        if attempt > 0:
            _warn("journal index unusable, scanning the store instead: %s", error)
            with self._lock:
                self._scan_only = True
        self._discard(error)

    def _read_files_with(
        self, backend: Backend, *, full: bool, progress: Progress | None
    ) -> IndexReadReport:
        if isinstance(backend, ScanIndex):
            result = backend.scan()
            self._set_issues(result.issues, {})
            return IndexReadReport(len(result.records), 0, 0, list(result.issues))
        with self._lock:
            generation = self._generation
            if full:
                self._caught_up = False  # queries wait for the rebuild, never see it half done
                backend.clear()
            known = backend.signatures()
        check_no_links(self.root, self.records_dir)
        current, to_read = self._scan_files(known)
        before: dict[str, str] | None = None
        if _mostly_changed(len(to_read), len(known)):
            # Changing a row costs several times adding one (its old words must be taken out of the
            # full-text index; bench/CHANGES.md). Queries wait for it, as for any rebuild.
            before = backend.file_digests()
            with self._lock:
                self._caught_up = False
                backend.clear()
            known = {}
            to_read = [(name, to_read[0][1]) for name in sorted(current)]
        issues: list[ListIssue] = []
        anchors: dict[str, str] = {}
        with backend.bulk() if not known and len(to_read) >= BULK_MIN else nullcontext():
            added, changed, removed = self._read_all(
                backend,
                to_read,
                generation=generation,
                known=known,
                issues=issues,
                anchors=anchors,
                progress=progress,
            )
        vanished = [name for name in known if name not in current]
        if vanished:  # else nothing to write: a current index's reconcile takes no write lock
            removed += self._apply(backend, generation, [], vanished)[2]
        if before is not None:
            added, changed, removed = _compared(before, backend.file_digests())
        with self._lock:
            if len(to_read) > 1000:
                backend.checkpoint()
            self._committed.clear()
            self._set_issues(issues, anchors)
        return IndexReadReport(added, changed, removed, self.issues())

    def _read_all(
        self,
        backend: SqliteIndex,
        to_read: list[tuple[str, int]],
        *,
        generation: int,
        known: dict[str, str],
        issues: list[ListIssue],
        anchors: dict[str, str],
        progress: Progress | None,
    ) -> tuple[int, int, int]:
        """Reads changed files chunk by chunk and writes each chunk: (added, changed, removed)."""
        added = changed = removed = done = 0
        if not to_read:  # a current index: nothing to read, and no reading process to load
            return added, changed, removed
        from core.bulk.parallel_read import read_records  # noqa: PLC0415  # see the imports

        outcomes_by_chunk = read_records(
            self.root, self.records_dir, to_read, _entry_of_read, value_type=IndexEntry
        )
        for outcomes in outcomes_by_chunk:
            entries, failed = _sorted_outcomes(outcomes, issues, anchors)
            gone = [n for n in failed if n in known]
            counts = self._apply(backend, generation, entries, gone, new=not known)
            added, changed, removed = added + counts[0], changed + counts[1], removed + counts[2]
            done += len(outcomes)
            if progress is not None:
                progress(done, len(to_read))
        return added, changed, removed

    def _scan_files(self, known: dict[str, str]) -> tuple[set[str], list[tuple[str, int]]]:
        """(every current file name, (name, scan start) of each file to read).

        Into an empty index every file is read, and each read takes its own stat (the signature
        stored), so the lstat per file, a pass of its own on a large journal, is skipped.
        """
        now = time.time_ns()
        if not known:
            names = record_file_names(self.records_dir)
            return set(names), [(name, now) for name in names]
        current: set[str] = set()
        to_read: list[tuple[str, int]] = []
        for name, info in record_stats(self.records_dir).items():
            if info is None:  # gone while listed
                continue
            current.add(name)
            if known.get(name) != FileIdentity.of(info).signature():
                to_read.append((name, now))
        return current, to_read

    def _apply(
        self,
        backend: SqliteIndex,
        generation: int,
        entries: list[IndexEntry],
        removed: list[str],
        *,
        new: bool = False,
    ) -> tuple[int, int, int]:
        """Writes a catch-up's results, except rows a store commit replaced meanwhile.

        Those are the only rows a build into an empty index can meet, so `new` stays true.
        """
        with self._lock:
            fresh = {n for n, g in self._committed.items() if g > generation}
            return backend.apply(
                [e for e in entries if e.file_name not in fresh],
                [n for n in removed if n not in fresh],
                new=new,
            )

    def _set_issues(self, issues: list[ListIssue], anchors: dict[str, str]) -> None:
        with self._lock:
            self._issues = sorted(issues, key=lambda issue: issue.path)
            self._anchors = anchors
            self._caught_up = True

    def issues(self) -> list[ListIssue]:
        with self._lock:
            return list(self._issues)

    # the store listener ----------------------------------------------------------------------

    def record_committed(self, record: DecisionRecord) -> None:
        """Updates the row at once; never raises, because the revision is already committed.

        The row's signature is left unknown, so the next catch-up reads the file once more: a
        later write by another process may already have replaced it. That catch-up finds the
        row as committed and counts nothing, so the commit itself moves the generation a
        window compares (`IndexReadReport.generation`).
        """
        with self._lock:
            self._generation += 1
            self._changes += 1
            backend = self._backend
            if not isinstance(backend, SqliteIndex):
                return
            try:
                name = backend.file_for_id(record.id) or f"{record.id}.json"
                self._committed[name] = self._generation
                backend.apply([IndexEntry.of(name, UNTRUSTED, record)], [])
            except (sqlite3.Error, OSError, ValueError) as exc:
                _warn("journal index not updated for %s: %s", record.id, exc)

    # queries ---------------------------------------------------------------------------------

    def _query(self, run: Callable[[Backend], T]) -> T:
        """Runs a query on a caught-up index; recovers from a failing database like catch-up."""
        failures = 0
        while True:
            self.ensure_caught_up()
            with self._lock:
                backend = self._open()
                if not self._caught_up:
                    continue  # a fresh database was opened meanwhile: fill it first
                try:
                    return run(backend)
                except sqlite3.Error as exc:
                    if failures == 0 and is_transient(exc):
                        return run(ScanIndex(self.store))
                    self._recover(exc, failures)
                    failures += 1

    def query_ids(self, flt: IndexFilter) -> list[str]:
        """Matching ids, newest first (updated_at desc, id desc), as the store orders them."""
        return self._query(lambda b: b.query_ids(flt))

    def rows(self, ids: Sequence[str]) -> list[ListRow]:
        """List-view rows in the order of ids, skipping ids that are gone."""
        return self._query(lambda b: b.rows(ids))

    def records(self, ids: Sequence[str]) -> list[DecisionRecord]:
        """Full records in the order of ids, from the cached JSON (no file is read)."""
        return [record for chunk in self.iter_records(ids) for record in chunk]

    def shapes(self, ids: Sequence[str]) -> list[RecordShape]:
        """`records`, as read-only views for readers of a few fields (statistics): decoding
        the cached JSON into a view costs a tenth of building the full model."""
        with gc_paused():  # many small objects that all stay alive (see core/bulk/gc_pause.py)
            return [shape for chunk in self._by_chunk(ids, 500, _shapes) for shape in chunk]

    def current_shape(self, record_id: str) -> RecordShape | None:
        """One record as the index holds it, without catching up, when the index proves its
        file unchanged since the strict read that filled the row (the same stat signature; a
        row the index does not trust, such as a file changed just before its read, has none
        that matches). None for any doubt, and when there is no index file yet (one is not
        made for one read): then the file is read the strict way (`DecisionStore.get`), which
        also words any error."""
        if not self.path.is_file():
            return None
        try:
            check_no_links(self.root, self.records_dir)
            with self._lock:
                backend = self._open()
                if not isinstance(backend, SqliteIndex):
                    return None
                found = backend.stored(record_id)  # only a valid id has a row
            if found is None or found[0] != f"{record_id}.json":  # the file `get` reads
                return None
            name, sig, record = found
            info = os.lstat(self.records_dir / name)
        except (sqlite3.Error, OSError, ValueError, JournalError):
            return None
        if not stat.S_ISREG(info.st_mode) or FileIdentity.of(info).signature() != sig:
            return None
        return record

    def iter_rows(self, ids: Sequence[str], chunk: int = 500) -> Iterator[list[ListRow]]:
        """`rows` in chunks (see `iter_records`), for a listing of any length."""
        return self._by_chunk(ids, chunk, _rows)

    def iter_compact(self, ids: Sequence[str], chunk: int = 500) -> Iterator[list[bytes]]:
        """The records' compact JSON as the index holds it, in chunks (see `iter_records`): what
        whole-journal output writes from, without building a record."""
        return self._by_chunk(ids, chunk, _compact)

    def ids_of_whole(self, flt: IndexFilter) -> list[str]:
        """`list_records`' ids: catches up, then fails closed if any record is unreadable."""
        self._read_changed_files_or_fail()
        return self.query_ids(flt)

    def iter_records(self, ids: Sequence[str], chunk: int = 500) -> Iterator[list[DecisionRecord]]:
        """Records in chunks, releasing the lock between them so other queries are not held up."""
        return self._by_chunk(ids, chunk, _records)

    def _by_chunk(
        self, ids: Sequence[str], chunk: int, fetch: Callable[[Backend, Sequence[str]], list[T]]
    ) -> Iterator[list[T]]:
        for start in range(0, len(ids), chunk):
            part = ids[start : start + chunk]

            def load(backend: Backend, part: Sequence[str] = part) -> list[T]:
                return fetch(backend, part)

            yield self._query(load)

    def list_records(self, flt: IndexFilter) -> list[DecisionRecord]:
        """Catches up, then fails closed if any record is unreadable: for export and derivation."""
        return self.records(self.ids_of_whole(flt))

    def list_shapes(self, flt: IndexFilter) -> list[RecordShape]:
        """`list_records` as views (see `shapes`): for figures over the whole journal."""
        self._read_changed_files_or_fail()
        return self.shapes(self.query_ids(flt))

    def _read_changed_files_or_fail(self) -> None:
        """Catches up; raises JournalDamaged, naming the first unreadable record, if any is."""
        self.read_changed_files()
        issues = self.issues()
        if issues:
            first = issues[0]
            raise unreadable_records(
                len(issues), first.path, first.error, anchor=self._anchors.get(first.path)
            )

    def projects(self) -> list[ProjectSummary]:
        return self._query(lambda b: b.projects())

    def facets(self) -> Facets:
        return self._query(lambda b: b.facets())

    def current_project_id(self) -> str:
        """The project of the most recent active decision, or "" when none has one."""
        return self._query(lambda b: b.current_project_id())

    def digests(self, *, include_deleted: bool = False) -> list[tuple[str, str]]:
        """(id, sha256 of the compact record) sorted by id: what the profile's source hash needs."""
        return self._query(lambda b: b.digests(include_deleted))


def _records(backend: Backend, ids: Sequence[str]) -> list[DecisionRecord]:
    return backend.records(ids)


def _rows(backend: Backend, ids: Sequence[str]) -> list[ListRow]:
    return backend.rows(ids)


def _compact(backend: Backend, ids: Sequence[str]) -> list[bytes]:
    return backend.compact(ids)


def _shapes(backend: Backend, ids: Sequence[str]) -> list[RecordShape]:
    return backend.shapes(ids)
