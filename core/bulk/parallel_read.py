"""Strictly reading many record files at once, in worker processes when there are enough.

Why: the strict read (schema, normalization, validation) is pure-Python work, several times
the cost of reading and parsing the JSON. A cold build of the index or the profile reads every
record, so it is the one place a large journal makes the user wait; spreading the files over
one process per core divides that wait. Small batches stay in this process, where starting
workers would cost more than it saves.

Each file is read with the store's read contract (`core.bulk.record_read.read_for_build`,
which gives what `read_record_file` gives plus the record's compact bytes), and what the
caller keeps of a record (`make`) is computed in the worker, so only that small product crosses
the process boundary. How worker processes start is the caller's to say: a program that runs
threads or Qt names "spawn" or "forkserver" once for all its reads (`use_start_method`), and a
single call may name its own (`start_method`).
"""

from __future__ import annotations

import gc
import logging
import multiprocessing
import os
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from types import GenericAlias
from typing import Any, Generic, TypeVar

import msgspec

from core.bulk.gc_pause import gc_paused
from core.bulk.record_read import read_for_build
from core.errors import JournalError, NotFound
from core.record.shape import StoredRead
from core.store.decisions import DecisionStore
from core.store.record_files import record_file_names
from core.store.safefs import check_no_links

log = logging.getLogger(__name__)
_PACKER = msgspec.msgpack.Encoder()
A = TypeVar("A")
T = TypeVar("T")

PARALLEL_MIN_FILES = 3000
"""Below this, a worker's start-up (an interpreter importing core) outweighs its share."""
MAX_WORKERS = 8
"""Past this the writer (SQLite, derivation) is the bottleneck, and each worker costs an
interpreter's start-up and memory."""
CHUNK = 250
"""Files per task read in this process, and the fewest per task sent to a worker: large enough
to amortize the hand-over, small enough for steady progress."""
WORKER_CHUNK_MAX = 1000
"""The most files per task sent to a worker. Each task costs the main process a hand-over
(queues, futures, a result to unpickle): on a large journal, 1,000 per task instead of 250 cut
the main process's CPU, which the workers need on a small machine (bench/CHANGES.md)."""
TASKS_PER_WORKER = 8
"""Tasks are kept small enough that each worker gets at least this many, so that workers
finish within about an eighth of their share of each other."""
WORKERS_ENV = "DECISION_JOURNAL_READ_WORKERS"
"""The number of reading processes (1 reads in-process), e.g. to spare a shared machine."""


class ReadFailure(msgspec.Struct, frozen=True):
    """Why a file was not read: the file, the message a user sees, and its runbook entry."""

    path: str
    message: str
    anchor: str
    vanished: bool
    """The file disappeared between listing and reading: not damage, just gone."""


class FileRead(msgspec.Struct, Generic[T], frozen=True):
    """One file: what the caller's `make` kept of its record, or why it could not be read.

    A msgspec Struct: one is built, sent and rebuilt per record of a cold build (as
    MessagePack or pickled, see `read_records`), and a Struct does each in C.
    """

    name: str
    value: T | None
    failure: ReadFailure | None


@dataclass(frozen=True, slots=True)
class _Task(Generic[A, T]):
    root: str
    records_dir: str
    items: Sequence[tuple[str, A]]
    make: Callable[[str, A, StoredRead], T]
    packed: bool = False
    """Send the outcomes back as MessagePack (the caller named a type msgspec decodes)."""


def _anchor_for(error: BaseException) -> str:
    """The runbook entry that explains an unreadable record."""
    if isinstance(error, JournalError) and error.runbook_anchor:
        return error.runbook_anchor
    return "unreadable-record"


def _read_task(task: _Task[A, T]) -> list[FileRead[T]]:
    root = Path(task.root)
    outcomes: list[FileRead[T]] = []
    with gc_paused():
        for name, extra in task.items:
            path = os.path.join(task.records_dir, name)  # text: no Path per file
            try:
                read = read_for_build(root, path, name[: -len(".json")], parents_checked=True)
            except (JournalError, OSError) as exc:
                vanished = isinstance(exc, NotFound | FileNotFoundError)
                failure = ReadFailure(path, str(exc), _anchor_for(exc), vanished)
                outcomes.append(FileRead(name, None, failure))
            else:
                outcomes.append(FileRead(name, task.make(name, extra, read), None))
    return outcomes


def _worker_task(task: _Task[A, T]) -> list[FileRead[T]] | bytes:
    """A task in a reading process: its outcomes as they will cross to the main process."""
    outcomes = _read_task(task)
    return _PACKER.encode(outcomes) if task.packed else outcomes


def _start_worker() -> None:
    """A reading process turns the cycle collector off for its whole (short) life.

    Why: pausing it per chunk, as in-process reads do, still let a collection run between
    chunks over everything the chunk had built; records hold no cycles, and without those
    collections a worker reads faster (see bench/profile_bench.py; the figures are in
    bench/CHANGES.md).
    """
    gc.disable()


class _ProgramChoice:
    """The program's own start method for reads that name none (`use_start_method`)."""

    method: str | None = None


_program = _ProgramChoice()


def use_start_method(method: str | None) -> None:
    """Names how this program's reading processes start, for every read that names none.

    A program that runs threads of its own or a GUI toolkit calls this once at start: the app
    passes "spawn". None goes back to `default_start_method`'s own choice.

    Raises:
        ValueError: `multiprocessing` has no such start method on this platform.
    """
    available = multiprocessing.get_all_start_methods()
    if method is not None and method not in available:
        raise ValueError(
            f"start method {method!r} is not available here; choose one of {', '.join(available)}"
        )
    _program.method = method


