"""Reading in worker processes gives exactly what reading here gives: values, failures, order.

These tests start real worker processes, so they use few files and lower the threshold that
normally keeps small batches in-process.
"""

from __future__ import annotations

import itertools
import multiprocessing
import os
import sys
import threading
from pathlib import Path

import pytest

import core.bulk.parallel_read
from core.bulk.file_identity import FileIdentity
from core.bulk.parallel_read import (
    WORKERS_ENV,
    Outcome,
    default_start_method,
    read_records,
    use_start_method,
    worker_count,
)
from core.bulk.profile_facts import RecordFacts
from core.index.entry import IndexEntry
from core.index.journal_index import JournalIndex
from core.index.query import IndexFilter
from core.profile.store import FACTS_CACHE_FILE, ProfileStore, _facts
from core.record.shape import StoredRead
from core.store.decisions import DecisionStore
from tests.factories import decision, on_disk, stored


@pytest.fixture
def journal(tmp_path: Path) -> Path:
    root = tmp_path / "journal"
    for n in range(40):
        on_disk(root, stored(f"decision-{n:02d}", n, tags=[f"tag{n % 3}"]))
    (root / "records" / "decision-07.json").write_text('{"schema_version": 1')
    return root


def _everything(
    root: Path,
    workers: int,
    names: list[str],
    value_type: type[IndexEntry] | None = None,
    start_method: str | None = None,
) -> list[Outcome[IndexEntry]]:
    items = [(name, f"sig-{name}") for name in names]
    chunks = read_records(
        root,
        root / "records",
        items,
        IndexEntry.of_read,
        workers=workers,
        value_type=value_type,
        start_method=start_method,
    )
    return [outcome for chunk in chunks for outcome in chunk]


@pytest.mark.parametrize("value_type", [IndexEntry, None])
@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_workers_return_what_reading_here_returns(
    journal: Path, monkeypatch: pytest.MonkeyPatch, method: str, value_type: type | None
) -> None:
    """Both ways of starting workers: fork in a plain process (the CLI), spawn in the app;
    outcomes sent back as MessagePack (a value type named) or pickled."""
    monkeypatch.setattr(core.bulk.parallel_read, "PARALLEL_MIN_FILES", 1)
    monkeypatch.setattr(core.bulk.parallel_read, "CHUNK", 7)
    names = [*sorted(p.name for p in (journal / "records").iterdir()), "vanished.json"]
    here = _everything(journal, 1, names)
    there = _everything(journal, 2, names, value_type, method)
    assert there == here
    assert [o.name for o in there] == names
    broken = {o.name: o.failure for o in there if o.failure is not None}
    assert broken["decision-07.json"] is not None and not broken["decision-07.json"].vanished
    assert broken["decision-07.json"].anchor == "unreadable-record"
    assert broken["decision-07.json"].path == str(journal / "records" / "decision-07.json")
    assert broken["vanished.json"] is not None and broken["vanished.json"].vanished
    assert there[0].value is not None and there[0].value.sig == "sig-decision-00.json"


@pytest.mark.parametrize(
    ("files", "workers", "chunk"),
    [(3000, 2, 250), (10_000, 2, 625), (100_000, 2, 1000), (100_000, 8, 1000), (20_000, 8, 312)],
)
def test_workers_get_few_large_tasks_but_at_least_eight_each(
    files: int, workers: int, chunk: int
) -> None:
    """Each task is a hand-over the main process pays for, so tasks grow with the journal, up
    to a cap; but each worker gets eight or more, so none idles long at the end."""
    assert core.bulk.parallel_read._worker_chunk(files, workers) == chunk


def _reader_pid(_name: str, _extra: None, _read: StoredRead) -> int:
    return os.getpid()


