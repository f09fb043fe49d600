"""Sync timings: first push, join and one-edit incremental syncs, beside a plain `git push`.

Usage: python bench/sync_bench.py [--sizes 1000 10000]
Each size gets a synthetic journal (one in twenty records edited once, so history is there too).
"Plain git" is `git init` + `add` + `commit` + `push` of the same records/ and history/ files,
unencrypted, to another bare repository in the same run. Targets: an incremental sync of one
edit at most 2 s; a first push at most 3x plain git. Then `--manifest-syncs` syncs that each
name a new file (each rewrites the machine's authenticated manifest) are followed by another
join, with the number of manifests the remote holds then.
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

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.journal_gen import write_journal
from core.record.models import DecisionRecord
from core.store.decisions import DecisionStore
from core.sync.crypto import SyncKey
from core.sync.engine import SyncEngine
from core.sync.keystore import KeyLocation, load_key

INCREMENTAL_TARGET = 2.0
FIRST_PUSH_RATIO = 3.0


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
    subprocess.run(["git", "init", "-q", "--bare", str(path)], check=True)
    return f"file://{path}"


def _journal(root: Path, size: int) -> list[str]:
    ids = write_journal(root, size)
    store = DecisionStore(root)
    for record_id in ids[::20]:
        store.revise(record_id, 1, _touch("edited once for history"))
    return ids


def _touch(reason: str) -> Callable[[DecisionRecord], None]:
    def mutate(record: DecisionRecord) -> None:
        record.selection_reason_raw = reason

    return mutate


def plain_git_push(journal: Path, work: Path) -> float:
    """The same files, unencrypted: copy excluded, then init, add, commit, push."""
    url = _bare(work / "plain.git")
    tree = work / "plain"
    tree.mkdir()
    for folder in ("records", "history"):
        shutil.copytree(journal / folder, tree / folder, ignore=shutil.ignore_patterns("*.lock"))

    def push() -> None:
        _git(tree, "init", "-q", "-b", "main")
        _git(tree, "add", "-A")
        _git(tree, "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-q", "-m", "all")
        _git(tree, "push", "-q", url, "main")

    return _timed(push, "plain git push")


def run_size(size: int, work: Path, manifest_syncs: int) -> dict[str, float]:
    laptop, desk = work / "laptop", work / "desk"
    ids = _journal(laptop, size)
    url = _bare(work / "remote.git")
    key_file = work / "laptop.key"
    figures = {"plain git push": plain_git_push(laptop, work)}
    figures["first push"] = _timed(
        lambda: SyncEngine(laptop).init(url, encrypt=True, key_file=str(key_file)), "first push"
    )
    key = load_key(KeyLocation("file", "", str(key_file)))
    figures["join"] = _timed(lambda: _join(desk, url, key, work / "desk.key"), "join")
    store = DecisionStore(laptop)
    store.revise(ids[1], store.get(ids[1]).revision, _touch("one more edit"))
    for name, machine in (
        ("incremental push (1 edit)", laptop),
        ("incremental pull (1 edit)", desk),
        ("no-change sync", laptop),
    ):
        figures[name] = _timed(functools.partial(_sync, machine), name)
    assert DecisionStore(desk).get(ids[1]).selection_reason_raw == "one more edit"
    for n in range(manifest_syncs):
        target = ids[2 + n % (len(ids) - 2)]  # each sync names a new history file
        store.revise(target, store.get(target).revision, _touch(f"edit {n}"))
        SyncEngine(laptop).sync()
    held = len(list((SyncEngine(laptop).files.working_copy / "m").iterdir()))
    figures[f"join after {manifest_syncs} syncs ({held} manifests)"] = _timed(
        lambda: _join(work / "late", url, key, work / "late.key")
    )
    return figures


def _sync(root: Path) -> None:
    SyncEngine(root).sync()


def _join(root: Path, url: str, key: SyncKey, key_file: Path) -> None:
    key_file.write_text(key.secret + "\n")
    key_file.chmod(0o600)
    SyncEngine(root).join(url, key=key, key_file=str(key_file))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--manifest-syncs", type=int, default=72)
    args = parser.parse_args()
    for size in args.sizes:
        with tempfile.TemporaryDirectory(prefix="sync-bench-") as tmp:
            figures = run_size(size, Path(tmp), args.manifest_syncs)
        plain = figures["plain git push"]
        print(f"{size} records ({size + size // 20} files in records/ and history/):")
        for name, seconds in figures.items():
            cpu = f"  (cpu {CPU[name]:5.2f} s)" if name in CPU else ""
            print(f"  {name:<36} {seconds:7.2f} s{cpu}")
        ratio = figures["first push"] / plain
        incremental = figures["incremental push (1 edit)"]
        print(
            f"  first push / plain git: {ratio:.2f}x (target <= {FIRST_PUSH_RATIO:.0f}x)"
            f" {'ok' if ratio <= FIRST_PUSH_RATIO else 'MISSED'}"
        )
        print(
            f"  incremental: {incremental:.2f} s (target <= {INCREMENTAL_TARGET:.0f} s)"
            f" {'ok' if incremental <= INCREMENTAL_TARGET else 'MISSED'}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
