"""Sync timings at each size, each beside plain git doing the same work in the same run.

Usage: python bench/sync_bench.py [--sizes 1000 10000 100000] [--manifest-syncs N] [--code DIR]
                                  [--journals DIR]

Each size gets a synthetic journal (one in twenty records edited once, so history is there too)
and two machines syncing through a bare repository, encrypted. Beside each figure, plain git
does the same work on the same records/ and history/ files, unencrypted, to another bare
repository: `first push` beside `git init` + `add` + `commit` + `push`; `join` beside
`git clone`; `incremental push (1 edit)` beside copying the edited files in, `add` + `commit`
+ `push`; `incremental pull (1 edit)` beside `git pull --ff-only` in the clone; `no-change
sync` beside `git fetch` + `status`. Targets: an incremental sync of one edit at most 2 s at
1,000 records; a first push at most 3x plain git. `--manifest-syncs N` then makes N syncs that
each name a new history file and times one more join. `--code DIR` measures the sync code of
another checkout (an older commit in a worktree) with this bench, for a before/after in one
run. `--journals DIR` keeps each size's generated journal in DIR and copies it for the next run
(a 100,000-record journal takes minutes to generate). The end prints every size's figures in
one table.
"""

from __future__ import annotations

import argparse
import functools
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

INCREMENTAL_TARGET = 2.0
RACY_WAIT = 2.5
FIRST_PUSH_RATIO = 3.0
FOLDERS = ("records", "history")

CPU: dict[str, float] = {}
"""Figure name → CPU seconds (this process and the gits it ran): beside the wall time, since
a shared machine stretches wall time far more than CPU time."""


def _cpu() -> float:
    own, children = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _timed(action: Callable[[], object], name: str = "") -> float:
    start, cpu = time.perf_counter(), _cpu()
    action()
    if name:
        CPU[name] = _cpu() - cpu
    return time.perf_counter() - start


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def _bare(path: Path) -> str:
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(path)], check=True)
    return f"file://{path}"


_IDENTITY = ("-c", "user.name=b", "-c", "user.email=b@b")


class PlainGit:
    """The same files, unencrypted, through plain git: the baseline of each figure."""

    def __init__(self, journal: Path, work: Path) -> None:
        self.journal = journal
        self.url = _bare(work / "plain.git")
        self.tree = work / "plain"
        self.clone = work / "plain-clone"
        self.tree.mkdir()

    def _copy(self) -> None:
        for folder in FOLDERS:
            shutil.copytree(
                self.journal / folder,
                self.tree / folder,
                ignore=shutil.ignore_patterns("*.lock"),
                dirs_exist_ok=True,
            )

    def first_push(self) -> None:
        self._copy()
        _git(self.tree, "init", "-q", "-b", "main")
        _git(self.tree, "add", "-A")
        _git(self.tree, *_IDENTITY, "commit", "-q", "-m", "all")
        _git(self.tree, "push", "-q", self.url, "main")

    def join(self) -> None:
        subprocess.run(
            ["git", "clone", "-q", self.url, str(self.clone)], check=True, capture_output=True
        )

    def push_edit(self, paths: list[str]) -> None:
        for path in paths:
            target = self.tree / path
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(self.journal / path, target)
        _git(self.tree, "add", "-A")
        _git(self.tree, *_IDENTITY, "commit", "-q", "-m", "edit")
        _git(self.tree, "push", "-q", self.url, "main")

    def pull(self) -> None:
        _git(self.clone, "pull", "-q", "--ff-only")

    def no_change(self) -> None:
        _git(self.tree, "fetch", "-q", self.url)
        _git(self.tree, "status", "--porcelain")


def _journal(size: int, laptop: Path, journals: Path | None) -> list[str]:
    """A synthetic journal of `size` records at `laptop` (one in twenty edited once), copied
    from `journals` when an earlier run left one there; returns the record ids in order."""
    from bench.journal_gen import write_journal  # from the --code checkout
    from core.store.decisions import DecisionStore

    kept = journals / f"journal-{size}" if journals is not None else None
    if kept is not None and (kept / "ids.txt").is_file():
        subprocess.run(["cp", "-a", str(kept / "journal"), str(laptop)], check=True)
        # a file changed shortly before a scan is read again by the next one (the "racy"
        # rule of `core.bulk.file_identity`): wait as long as a journal written earlier would
        time.sleep(RACY_WAIT)
        return (kept / "ids.txt").read_text().split()
    ids = write_journal(laptop, size)
    store = DecisionStore(laptop)
    for record_id in ids[::20]:
        store.revise(record_id, 1, _touch("edited once for history"))
    if kept is not None:
        shutil.rmtree(kept, ignore_errors=True)
        kept.mkdir(parents=True)
        subprocess.run(["cp", "-a", str(laptop), str(kept / "journal")], check=True)
        (kept / "ids.txt").write_text("\n".join(ids) + "\n")
    return ids


