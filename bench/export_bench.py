"""Whole-journal output: the JSON export and full listings, beside reading every record.

Usage: python bench/export_bench.py [--sizes 10000 100000] [--repeat 3] [--compare DIR]
       [--journal DIR]

Each size gets a generated journal (`bench/journal_gen.py`) whose index is built and current,
as on a user's machine after the journal window or `list` ran once. The cases are the CLI as a
user runs it, a fresh process each (start, reconcile and output included):

* floor: a plain loop reading every record file and `json.load`ing it, in this process;
* export --format json -o FILE, and the same to standard output;
* list --json, the whole journal as records;
* list (every decision, the table), and list --query snapshot (a word most records hold).

Each checkout's index is built before the timed runs (its own `list --limit 1`).

With --compare DIR (another checkout, e.g. `git archive main | tar -x -C /tmp/before`), every
CLI case also runs that checkout's code with this virtualenv, labelled "before". The cases take
turns (`bench.timing.interleaved`); each prints its median wall and CPU time and the ratio to the
floor's median of the same run; the other checkout times a copy of the journal whose record
files are hard links, so that each keeps its own index. Output goes to a file or /dev/null; the
file's size is printed.
`--journal DIR` times an existing journal (a large one generated before) instead of generating
one per size.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.journal_gen import write_journal
from bench.start_bench import entry
from bench.timing import Timing, floor_read_parse, interleaved, median_wall, spread
from core.bulk.file_identity import RACY_NS


def cli_case(command: list[str], env: dict[str, str], output: Path | None) -> Callable[[], Timing]:
    """A run of the CLI to its exit, its standard output into `output` (or /dev/null)."""

    def run() -> Timing:
        target = str(output) if output is not None else os.devnull
        with open(target, "wb") as sink:
            return Timing(lambda: subprocess.run(command, env=env, stdout=sink, check=True))

    return run


def cases(
    journal: Path, work: Path, env: dict[str, str], checkout: Path | None, label: str
) -> dict[str, Callable[[], Timing]]:
    cli = [*entry(checkout), "--journal", str(journal)]
    exported = work / f"export{label.replace(' ', '-')}.json"
    return {
        f"export --format json -o FILE{label}": cli_case(
            [*cli, "export", "--format", "json", "-o", str(exported), "--force"], env, None
        ),
        f"export --format json > FILE{label}": cli_case(
            [*cli, "export", "--format", "json"], env, work / f"stdout{label.replace(' ', '-')}"
        ),
        f"list --json{label}": cli_case([*cli, "list", "--json"], env, None),
        f"list (every decision){label}": cli_case([*cli, "list"], env, None),
        f"list --query snapshot{label}": cli_case([*cli, "list", "--query", "snapshot"], env, None),
    }


def bench(size: int, repeat: int, checkout: Path | None, existing: Path | None = None) -> None:
    with tempfile.TemporaryDirectory(prefix="export-bench-") as tmp:
        base = Path(tmp)
        journal = existing or base / "journal"
        if existing is None:
            write_journal(journal, size)
        else:
            size = len(os.listdir(journal / "records"))
        home = base / "home"
        home.mkdir()
        env = {
            "HOME": str(home),
            "PATH": os.environ.get("PATH", ""),
            "XDG_RUNTIME_DIR": str(base / "run"),
        }
        sides = [(journal, None, "")]
        if checkout is not None:
            # Its own copy of the journal (the record files linked, not copied): the two
            # checkouts may keep different index formats, and each would replace the other's.
            # Linking changes the files' ctime, so it comes before either index is built.
            sides.append((base / "journal-before", checkout, " (before)"))
            linked_copy(journal, sides[-1][0])
        time.sleep(RACY_NS / 1e9 + 0.1)  # files written just before a build are read again
        runs: dict[str, Callable[[], Timing]] = {"floor (read + json.load)": floor_journal(journal)}
        for side_journal, side_checkout, label in sides:
            built = [*entry(side_checkout), "--journal", str(side_journal), "list", "--limit", "1"]
            subprocess.run(built, env=env, stdout=subprocess.DEVNULL, check=True)
            runs |= cases(side_journal, base, env, side_checkout, label)
        timings = interleaved(runs, repeat)
        floor = median_wall(timings["floor (read + json.load)"])
        print(f"export: {size:,} records, median of {repeat} runs (cases take turns)")
        for name, runs_of in timings.items():
            median = median_wall(runs_of)
            walls = [t.wall for t in runs_of]
            print(f"  {name:42} {median.show(floor)}{spread(walls)}")
        for path in sorted(base.glob("export*.json")) + sorted(base.glob("stdout*")):
            print(f"  {path.name}: {path.stat().st_size / 1e6:.1f} MB")


def linked_copy(journal: Path, copy: Path) -> None:
    """A journal at `copy` whose record files are hard links to those of `journal`."""
    records = copy / "records"
    records.mkdir(parents=True, mode=0o700)
    copy.chmod(0o700)
    for name in os.listdir(journal / "records"):
        os.link(journal / "records" / name, records / name)


def floor_journal(journal: Path) -> Callable[[], Timing]:
    return lambda: floor_read_parse(journal)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--compare", type=Path, metavar="DIR", help="another checkout to time")
    parser.add_argument("--journal", type=Path, metavar="DIR", help="an existing journal to time")
    args = parser.parse_args()
    if args.journal is not None:
        bench(0, args.repeat, args.compare, args.journal.resolve())
        return
    for size in args.sizes:
        bench(size, args.repeat, args.compare)


if __name__ == "__main__":
    main()
