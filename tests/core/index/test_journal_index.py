"""The journal index: reconciliation, self-repair, store updates, search and summaries.

The index must answer exactly what a full scan of the store answers (`core.index.query.select`
over `DecisionStore.list_with_issues`); the property test at the end checks that on random
journals and random filters.
"""

from __future__ import annotations

import os
import re
import sqlite3
import tempfile
import threading
import unicodedata
from collections.abc import Callable, Iterator
from pathlib import Path
from unittest.mock import patch

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import core.bulk.file_identity
import core.bulk.parallel_read
import core.index.index_file
import core.index.journal_index
import core.index.statements
from core.bulk.compact_json import record_digest
from core.errors import JournalDamaged
from core.gocompat.gotime import GoTime
from core.index.entry import IndexEntry
from core.index.fulltext import words
from core.index.index_file import index_path
from core.index.journal_index import IndexFilter, JournalIndex
from core.index.query import select
from core.index.scan import current_project, facets_of, project_summaries
from core.journal import Journal
from core.record.filters import ListFilter
from core.record.models import DecisionRecord, Option, RejectedReason
from core.record.shape import StoredRead
from core.store.decisions import DecisionStore
from core.store.record_files import record_file_names
from core.store.safefs import ensure_private_dir
from tests.core.bulk.support.reads import shape_values
from tests.factories import (
    SECOND_NS,
    STORED_BASE_NS,
    count_record_reads,
    make_record,
    on_disk,
    stored,
)

T0 = STORED_BASE_NS
SECOND = SECOND_NS


def edit_by_hand(root: Path) -> None:
    """Adds decision-new, changes decision-1, removes decision-2 and corrupts decision-3."""
    on_disk(root, stored("decision-new", 10))
    on_disk(root, stored("decision-1", 11, revision=2, status="corrected", tags=["edited"]))
    (root / "records" / "decision-2.json").unlink()
    (root / "records" / "decision-3.json").write_text('{"schema_version": 1, "id": "decision-3"')


def scan_ids(store: DecisionStore, flt: IndexFilter) -> list[str]:
    records = store.list_with_issues(ListFilter(include_deleted=True)).records
    return [r.id for r in select(records, flt)]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return tmp_path / "journal"


@pytest.fixture
def store(root: Path) -> DecisionStore:
    return DecisionStore(root)


@pytest.fixture
def index(root: Path, store: DecisionStore) -> Iterator[JournalIndex]:
    idx = JournalIndex(root, store)
    store.add_listener(idx)
    yield idx
    idx.close()


@pytest.fixture
def trusting(monkeypatch: pytest.MonkeyPatch) -> None:
    """Files written a moment ago count as settled, so a warm reconcile reads nothing."""
    monkeypatch.setattr(core.bulk.file_identity, "RACY_NS", -(10**18))


# reconciliation ------------------------------------------------------------------------------


