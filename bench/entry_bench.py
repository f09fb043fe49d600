"""The cost of one index entry, stage by stage, and of writing entries in a bulk build.

Usage: python bench/entry_bench.py [--journal DIR] [--size 10000] [--runs 3]

Without --journal, a journal of --size records is generated in a temporary folder. Every file
is read first (`read_for_build`, the bulk build's strict read, not measured here); then each
stage of `IndexEntry.of_read` runs over all records, and the entries are written into a fresh
index the way a cold build writes them (`SqliteIndex.bulk`, chunks of `parallel_read.CHUNK`).
Figures are microseconds per record, the minimum of --runs runs: the machine's noise only
ever adds time. The index file's size is printed after the write.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.journal_gen import write_journal
from core.bulk.parallel_read import CHUNK
from core.bulk.record_read import read_for_build
from core.index.entry import IndexEntry, pack_json
from core.index.fulltext import fts_document
from core.index.index_file import index_path, open_index
from core.index.statements import SqliteIndex
from core.record.shape import StoredRead


def per_record(run: Callable[[], object], count: int, runs: int) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best / count * 1e6


def read_all(root: Path) -> list[tuple[str, StoredRead]]:
    records_dir = root / "records"
    names = sorted(n for n in os.listdir(records_dir) if n.endswith(".json"))
    return [(n, read_for_build(root, records_dir / n, n[: -len(".json")])) for n in names]


def write_all(entries: list[IndexEntry]) -> tuple[float, int]:
    """(seconds to write every entry into a new index and checkpoint it, file size)."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        index = SqliteIndex(open_index(root))
        start = time.perf_counter()
        with index.bulk():
            for first in range(0, len(entries), CHUNK):
                index.apply(entries[first : first + CHUNK], [], new=True)
        index.checkpoint()
        seconds = time.perf_counter() - start
        index.close()
        return seconds, os.path.getsize(index_path(root))


def bench(root: Path, runs: int) -> None:
    reads = read_all(root)
    count = len(reads)
    print(f"{count} records from {root}")
    stages: dict[str, Callable[[], object]] = {
        "fts_document": lambda: [fts_document(read.record) for _, read in reads],
        "pack_json": lambda: [pack_json(read.compact) for _, read in reads],
        "sha256 digest": lambda: [hashlib.sha256(read.compact).hexdigest() for _, read in reads],
        "IndexEntry.of_read (all)": lambda: [IndexEntry.of_read(n, "", r) for n, r in reads],
    }
    for label, run in stages.items():
        print(f"{label:28s} {per_record(run, count, runs):8.2f} µs/record")
    entries = [IndexEntry.of_read(name, "", read) for name, read in reads]
    written = [write_all(entries) for _ in range(runs)]
    seconds = min(seconds for seconds, _ in written)
    print(f"{'SQLite bulk write':28s} {seconds / count * 1e6:8.2f} µs/record")
    print(f"{'index file':28s} {written[0][1] / 1e6:8.1f} MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--journal", type=Path)
    parser.add_argument("--size", type=int, default=10000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    gc.disable()  # as a build does (core.bulk.gc_pause): collections would only add noise
    if args.journal is not None:
        bench(args.journal, args.runs)
        return
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "journal"
        write_journal(root, args.size)
        bench(root, args.runs)


if __name__ == "__main__":
    main()