def default_start_method() -> str:
    """The start method of reading processes when a call names none.

    The program's choice (`use_start_method`) when it made one; else fork where it is safe,
    else spawn.

    Why fork: a forked worker starts with everything this process imported, at once; a spawned
    one imports the core again first (a noticeable pause before its first file). Forking is
    safe only in a process with a single thread, such as the CLI: a thread holding a lock at
    the fork would leave it locked forever in the child.
    """
    if _program.method is not None:
        return _program.method
    if (
        sys.platform == "linux"
        and "fork" in multiprocessing.get_all_start_methods()
        and threading.active_count() == 1
    ):
        return "fork"
    return "spawn"


def worker_count() -> int:
    """What the user set, else the cores this process may run on; one means reading here."""
    wanted = os.environ.get(WORKERS_ENV, "").strip()
    if wanted.isdigit():
        return max(1, int(wanted))
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _worker_chunk(files: int, workers: int) -> int:
    return max(CHUNK, min(WORKER_CHUNK_MAX, files // (workers * TASKS_PER_WORKER)))


def _task_bounds(files: int, size: int, workers: int) -> list[tuple[int, int]]:
    """(start, end) of each task: `size` files each, except the last `workers` tasks' worth,
    which are cut in four.

    Why: workers finish their last tasks at different times, and until the last one ends the
    other cores idle, about half a task each. Quarter tasks at the end cut that wait to about
    an eighth of a task, for a few more hand-overs.
    """
    if files == 0:
        return []
    tail = min(files, size * workers)
    parts = min(tail, 4 * workers)
    starts = [*range(0, files - tail, size)]
    starts += [files - tail + tail * part // parts for part in range(parts)]
    return list(zip(starts, [*starts[1:], files], strict=True))


def read_records(
    root: Path,
    records_dir: Path,
    items: Sequence[tuple[str, A]],
    make: Callable[[str, A, StoredRead], T],
    *,
    workers: int | None = None,
    value_type: Any = None,
    start_method: str | None = None,
) -> Iterator[list[FileRead[T]]]:
    """Reads `records_dir/name` for each (name, extra) and yields outcomes chunk by chunk, in
    the order of `items`. The caller checks `records_dir` for links first, as the store does.

    `make` must be a module-level function (it is sent to worker processes by name); it gets
    the file name, the item's `extra` and the record as read. `value_type`, the type `make`
    returns when msgspec can decode it, lets outcomes cross from a worker as MessagePack,
    encoded and decoded faster than pickle (bench/CHANGES.md), and most of the saving falls
    in the main process, which the workers share the cores with.
    `start_method` is how worker processes start (as `multiprocessing` names it); None means
    `default_start_method()`.
    """
    count = min(worker_count() if workers is None else workers, MAX_WORKERS)
    in_process = count < 2 or len(items) < PARALLEL_MIN_FILES
    size = CHUNK if in_process else _worker_chunk(len(items), count)
    packed = value_type is not None and not in_process
    if in_process:
        bounds = [(start, start + size) for start in range(0, len(items), size)]
    else:
        bounds = _task_bounds(len(items), size, count)
    tasks = [
        _Task(str(root), str(records_dir), items[start:end], make, packed) for start, end in bounds
    ]
    if in_process:
        for task in tasks:
            yield _read_task(task)
        return
    unpack = _unpacker(value_type)
    context = multiprocessing.get_context(start_method or default_start_method())
    pool = ProcessPoolExecutor(
        min(count, len(tasks)), mp_context=context, initializer=_start_worker
    )
    finished = 0
    try:
        for result in pool.map(_worker_task, tasks):
            yield unpack(result)
            finished += 1
    except (BrokenProcessPool, OSError) as exc:
        # Workers could not start or died (no resources, a host program without a main
        # guard): slower here is still correct, so the build goes on without them.
        log.warning("reading records in this process: worker processes failed: %s", exc)
        for task in tasks[finished:]:
            yield _read_task(task)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _unpacker(value_type: Any) -> Callable[[list[FileRead[T]] | bytes], list[FileRead[T]]]:
    """How the main process turns a worker's result back into outcomes.

    `value_type` is Any: a type form such as a tuple alias is a value here, built into the
    decoder's type (`list[FileRead[value_type]]`) at run time.
    """
    outcomes_type = GenericAlias(list, (GenericAlias(FileRead, (value_type,)),))
    decoder: msgspec.msgpack.Decoder[Any] | None = (
        None if value_type is None else msgspec.msgpack.Decoder(outcomes_type)
    )

    def unpack(result: list[FileRead[T]] | bytes) -> list[FileRead[T]]:
        if isinstance(result, bytes):
            assert decoder is not None
            outcomes: list[FileRead[T]] = decoder.decode(result)
            return outcomes
        return result

    return unpack


def read_every_record(
    store: DecisionStore,
    make: Callable[[str, A, StoredRead], T],
    extra: A,
    *,
    start_method: str | None = None,
) -> Iterator[list[FileRead[T]]]:
    """`read_records` over every record file of `store` (links refused first), each with the
    same `extra`: for whole-journal checks and searches that keep a little of each record."""
    check_no_links(store.root, store.records_dir)
    items = [(name, extra) for name in record_file_names(store.records_dir)]
    return read_records(store.root, store.records_dir, items, make, start_method=start_method)