def run_size(
    size: int, work: Path, manifest_syncs: int, journals: Path | None = None
) -> list[tuple[str, float, float | None]]:
    """(figure, seconds, plain git's seconds for the same work) for one journal size."""
    from core.store.decisions import DecisionStore
    from core.sync.engine import SyncEngine
    from core.sync.keystore import KeyLocation, load_key

    laptop, desk = work / "laptop", work / "desk"
    ids = _journal(size, laptop, journals)
    store = DecisionStore(laptop)
    url = _bare(work / "remote.git")
    key_file = work / "laptop.key"
    plain = PlainGit(laptop, work)
    figures: list[tuple[str, float, float | None]] = []

    def measure(name: str, ours: Callable[[], object], baseline: Callable[[], object]) -> None:
        base = _timed(baseline)
        figures.append((name, _timed(ours, name), base))
        print(f"  ({size}: {name} {figures[-1][1]:.2f} s, plain git {base:.2f} s)", flush=True)

    measure(
        "first push",
        lambda: SyncEngine(laptop).init(url, encrypt=True, key_file=str(key_file)),
        plain.first_push,
    )
    key = load_key(KeyLocation("file", "", str(key_file)))
    measure("join", lambda: _join(SyncEngine, desk, url, key, work / "desk.key"), plain.join)
    before = set(_history(laptop))
    store.revise(ids[1], store.get(ids[1]).revision, _touch("one more edit"))
    edited = [f"records/{ids[1]}.json", *sorted(set(_history(laptop)) - before)]
    measure(
        "incremental push (1 edit)",
        functools.partial(_sync, SyncEngine, laptop),
        functools.partial(plain.push_edit, edited),
    )
    measure("incremental pull (1 edit)", functools.partial(_sync, SyncEngine, desk), plain.pull)
    measure("no-change sync", functools.partial(_sync, SyncEngine, laptop), plain.no_change)
    assert DecisionStore(desk).get(ids[1]).selection_reason_raw == "one more edit"
    if manifest_syncs:
        for n in range(manifest_syncs):
            target = ids[2 + n % (len(ids) - 2)]  # each sync names a new history file
            store.revise(target, store.get(target).revision, _touch(f"edit {n}"))
            SyncEngine(laptop).sync()
        late = functools.partial(_join, SyncEngine, work / "late", url, key, work / "late.key")
        figures.append((f"join after {manifest_syncs} syncs", _timed(late), None))
    return figures


def _history(root: Path) -> list[str]:
    return [str(p.relative_to(root)) for p in (root / "history").rglob("*") if p.is_file()]


def _touch(reason: str) -> Callable[[Any], None]:
    def mutate(record: Any) -> None:
        record.selection_reason_raw = reason

    return mutate


def _sync(engine: Any, root: Path) -> None:
    engine(root).sync()


def _join(engine: Any, root: Path, url: str, key: Any, key_file: Path) -> None:
    key_file.write_text(key.secret + "\n")
    key_file.chmod(0o600)
    engine(root).join(url, key=key, key_file=str(key_file))


def report(size: int, figures: list[tuple[str, float, float | None]]) -> None:
    print(f"{size} records ({size + size // 20} files in records/ and history/):")
    print(f"  {'figure':<30} {'sync':>9} {'(cpu)':>9} {'plain git':>10} {'ratio':>7}")
    for name, seconds, base in figures:
        cpu = f"{CPU[name]:8.2f}s" if name in CPU else " " * 9
        plain = f"{base:9.2f}s" if base is not None else " " * 10
        ratio = f"{seconds / base:6.1f}x" if base else ""
        print(f"  {name:<30} {seconds:8.2f}s {cpu} {plain} {ratio}")
    found = {name: (seconds, base) for name, seconds, base in figures}
    push, plain_push = found["first push"]
    ratio = push / plain_push if plain_push else 0.0
    print(
        f"  first push / plain git: {ratio:.2f}x (target <= {FIRST_PUSH_RATIO:.0f}x)"
        f" {'ok' if ratio <= FIRST_PUSH_RATIO else 'MISSED'}"
    )
    incremental = found["incremental push (1 edit)"][0]
    verdict = "ok" if incremental <= INCREMENTAL_TARGET else "MISSED"
    print(
        f"  incremental: {incremental:.2f} s (target <= {INCREMENTAL_TARGET:.0f} s at 1,000"
        f" records){f' {verdict}' if size <= 1000 else ''}",
        flush=True,
    )


def summary(results: dict[int, list[tuple[str, float, float | None]]]) -> None:
    """Every size's figures in one table: sync's seconds, plain git's, and their ratio."""
    sizes = sorted(results)
    names = list(dict.fromkeys(name for figures in results.values() for name, _, _ in figures))
    print("all sizes (sync s / plain git s = ratio):")
    print(f"  {'figure':<30}" + "".join(f" {f'{size:,} records':>26}" for size in sizes))
    for name in names:
        cells = []
        for size in sizes:
            found = {n: (s, b) for n, s, b in results[size]}
            if name not in found:
                cells.append(f" {'':>26}")
                continue
            seconds, base = found[name]
            text = f"{seconds:.2f}"
            if base:
                text += f" / {base:.2f} = {seconds / base:.1f}x"
            cells.append(f" {text:>26}")
        print(f"  {name:<30}" + "".join(cells))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--manifest-syncs", type=int, default=0)
    parser.add_argument("--code", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--journals", type=Path, default=None)
    args = parser.parse_args()
    sys.path.insert(0, str(args.code.resolve()))
    print(f"sync code from {args.code}", flush=True)
    results: dict[int, list[tuple[str, float, float | None]]] = {}
    for size in args.sizes:
        with tempfile.TemporaryDirectory(prefix="sync-bench-") as tmp:
            results[size] = run_size(size, Path(tmp), args.manifest_syncs, args.journals)
        report(size, results[size])
    summary(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