def test_reading_really_happens_in_other_processes(
    journal: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(core.bulk.parallel_read, "PARALLEL_MIN_FILES", 1)
    items = [(f"decision-{n:02d}.json", None) for n in range(3)]
    chunks = read_records(journal, journal / "records", items, _reader_pid, workers=50)
    pids = {outcome.value for chunk in chunks for outcome in chunk}
    assert pids and os.getpid() not in pids
    assert len(pids) <= 3  # never more processes than tasks


@pytest.mark.parametrize(
    ("files", "size", "workers"),
    [(10_000, 625, 2), (100_000, 1000, 2), (3000, 250, 8), (5, 250, 2)],
)
def test_the_last_tasks_are_quarter_sized_so_workers_finish_together(
    files: int, size: int, workers: int
) -> None:
    bounds = core.bulk.parallel_read._task_bounds(files, size, workers)
    assert bounds[0][0] == 0 and bounds[-1][1] == files
    assert all(end == start for (_, end), (start, _) in itertools.pairwise(bounds))
    lengths = [end - start for start, end in bounds]
    assert sum(lengths) == files and min(lengths) >= 1
    tail = lengths[-4 * workers :] if files >= 4 * workers else lengths
    assert max(tail) <= -(-size // 4) and max(lengths) <= size
    assert core.bulk.parallel_read._task_bounds(0, size, workers) == []


def test_a_parallel_index_build_equals_a_sequential_one(
    journal: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sequential = JournalIndex(journal, DecisionStore(journal))
    first = sequential.rebuild()
    expected = sequential.query_ids(IndexFilter(query="tag1"))
    sequential.close()
    monkeypatch.setattr(core.bulk.parallel_read, "PARALLEL_MIN_FILES", 1)
    monkeypatch.setattr(core.bulk.parallel_read, "worker_count", lambda: 2)
    parallel = JournalIndex(journal, DecisionStore(journal))
    second = parallel.rebuild()
    assert (second.added, [Path(i.path).name for i in second.unreadable]) == (
        first.added,
        ["decision-07.json"],
    )
    assert parallel.query_ids(IndexFilter(query="tag1")) == expected
    parallel.close()


def test_a_parallel_profile_rebuild_equals_a_sequential_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = DecisionStore(tmp_path / "journal")
    for number in range(1, 9):
        store.put(decision(number))
    sequential = ProfileStore(store.root, store)
    sequential.rebuild()
    expected = sequential.load()
    (store.root / FACTS_CACHE_FILE).unlink(missing_ok=True)
    monkeypatch.setattr(core.bulk.parallel_read, "PARALLEL_MIN_FILES", 1)
    monkeypatch.setattr(core.bulk.parallel_read, "worker_count", lambda: 2)
    parallel = ProfileStore(store.root, DecisionStore(store.root))
    parallel.rebuild()
    rebuilt = parallel.load()
    assert rebuilt.source_hash == expected.source_hash
    assert [r.model_dump(exclude={"updated_at"}) for r in rebuilt.rules] == [
        r.model_dump(exclude={"updated_at"}) for r in expected.rules
    ]


def test_facts_cross_the_process_boundary(tmp_path: Path) -> None:
    store = DecisionStore(tmp_path / "journal")
    store.put(decision(1))
    [outcome] = next(
        read_records(store.root, store.records_dir, [("decision-1.json", None)], _facts)
    )
    assert outcome.value is not None
    identity, facts = outcome.value
    assert isinstance(facts, RecordFacts) and facts.record_id == "decision-1"
    info = os.lstat(store.records_dir / "decision-1.json")
    assert identity == FileIdentity(
        info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns
    )


def test_the_user_sets_the_number_of_reading_processes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(WORKERS_ENV, raising=False)
    cores = worker_count()
    assert cores >= 1
    monkeypatch.setenv(WORKERS_ENV, "3")
    assert worker_count() == 3
    monkeypatch.setenv(WORKERS_ENV, "0")
    assert worker_count() == 1
    monkeypatch.setenv(WORKERS_ENV, "many")
    assert worker_count() == cores


@pytest.mark.skipif(sys.platform != "linux", reason="workers fork only on Linux")
def test_workers_fork_only_from_a_single_thread() -> None:
    """A thread holding a lock at a fork would leave it locked in the child: spawn then."""
    assert default_start_method() == "fork"
    release = threading.Event()
    thread = threading.Thread(target=release.wait)
    thread.start()
    try:
        assert default_start_method() == "spawn"
    finally:
        release.set()
        thread.join()


def test_the_program_names_the_start_method_of_every_read(
    journal: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The app names spawn once; reads that name none then start workers that way."""
    started: list[str] = []
    real = multiprocessing.get_context

    def recording(method: str | None = None) -> multiprocessing.context.BaseContext:
        started.append(str(method))
        return real(method)

    monkeypatch.setattr(core.bulk.parallel_read.multiprocessing, "get_context", recording)
    monkeypatch.setattr(core.bulk.parallel_read, "PARALLEL_MIN_FILES", 1)
    names = sorted(p.name for p in (journal / "records").iterdir())
    use_start_method("spawn")
    try:
        assert default_start_method() == "spawn"
        spawned = _everything(journal, 2, names)
    finally:
        use_start_method(None)
    assert started == ["spawn"]
    assert spawned == _everything(journal, 1, names)
    with pytest.raises(ValueError, match="start method 'teleport' is not available here"):
        use_start_method("teleport")
