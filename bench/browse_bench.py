"""Browsing a large journal through the index, next to the naive read-everything baseline.

Usage: python bench/browse_bench.py [--sizes 10000 100000] [--strict-scan-max 10000]
       [--journal DIR]

For each size, on a generated journal (bench/journal_gen.write_journal), in one run:
  floor        read and json.loads every record file (the naive baseline, nothing else)
  strict scan  core.bulk.listing.list_with_issues: the store's strict read of every file, as
               the index's scan fallback runs it (collector paused)
  cold         reconcile with no index file (a full build, like a rebuild from scratch)
  warm         reconcile when nothing changed: a fresh JournalIndex (a cold open: the app or a
               CLI process starting on a journal whose index exists) and a repeat
  first page   query_ids (all matching ids, as a snapshot needs) + rows of the first 100
  text filter  query_ids + rows(100) for several word queries: median and worst
  rebuild      JournalIndex.read_all_files, against 1.5 x floor; `--repeat` runs (default 3), each
               after another floor run, and the medians of both are compared

`--journal DIR` times an existing journal (one generated before, e.g. by bench/journal_gen.py)
instead of generating one per size; its index is deleted and built again.

Targets (what browsing a large journal must feel like): first page <= 300 ms, text filter <=
100 ms, cold open < 2 s, rebuild <= 1.5 x floor. Timings depend on the machine's load; the
floor is measured in the same run so the ratios stay comparable, and the long phases also show
process CPU time, which a busy shared machine inflates far less than wall time."""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.journal_gen import write_journal
from bench.timing import Timing, floor_read_parse, interleaved, median_wall, spread
from core.bulk.listing import list_with_issues
from core.index.index_file import index_path, remove_index_files
from core.index.journal_index import IndexFilter, JournalIndex
from core.record.filters import ListFilter
from core.store.decisions import DecisionStore

QUERIES = ["retry", "retry batch", "sna", "snapshot journal codec", "case 4242", "zzzz"]
SETTLE_SECONDS = 2.2  # files younger than the index's racy window are re-read on purpose


def first_page(index: JournalIndex, flt: IndexFilter) -> tuple[float, int]:
    start = time.perf_counter()
    ids = index.query_ids(flt)
    index.rows(ids[:100])
    return time.perf_counter() - start, len(ids)


def median_of(runs: int, index: JournalIndex, flt: IndexFilter) -> tuple[float, int]:
    results = [first_page(index, flt) for _ in range(runs)]
    return statistics.median(r[0] for r in results), results[0][1]


def database_bytes(root: Path) -> int:
    path = index_path(root)
    return sum(
        os.path.getsize(f"{path}{suffix}")
        for suffix in ("", "-wal")
        if os.path.exists(f"{path}{suffix}")
    )


def bench(size: int, strict_scan: bool, repeat: int, existing: Path | None = None) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = existing or Path(tmp) / "journal"
        if existing is None:
            write_journal(root, size)
            time.sleep(SETTLE_SECONDS)
        else:
            size = len(os.listdir(root / "records"))
        store = DecisionStore(root)
        floor = floor_read_parse(root)
        strict = (
            Timing(lambda: list_with_issues(store, ListFilter(include_deleted=True)))
            if strict_scan
            else None
        )

        remove_index_files(index_path(root))
        index = JournalIndex(root, store)
        cold = Timing(index.read_changed_files)
        index.close()
        restart = JournalIndex(root, store)
        warm_start = Timing(restart.read_changed_files)
        warm_again = Timing(restart.read_changed_files)

        page, total = median_of(5, restart, IndexFilter())
        project = restart.projects()[0].project_id
        scoped, scoped_total = median_of(5, restart, IndexFilter(project_id=project))
        text_times = []
        for query in QUERIES:
            elapsed, matched = median_of(3, restart, IndexFilter(query=query))
            text_times.append((elapsed, matched, query))
        again = interleaved(
            {
                "floor": lambda: floor_read_parse(root),
                "rebuild": lambda: Timing(restart.read_all_files),
            },
            repeat,
        )
        floors, rebuilds = [floor, *again["floor"]], again["rebuild"]
        floor, rebuild = median_wall(floors), median_wall(rebuilds)
        size_mb = database_bytes(root) / 1e6
        restart.close()

    ms = 1000.0
    print(f"\n== {size} records (load average {os.getloadavg()[0]:.1f}) ==")
    print(
        f"floor (read + json.loads every file)   {floor.show()}" + spread([t.wall for t in floors])
    )
    if strict is not None:
        print(f"strict store scan (list_with_issues)   {strict.show(floor)}")
    print(f"cold reconcile (no index, full build)  {cold.show(floor)}")
    print(f"cold open: new JournalIndex reconciles {warm_start.show()}   target 2 s")
    print(f"warm reconcile, same instance          {warm_again.show()}")
    print(f"first page, all ({total} ids)        {page * ms:8.1f} ms   target 300 ms")
    print(f"first page, one project ({scoped_total} ids)  {scoped * ms:8.1f} ms")
    for elapsed, matched, query in text_times:
        print(f"  text {query!r:26} {matched:7} ids  {elapsed * ms:8.1f} ms")
    median = statistics.median(t[0] for t in text_times)
    worst = max(t[0] for t in text_times)
    print(
        f"text filter median / worst             {median * ms:8.1f} / {worst * ms:.1f} ms   "
        "target 100 ms"
    )
    print(
        f"rebuild from scratch                   {rebuild.show(floor)}   target 1.5x floor"
        + spread([t.wall for t in rebuilds])
    )
    print(f"index size on disk                     {size_mb:8.1f} MB")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument(
        "--strict-scan-max",
        type=int,
        default=10_000,
        help="also time the store's strict scan for journals up to this size",
    )
    parser.add_argument(
        "--repeat", type=int, default=3, help="runs of the rebuild (median), each with a floor"
    )
    parser.add_argument("--journal", type=Path, metavar="DIR", help="an existing journal to time")
    args = parser.parse_args()
    if args.journal is not None:
        bench(0, False, max(1, args.repeat), args.journal.resolve())
        return
    for size in args.sizes:
        bench(size, size <= args.strict_scan_max, max(1, args.repeat))


if __name__ == "__main__":
    main()