def test_cold_build_then_warm_reconcile_reads_nothing(
    root: Path,
    store: DecisionStore,
    index: JournalIndex,
    trusting: None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for n in range(5):
        on_disk(root, stored(f"decision-{n}", n))
    report = index.read_changed_files()
    assert (report.added, report.changed, report.removed, report.unreadable) == (5, 0, 0, [])
    reads = count_record_reads(monkeypatch)
    again = index.read_changed_files()
    assert (again.added, again.changed, again.removed) == (0, 0, 0)
    assert reads == []
    assert index.query_ids(IndexFilter()) == [f"decision-{n}" for n in range(4, -1, -1)]


def test_a_reconcile_that_finds_nothing_changed_writes_nothing(
    root: Path, index: JournalIndex, trusting: None
) -> None:
    """A `list` of a current index must not wait for the write lock another process holds."""
    for n in range(3):
        on_disk(root, stored(f"decision-{n}", n))
    index.read_changed_files()
    backend = index._open()
    assert isinstance(backend, core.index.statements.SqliteIndex)
    statements: list[str] = []
    backend.connection.set_trace_callback(statements.append)
    assert index.read_changed_files().removed == 0
    backend.connection.set_trace_callback(None)
    assert statements and not [s for s in statements if s.startswith(("BEGIN", "INSERT"))]


@pytest.mark.usefixtures("trusting")
def test_the_generation_moves_with_changes_whoever_read_them(
    root: Path, store: DecisionStore, index: JournalIndex
) -> None:
    """Another process's index that caught up first leaves this one nothing to count: the
    generation still moves, so a window showing rows knows they are out of date."""
    store.put(make_record(id="decision-g-1"))
    first = index.read_changed_files()
    assert index.read_changed_files().generation == first.generation  # nothing changed
    on_disk(root, make_record(id="decision-g-2"))
    assert index.read_changed_files().generation == first.generation + 1  # read here
    on_disk(root, make_record(id="decision-g-3"))
    elsewhere = JournalIndex(root, DecisionStore(root))
    try:
        assert elsewhere.read_changed_files().added == 1
    finally:
        elsewhere.close()
    caught_up = index.read_changed_files()
    assert (caught_up.added, caught_up.changed, caught_up.removed) == (0, 0, 0)
    assert caught_up.generation == first.generation + 2
    assert index.read_changed_files().generation == first.generation + 2


def test_a_commit_in_this_process_moves_the_generation_its_reconcile_finds_nothing_in(
    store: DecisionStore, index: JournalIndex
) -> None:
    """The store's listener updates the row at once, so the reconcile that follows reads the
    file and counts nothing; a window comparing generations must still see it changed."""
    store.put(make_record(id="decision-g-1"))
    first = index.read_changed_files()
    assert index.generation == first.generation
    store.put(make_record(id="decision-g-2"))  # the fixture made the index a listener
    assert index.generation == first.generation + 1
    after = index.read_changed_files()
    assert (after.added, after.changed, after.removed) == (0, 0, 0)
    assert after.generation == first.generation + 1
    assert index.query_ids(IndexFilter(include_deleted=True)) == ["decision-g-2", "decision-g-1"]


def test_reconcile_sees_files_added_changed_removed_and_corrupted_by_hand(
    root: Path,
    store: DecisionStore,
    index: JournalIndex,
    trusting: None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for n in range(4):
        on_disk(root, stored(f"decision-{n}", n))
    index.read_changed_files()
    edit_by_hand(root)
    reads = count_record_reads(monkeypatch)
    report = index.read_changed_files()
    assert sorted(reads) == ["decision-1.json", "decision-3.json", "decision-new.json"]
    assert (report.added, report.changed, report.removed) == (1, 1, 2)
    assert [Path(i.path).name for i in report.unreadable] == ["decision-3.json"]
    assert index.issues() == report.unreadable
    assert index.query_ids(IndexFilter()) == ["decision-1", "decision-new", "decision-0"]
    assert index.query_ids(IndexFilter(query="edited")) == ["decision-1"]
    assert index.query_ids(IndexFilter()) == scan_ids(store, IndexFilter())
    store_issues = store.list_with_issues().issues
    assert [i.path for i in index.issues()] == [i.path for i in store_issues]


def test_a_journal_whose_files_mostly_changed_is_rebuilt_with_the_same_answers(
    root: Path,
    store: DecisionStore,
    index: JournalIndex,
    trusting: None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """As after copying the journal to another disk: every file's signature is new."""
    monkeypatch.setattr(core.index.journal_index, "BULK_MIN", 4)
    for n in range(8):
        on_disk(root, stored(f"decision-{n}", n))
    index.read_changed_files()
    for path in (root / "records").glob("*.json"):
        os.utime(path, ns=(T0, T0))
    edit_by_hand(root)
    cleared: list[int] = []
    clear = core.index.statements.SqliteIndex.clear

    def counted_clear(backend: core.index.statements.SqliteIndex) -> None:
        cleared.append(1)
        clear(backend)

    monkeypatch.setattr(core.index.statements.SqliteIndex, "clear", counted_clear)
    report = index.read_changed_files()
    assert cleared == [1]
    assert (report.added, report.changed, report.removed) == (1, 1, 2)
    assert [Path(i.path).name for i in report.unreadable] == ["decision-3.json"]
    assert index.query_ids(IndexFilter(query="edited")) == ["decision-1"]
    assert index.query_ids(IndexFilter()) == scan_ids(store, IndexFilter())
    monkeypatch.setattr(core.index.journal_index, "BULK_MIN", 1)
    (root / "records" / "decision-3.json").unlink()  # else read again every time
    os.utime(root / "records" / "decision-4.json", ns=(T0 + SECOND, T0 + SECOND))
    assert index.read_changed_files().changed == 0
    assert cleared == [1]  # one touched file of seven is updated in its row
    for name in ("decision-5.json", "decision-6.json"):
        os.utime(root / "records" / name, ns=(T0 + 2 * SECOND, T0 + 2 * SECOND))
    assert index.read_changed_files().changed == 0
    assert cleared == [1, 1]  # two of seven: more than a quarter


def test_a_changed_record_loses_its_old_words(
    root: Path, store: DecisionStore, index: JournalIndex, trusting: None
) -> None:
    """Taking a row's words out of the full-text index needs exactly the words it went in
    with (the table keeps no text), recomputed from the cached record."""
    odd = "Ünïcodeword ﬁzzbuzz 東京 straßenbahn"  # NFKC, case folding, non-ASCII words
    on_disk(root, stored("decision-1", 1, problem=f"Choose alpha storage {odd}"))
    index.read_changed_files()
    words_in = ("alpha ", "東京 ", "strassenbahn ", "fizzbuzz ", "ünïcodeword ")
    for word in words_in:
        assert index.query_ids(IndexFilter(query=word)) == ["decision-1"], word
    on_disk(root, stored("decision-1", 2, revision=2, status="corrected", problem="Choose beta"))
    assert index.read_changed_files().changed == 1
    for word in words_in:
        assert index.query_ids(IndexFilter(query=word)) == [], word
    assert index.query_ids(IndexFilter(query="beta ")) == ["decision-1"]


def test_unreadable_file_is_retried_and_heals(
    root: Path, store: DecisionStore, index: JournalIndex, trusting: None
) -> None:
    path = on_disk(root, stored("decision-1", 1))
    path.write_text("not json")
    assert len(index.read_changed_files().unreadable) == 1
    on_disk(root, stored("decision-1", 1))
    report = index.read_changed_files()
    assert (report.added, report.unreadable) == (1, [])
    assert index.query_ids(IndexFilter()) == ["decision-1"]


def test_a_file_touched_without_a_change_is_not_counted_as_changed(
    root: Path, store: DecisionStore, index: JournalIndex, trusting: None
) -> None:
    path = on_disk(root, stored("decision-1", 1))
    index.read_changed_files()
    os.utime(path, ns=(T0, T0))
    report = index.read_changed_files()
    assert (report.added, report.changed, report.removed) == (0, 0, 0)


def test_recent_files_are_read_again_until_they_settle(
    root: Path, store: DecisionStore, index: JournalIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file changed within the timestamp granularity could change again unnoticed."""
    on_disk(root, stored("decision-1", 1))
    index.read_changed_files()
    reads = count_record_reads(monkeypatch)
    index.read_changed_files()
    assert reads == ["decision-1.json"]


def test_rebuild_reads_everything_again(
    root: Path,
    store: DecisionStore,
    index: JournalIndex,
    trusting: None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for n in range(3):
        on_disk(root, stored(f"decision-{n}", n))
    index.read_changed_files()
    reads = count_record_reads(monkeypatch)
    report = index.read_all_files()
    assert (report.added, len(reads)) == (3, 3)
    assert report.seconds >= 0


# self-repair ---------------------------------------------------------------------------------


def test_deleted_index_file_is_rebuilt(
    root: Path, store: DecisionStore, index: JournalIndex
) -> None:
    on_disk(root, stored("decision-1", 1))
    index.read_changed_files()
    index.close()
    for suffix in ("", "-wal", "-shm"):
        Path(f"{index_path(root)}{suffix}").unlink(missing_ok=True)
    fresh = JournalIndex(root, store)
    assert fresh.query_ids(IndexFilter()) == ["decision-1"]
    fresh.close()


def test_garbage_index_file_is_replaced(root: Path, store: DecisionStore) -> None:
    on_disk(root, stored("decision-1", 1))
    ensure_private_dir(root, index_path(root).parent)
    index_path(root).write_bytes(b"this is not a database" * 500)
    idx = JournalIndex(root, store)
    assert idx.query_ids(IndexFilter()) == ["decision-1"]
    with sqlite3.connect(index_path(root)) as db:
        assert db.execute("SELECT count(*) FROM records").fetchone() == (1,)
    idx.close()


def test_outdated_index_format_is_replaced(
    root: Path, store: DecisionStore, index: JournalIndex
) -> None:
    on_disk(root, stored("decision-1", 1))
    index.read_changed_files()
    index.close()
    with sqlite3.connect(index_path(root)) as db:
        db.execute("UPDATE meta SET value = 'decision-journal-index/0' WHERE key = 'format'")
    fresh = JournalIndex(root, store)
    assert fresh.read_changed_files().added == 1
    fresh.close()


def test_database_failing_during_a_query_is_replaced(
    root: Path, store: DecisionStore, index: JournalIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    on_disk(root, stored("decision-1", 1))
    index.read_changed_files()
    failures = iter([sqlite3.DatabaseError("database disk image is malformed")])
    original = core.index.statements.SqliteIndex.query_ids

    def flaky(self: core.index.statements.SqliteIndex, flt: IndexFilter) -> list[str]:
        for error in failures:
            raise error
        return original(self, flt)

    monkeypatch.setattr(core.index.statements.SqliteIndex, "query_ids", flaky)
    assert index.query_ids(IndexFilter()) == ["decision-1"]


def test_unusable_sqlite_falls_back_to_scanning_the_store(
    root: Path, store: DecisionStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(journal_root: Path) -> sqlite3.Connection:
        raise sqlite3.OperationalError("unable to open database file")

    monkeypatch.setattr(core.index.journal_index, "open_index", broken)
    on_disk(root, stored("decision-1", 1, project_id="project-a"))
    on_disk(root, stored("decision-2", 2, status="deleted"))
    (root / "records" / "bad.json").write_text("{")
    idx = JournalIndex(root, store)
    assert idx.read_changed_files().added == 2
    assert [Path(i.path).name for i in idx.issues()] == ["bad.json"]
    assert idx.query_ids(IndexFilter(include_deleted=True)) == ["decision-2", "decision-1"]
    assert [r.id for r in idx.rows(["decision-1", "gone"])] == ["decision-1"]
    assert idx.records(["decision-1"]) == [store.get("decision-1")]
    assert idx.shapes(["decision-1"]) == [store.get("decision-1")]  # the scan reads records
    assert idx.current_project_id() == "project-a"
    assert idx.facets().statuses == ["completed", "deleted"]
    with pytest.raises(JournalDamaged):
        idx.list_records(IndexFilter())


def test_an_index_given_no_store_opens_its_own_to_scan_without_sqlite(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(journal_root: Path) -> sqlite3.Connection:
        raise sqlite3.OperationalError("unable to open database file")

    on_disk(root, stored("decision-1", 1))
    current = JournalIndex(root)
    assert current.query_ids(IndexFilter()) == ["decision-1"]
    assert current._store is None  # a current index answers without the store
    monkeypatch.setattr(core.index.journal_index, "open_index", broken)
    scanning = JournalIndex(root)
    assert scanning.query_ids(IndexFilter()) == ["decision-1"]
    assert scanning.store.root == root


def test_index_files_are_private(root: Path, store: DecisionStore, index: JournalIndex) -> None:
    store.put(make_record())
    index.read_changed_files()
    assert oct(os.stat(index_path(root).parent).st_mode & 0o777) == "0o700"
    for suffix in ("", "-wal", "-shm"):
        assert oct(os.stat(f"{index_path(root)}{suffix}").st_mode & 0o777) == "0o600"


# store writes --------------------------------------------------------------------------------


def test_store_writes_update_the_index_at_once(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "journal")
    journal.index.read_changed_files()
    first = journal.store.put(make_record())
    assert journal.index.query_ids(IndexFilter()) == [first.id]
    revised = journal.store.revise(first.id, 1, lambda r: setattr(r, "tags", ["zebra"]))
    assert journal.index.query_ids(IndexFilter(query="zebra")) == [first.id]
    assert journal.index.records([first.id]) == [revised]
    journal.store.revise(first.id, 2, lambda r: setattr(r, "tags", ["yak"]))
    assert journal.index.query_ids(IndexFilter(query="zebra")) == []
    assert journal.index.query_ids(IndexFilter(query="yak")) == [first.id]
    journal.store.soft_delete(first.id, 3)
    assert journal.index.query_ids(IndexFilter()) == []
    assert journal.index.rows([first.id])[0].deleted
    report = journal.index.read_changed_files()
    assert (report.added, report.changed, report.removed) == (0, 0, 0)
    journal.index.close()


def test_listener_does_not_open_an_unused_index(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "journal")
    journal.store.put(make_record())
    assert not index_path(journal.store.root).exists()


# queries -------------------------------------------------------------------------------------


def test_rows_and_records_follow_the_given_order_and_skip_missing_ids(
    root: Path, store: DecisionStore, index: JournalIndex
) -> None:
    on_disk(root, stored("decision-1", 1, project_alias="alpha"))
    custom = stored("decision-2", 2, custom_selection="Something else", selected_option_id="")
    custom.rejected_reasons.append(RejectedReason(option_id="per-record-json", reason="too many"))
    on_disk(root, custom)
    assert index.issues() == []
    rows = index.rows(["decision-2", "missing", "decision-1"])
    assert [r.id for r in rows] == ["decision-2", "decision-1"]
    assert rows[0].selected_label == "Something else"
    assert rows[1].project_alias == "alpha"
    assert rows[1].updated_at == GoTime(T0 + SECOND)
    assert index.records(["decision-2", "decision-1"]) == [
        store.get("decision-2"),
        store.get("decision-1"),
    ]
    views = index.shapes(["decision-2", "missing", "decision-1"])
    records = [store.get("decision-2"), store.get("decision-1")]
    assert [shape_values(v) for v in views] == [shape_values(r) for r in records]


def test_full_text_queries(root: Path, store: DecisionStore, index: JournalIndex) -> None:
    on_disk(root, stored("decision-1", 1, problem="Pick a caché for the Straße index"))
    on_disk(
        root,
        stored(
            "decision-2",
            2,
            problem="데이터 저장 방식을 고른다",
            tags=["Retry-Policy"],
            rejected_reasons=[
                RejectedReason(option_id="single-json", reason="rewrites everything")
            ],
        ),
    )

    def ids(query: str) -> list[str]:
        return index.query_ids(IndexFilter(query=query))

    assert ids("CACHÉ straße") == ["decision-1"]
    assert ids("strasse") == ["decision-1"]
    assert ids("cach") == ["decision-1"]
    assert ids("cach ") == []
    assert ids("caché ind") == ["decision-1"]
    assert ids("ind caché") == []
    assert ids("데이") == ["decision-2"]
    assert ids("retry policy") == ["decision-2"]
    assert ids("rewrites ") == ["decision-2", "decision-1"]  # decision-1: "global rewrite"
    assert ids("rewritten") == []  # an irregular form the light stemmer leaves alone
    assert ids("per-record") == ["decision-2", "decision-1"]
    assert ids("kernforge") == []  # project, alias and workspace are filters, not text
    assert ids("  --  ") == ["decision-2", "decision-1"]


def test_kinds_tags_and_word_stems_are_searched(
    root: Path, store: DecisionStore, index: JournalIndex
) -> None:
    on_disk(
        root,
        stored("decision-1", 1, problem="Where answers live", decision_kind="caching-strategy"),
    )
    on_disk(root, stored("decision-2", 2, problem="Cache the rendered pages", tags=["pooling"]))
    on_disk(root, stored("decision-3", 3, problem="Stopped retrying the classes"))

    def ids(query: str) -> list[str]:
        return index.query_ids(IndexFilter(query=query))

    assert ids("caching") == ["decision-2", "decision-1"]  # a kind's word, "cache"'s stem
    assert ids("caching ") == ["decision-2", "decision-1"]
    assert ids("strategies ") == ["decision-1"]
    assert ids("caches pool") == ["decision-2"]  # a tag's word "pooling", prefix "pool"
    assert ids("pools ") == ["decision-2"]
    assert ids("stop retry class") == ["decision-3"]
    assert ids("class ") == ["decision-3"]
    assert ids("cash ") == []


def test_updated_range_is_inclusive_then_exclusive(
    root: Path, store: DecisionStore, index: JournalIndex
) -> None:
    for n in range(1, 4):
        on_disk(root, stored(f"decision-{n}", n))
    flt = IndexFilter(updated_from=GoTime(T0 + SECOND), updated_to=GoTime(T0 + 3 * SECOND))
    assert index.query_ids(flt) == ["decision-2", "decision-1"]


def test_projects_take_the_alias_of_the_newest_record(
    root: Path, store: DecisionStore, index: JournalIndex
) -> None:
    on_disk(root, stored("decision-1", 1, project_id="project-b", project_alias="old name"))
    on_disk(root, stored("decision-2", 5, project_id="project-b", project_alias="zeta"))
    on_disk(root, stored("decision-3", 3, project_id="PROJECT-B", status="deleted"))
    on_disk(root, stored("decision-4", 2, project_id="project-a", project_alias=""))
    on_disk(root, stored("decision-5", 4, project_id=""))
    projects = index.projects()
    assert [(p.project_id, p.alias, p.count) for p in projects] == [
        ("project-a", "project-a", 1),
        ("project-b", "zeta", 2),
    ]
    assert projects[1].last_updated == GoTime(T0 + 5 * SECOND)
    assert index.current_project_id() == "project-b"


def test_facets_list_distinct_values_of_every_record(
    root: Path, store: DecisionStore, index: JournalIndex
) -> None:
    on_disk(root, stored("decision-1", 1, domains=["Storage", "ui"], risk_level=""))
    on_disk(root, stored("decision-2", 2, domains=["storage"], status="deleted", decision_kind="x"))
    facets = index.facets()
    assert facets.domains == ["Storage", "ui"]
    assert facets.kinds == ["storage_backend", "x"]
    assert facets.risks == ["medium"]
    assert facets.statuses == ["completed", "deleted"]


@pytest.mark.parametrize("method", ["list_records", "list_shapes"])
def test_whole_journal_lists_fail_closed_and_name_the_runbook_entry(
    root: Path, store: DecisionStore, index: JournalIndex, method: str
) -> None:
    listed = getattr(index, method)
    on_disk(root, stored("decision-1", 1))
    assert [r.id for r in listed(IndexFilter())] == ["decision-1"]
    (root / "records" / "broken.json").write_text("[]")
    with pytest.raises(JournalDamaged) as caught:
        listed(IndexFilter())
    assert "1 unreadable record(s)" in str(caught.value)
    assert caught.value.runbook_hint().startswith(
        "see: decision-journal help runbook unreadable-record;"
    )
    assert index.query_ids(IndexFilter()) == ["decision-1"]


def test_digests_are_the_records_digests(
    root: Path, store: DecisionStore, index: JournalIndex
) -> None:
    on_disk(root, stored("decision-1", 1))
    on_disk(root, stored("decision-2", 2, status="deleted"))
    expected = [("decision-1", record_digest(store.get("decision-1")))]
    assert index.digests() == expected
    assert len(index.digests(include_deleted=True)) == 2


# the property: the index answers what a full scan answers --------------------------------------

WORDS = [
    "cache", "Cache", "CACHES", "caché", "naïve", "straße", "STRASSE", "데이터", "저장",
    "retry-batch", "x_y", "ﬁle", "e\u0301t\u00e9", "½", "İstanbul", "ǅemal", "a|b", "lock",
    "queue", "ΣΊΣΥΦΟΣ", "σίσυφος",
]  # fmt: skip
texts = st.lists(st.sampled_from(WORDS), max_size=4).map(" ".join)
text_or_noise = st.one_of(texts, st.text(max_size=12))
PROJECTS = ["project-a", "PROJECT-A", "project-b", ""]
WORKSPACES = ["", "/home/dev/src/a", "/home/dev/src/a/wt", "/home/dev/src/ab", "/", "rel/a"]
DOMAINS = ["storage", "Storage", "ui", " cli ", "데이터"]


@st.composite
def random_record(draw: st.DrawFn, n: int) -> DecisionRecord:
    labels = draw(st.lists(texts, min_size=2, max_size=2))
    status = draw(st.sampled_from(["completed", "corrected", "deleted"]))
    custom = draw(st.sampled_from(["", "", "Custom " + draw(texts)]))
    options = [
        Option(id="opt-a", label="A " + labels[0], description=draw(text_or_noise)),
        Option(id="opt-b", label="B " + labels[1], pros=[draw(texts) or "fast"]),
    ]
    rejected = [RejectedReason(option_id="opt-b", reason="no " + draw(text_or_noise))]
    if custom:
        rejected.append(RejectedReason(option_id="opt-a", reason="nope " + draw(texts)))
    return stored(
        f"decision-{n:03d}",
        draw(st.integers(0, 5)),
        status=status,
        project_id=draw(st.sampled_from(PROJECTS)),
        project_alias=draw(st.sampled_from(["", "alpha", "Beta"])),
        workspace=draw(st.sampled_from(WORKSPACES)),
        domains=draw(st.lists(st.sampled_from(DOMAINS), max_size=2)),
        decision_kind=draw(st.sampled_from(["storage_backend", "Cache_Policy", "api"])),
        risk_level=draw(st.sampled_from(["", "low", "high"])),
        problem="Problem " + draw(text_or_noise),
        options=options,
        recommended_option_id="",
        selected_option_id="" if custom else "opt-a",
        custom_selection=custom,
        rejected_reasons=rejected,
        selection_reason_raw="because " + draw(texts),
        tags=draw(st.lists(texts, max_size=2)),
    )


@st.composite
def journals(draw: st.DrawFn) -> list[DecisionRecord]:
    count = draw(st.integers(0, 12))
    return [draw(random_record(n)) for n in range(count)]


def _option(values: list[str]) -> st.SearchStrategy[str]:
    return st.one_of(st.sampled_from(values), st.text(max_size=6))


@st.composite
def filters(draw: st.DrawFn) -> IndexFilter:
    """A few conditions at a time, so that most filters still find something."""
    query = draw(st.one_of(st.sampled_from(WORDS), texts, st.text(max_size=8)))
    if query and draw(st.booleans()):
        query = query[: draw(st.integers(1, len(query)))]
    moment = st.integers(-1, 7).map(lambda s: GoTime(T0 + s * SECOND))
    candidates: dict[str, st.SearchStrategy[object]] = {
        "project_id": _option(PROJECTS),
        "workspace": _option(WORKSPACES),
        "domain": _option(DOMAINS),
        "decision_kind": _option(["storage_backend", "CACHE_POLICY", "api"]),
        "status": _option(["completed", "CORRECTED", "deleted"]),
        "risk_level": _option(["low", "high"]),
        "query": st.just(query),
        "updated_from": moment,
        "updated_to": moment,
        "limit": st.integers(1, 4),
    }
    chosen = draw(st.sets(st.sampled_from(sorted(candidates)), max_size=3))
    values = {name: draw(candidates[name]) for name in sorted(chosen)}
    return IndexFilter(include_deleted=draw(st.booleans()), **values)  # type: ignore[arg-type]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(records=journals(), queries=st.lists(filters(), min_size=1, max_size=6))
def test_index_answers_what_a_full_scan_answers(
    records: list[DecisionRecord], queries: list[IndexFilter]
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "journal"
        store = DecisionStore(root)
        for record in records:
            on_disk(root, record)
        index = JournalIndex(root, store)
        try:
            with patch.object(
                core.index.journal_index, "BULK_MIN", 1
            ):  # built without indexes, then sorted
                index.read_changed_files()
            scanned = store.list_with_issues(ListFilter(include_deleted=True))
            assert [i.path for i in index.issues()] == [i.path for i in scanned.issues]
            for flt in queries:
                expected = [r.id for r in select(scanned.records, flt)]
                assert index.query_ids(flt) == expected, flt
                with patch.object(core.index.statements, "_FEW", -1):  # the other query plan
                    assert index.query_ids(flt) == expected, flt
            assert index.projects() == project_summaries(scanned.records)
            assert index.facets() == facets_of(scanned.records)
            assert index.current_project_id() == current_project(scanned.records)
        finally:
            index.close()


unicode_text = st.text(
    alphabet=st.characters(exclude_categories=["Cs", "Cc"]), min_size=1, max_size=30
)


@st.composite
def searches(draw: st.DrawFn, problems: list[str]) -> str:
    """Queries built from the records' own words, cut anywhere, so that most of them match."""
    pool = [w for p in problems for w in words(p)] or ["x"]
    picked = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=3))
    if draw(st.booleans()):
        picked[-1] = picked[-1][: draw(st.integers(1, len(picked[-1])))]
    return " ".join(picked) + draw(st.sampled_from(["", " ", "-"]))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems=st.lists(st.one_of(texts, unicode_text), min_size=1, max_size=6), data=st.data())
def test_word_search_matches_its_definition(problems: list[str], data: st.DataObject) -> None:
    """FTS5 sees encoded words; the answers must still be those of `fulltext.query_matches`."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "journal"
        store = DecisionStore(root)
        for n, problem in enumerate(problems):
            on_disk(root, stored(f"decision-{n}", n, problem="P " + problem))
        index = JournalIndex(root, store)
        try:
            records = store.list_with_issues().records
            for _ in range(5):
                query = data.draw(searches(problems))
                expected = [r.id for r in select(records, IndexFilter(query=query))]
                assert index.query_ids(IndexFilter(query=query)) == expected, query
                with patch.object(core.index.statements, "_FEW", -1):
                    assert index.query_ids(IndexFilter(query=query)) == expected, query
        finally:
            index.close()


def test_listing_matches_the_stores_record_files(root: Path, store: DecisionStore) -> None:
    ensure_private_dir(root, root / "records")
    for name in ("a.json", "B.JSON", "c.json.lock", ".d.json.tmp-1", ".hidden.json", "e.txt"):
        (root / "records" / name).write_text("{}")
    assert sorted(record_file_names(store.records_dir)) == ["B.JSON", "a.json"]
    assert sorted(p.name for p in store.record_files()) == ["B.JSON", "a.json"]


def test_a_link_in_place_of_the_cache_folder_is_never_followed(
    root: Path, store: DecisionStore, tmp_path: Path
) -> None:
    on_disk(root, stored("decision-1", 1))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (root / "cache").symlink_to(elsewhere)
    index = JournalIndex(root, store)
    assert index.query_ids(IndexFilter()) == ["decision-1"]
    assert list(elsewhere.iterdir()) == []


def test_a_busy_database_is_not_deleted(
    root: Path, store: DecisionStore, index: JournalIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    on_disk(root, stored("decision-1", 1))
    index.read_changed_files()
    index.close()
    busy = sqlite3.OperationalError("database is locked")
    busy.sqlite_errorcode = sqlite3.SQLITE_BUSY

    def locked(journal_root: Path) -> sqlite3.Connection:
        raise busy

    with monkeypatch.context() as patch:
        patch.setattr(core.index.journal_index, "open_index", locked)
        assert index.query_ids(IndexFilter()) == ["decision-1"]
    assert index_path(root).exists()
    assert index.query_ids(IndexFilter()) == ["decision-1"]
    assert isinstance(index._backend, core.index.statements.SqliteIndex)


def test_reconcile_reports_progress_while_reading(
    root: Path, store: DecisionStore, index: JournalIndex
) -> None:
    for n in range(300):
        on_disk(root, stored(f"decision-{n:03d}", n))
    seen: list[tuple[int, int]] = []
    index.read_changed_files(progress=lambda done, total: seen.append((done, total)))
    assert seen == [(core.bulk.parallel_read.CHUNK, 300), (300, 300)]


def interrupt_reads(monkeypatch: pytest.MonkeyPatch, *, after: int) -> Callable[..., StoredRead]:
    """Makes the index's reads raise KeyboardInterrupt after `after` files; returns the original."""
    original = core.bulk.parallel_read.read_for_build
    calls = iter(range(1_000_000))

    def failing(
        root: Path, path: Path, expected_id: str, *, parents_checked: bool = False
    ) -> StoredRead:
        if next(calls) == after:
            raise KeyboardInterrupt
        return original(root, path, expected_id, parents_checked=parents_checked)

    monkeypatch.setattr(core.bulk.parallel_read, "read_for_build", failing)
    return original


def test_bulk_build_recreates_its_indexes_even_when_interrupted(
    root: Path, store: DecisionStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    for n in range(6):
        on_disk(root, stored(f"decision-{n}", n))
    monkeypatch.setattr(core.index.journal_index, "BULK_MIN", 2)
    index = JournalIndex(root, store)
    original = interrupt_reads(monkeypatch, after=3)
    with pytest.raises(KeyboardInterrupt):
        index.read_changed_files()
    names = {
        row[0]
        for row in sqlite3.connect(index_path(root)).execute(
            "SELECT name FROM sqlite_master WHERE type = 'index'"
        )
    }
    assert set(core.index.index_file.INDEXES) <= names
    monkeypatch.setattr(core.bulk.parallel_read, "read_for_build", original)
    assert index.query_ids(IndexFilter()) == [f"decision-{n}" for n in range(5, -1, -1)]
    index.close()


def committed_rows(root: Path) -> tuple[int, int]:
    """(records, records holding the fixture's word "canonical"), as another process sees them."""
    with sqlite3.connect(index_path(root)) as db:
        records = db.execute("SELECT count(*) FROM records").fetchone()[0]
        worded = db.execute("SELECT count(*) FROM words WHERE words MATCH 'canonical'")
        return records, worded.fetchone()[0]


@pytest.fixture
def small_bulk_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    """Eight files make a bulk build of four chunks of two; a transaction holds four rows."""
    monkeypatch.setattr(core.index.journal_index, "BULK_MIN", 2)
    monkeypatch.setattr(core.bulk.parallel_read, "CHUNK", 2)
    monkeypatch.setattr(core.index.statements, "BATCH_ROWS", 4)


def test_a_failed_write_in_a_bulk_build_rolls_back_its_whole_batch(
    root: Path, store: DecisionStore, small_bulk_batches: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    for n in range(8):
        on_disk(root, stored(f"decision-{n}", n))
    index = JournalIndex(root, store)
    original = core.index.statements.SqliteIndex._insert
    calls = iter(range(100))

    def failing_after_writing(
        self: core.index.statements.SqliteIndex, first_rowid: int, entries: list[object]
    ) -> None:
        original(self, first_rowid, entries)  # type: ignore[arg-type]
        if next(calls) == 3:
            raise KeyboardInterrupt

    monkeypatch.setattr(core.index.statements.SqliteIndex, "_insert", failing_after_writing)
    with pytest.raises(KeyboardInterrupt):
        index.read_changed_files()
    assert committed_rows(root) == (4, 4)  # the first batch; none of the second, not half
    monkeypatch.setattr(core.index.statements.SqliteIndex, "_insert", original)
    assert index.read_changed_files().added == 4
    assert index.query_ids(IndexFilter(query="canonical")) == [
        f"decision-{n}" for n in range(7, -1, -1)
    ]
    index.close()


def test_an_interrupted_bulk_build_keeps_every_chunk_it_wrote(
    root: Path, store: DecisionStore, small_bulk_batches: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    for n in range(8):
        on_disk(root, stored(f"decision-{n}", n))
    monkeypatch.setattr(core.index.statements, "BATCH_ROWS", 100)
    index = JournalIndex(root, store)
    interrupt_reads(monkeypatch, after=4)
    with pytest.raises(KeyboardInterrupt):
        index.read_changed_files()
    assert committed_rows(root) == (4, 4)  # two chunks, in a batch not yet full
    index.close()


def test_a_store_commit_during_a_bulk_build_commits_the_batch_then_fails_alone(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    backend = core.index.statements.SqliteIndex(core.index.index_file.open_index(root))
    built = [IndexEntry.of(f"decision-{n}.json", "", stored(f"decision-{n}", n)) for n in range(3)]
    original = core.index.statements.SqliteIndex._insert

    def failing(self: core.index.statements.SqliteIndex, first_rowid: int, entries: object) -> None:
        raise sqlite3.OperationalError("disk I/O error")

    with backend.bulk():
        backend.apply(built[:2], [], new=True)
        assert committed_rows(root) == (0, 0)  # the batch is not full yet
        monkeypatch.setattr(core.index.statements.SqliteIndex, "_insert", failing)
        with pytest.raises(sqlite3.OperationalError):
            backend.apply(built[2:], [])
        assert committed_rows(root) == (2, 2)
        monkeypatch.setattr(core.index.statements.SqliteIndex, "_insert", original)
        backend.apply(built[2:], [], new=True)
    assert committed_rows(root) == (3, 3)
    backend.close()


def test_a_new_index_file_has_large_pages(root: Path, store: DecisionStore) -> None:
    on_disk(root, stored("decision-1", 1))
    index = JournalIndex(root, store)
    index.read_changed_files()
    index.close()
    with sqlite3.connect(index_path(root)) as db:
        assert db.execute("PRAGMA page_size").fetchone() == (core.index.index_file.PAGE_SIZE,)


def test_opening_recreates_a_missing_index(root: Path, store: DecisionStore) -> None:
    on_disk(root, stored("decision-1", 1))
    index = JournalIndex(root, store)
    index.read_changed_files()
    index.close()
    with sqlite3.connect(index_path(root)) as db:
        db.execute("DROP INDEX records_file")
    again = JournalIndex(root, store)
    assert again.query_ids(IndexFilter()) == ["decision-1"]
    with sqlite3.connect(index_path(root)) as db:
        found = db.execute("SELECT count(*) FROM sqlite_master WHERE name = 'records_file'")
        assert found.fetchone() == (1,)
    again.close()


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=80))
def test_words_are_the_regex_words_of_the_normalized_text(text: str) -> None:
    folded = unicodedata.normalize("NFKC", text).casefold()
    assert words(text) == re.findall(r"[^\W_]+", folded)


def test_a_query_during_the_first_reconcile_waits_for_it_instead_of_starting_another(
    root: Path, store: DecisionStore, index: JournalIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    for n in range(300):
        on_disk(root, stored(f"decision-{n:03d}", n))
    runs: list[bool] = []
    original = JournalIndex._read_files_with

    def counted(self: JournalIndex, *args: object, **kwargs: object) -> object:
        runs.append(True)
        return original(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(JournalIndex, "_read_files_with", counted)
    reading, release = threading.Event(), threading.Event()

    def slow_progress(done: int, total: int) -> None:
        reading.set()
        release.wait(5)

    first = threading.Thread(target=index.read_changed_files, args=(slow_progress,))
    first.start()
    assert reading.wait(5)
    found: list[list[str]] = []
    query = threading.Thread(target=lambda: found.append(index.query_ids(IndexFilter())))
    query.start()
    query.join(0.3)
    assert query.is_alive()  # waiting for the running reconcile
    release.set()
    first.join(5)
    query.join(5)
    assert len(found[0]) == 300
    assert len(runs) == 1
    assert index.caught_up


def test_clearing_keeps_the_connections_secure_delete_setting(root: Path) -> None:
    """Clearing runs in FAST mode (the pages are refilled at once) and restores the setting."""
    backend = core.index.statements.SqliteIndex(core.index.index_file.open_index(root))
    for mode, expected in (("ON", 1), ("FAST", 2), ("OFF", 0)):
        backend.connection.execute(f"PRAGMA secure_delete = {mode}")
        backend.clear()
        assert backend.connection.execute("PRAGMA secure_delete").fetchone()[0] == expected
    backend.close()
