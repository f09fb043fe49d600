"""What a user waits for when a process of ours starts: the MCP server's tool listing, and the
CLI's read-only commands on a small journal, beside the interpreter alone.

Usage: python bench/start_bench.py [--runs 15] [--records 10] [--only mcp|cli] [--compare DIR]

Every case is a fresh process, started as a client starts it (`.venv/bin/decision-journal`):

* python -c pass: the floor every process pays;
* python -c "import mcp": the MCP SDK's import alone, what a server built on it pays first;
* mcp: spawn, `initialize` answered, `notifications/initialized` and `tools/list` sent, the
  tool list answered: the time to the last of these (and to `initialize` in brackets), as a
  client waits for it before the agent can start;
* list, show, status, pending, --version, --help: the CLI on a journal of --records records.

With --compare DIR (another checkout, e.g. `git archive main | tar -x -C /tmp/before`), every
case of ours also runs that checkout's code with this virtualenv (its editable install's finder
set aside, the checkout first on the path), labelled "before", so a change is measured against
its base in the same run.

The cases take turns, so drift on a shared machine reaches all alike; each prints its median
wall time with the range and its median CPU time, and its ratio to the floor's median.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.journal_gen import write_journal

VENV_BIN = ROOT / ".venv" / "bin"
PYTHON = str(VENV_BIN / "python")
ENTRY = str(VENV_BIN / "decision-journal")
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "start-bench", "version": "1"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
TOOLS_LIST = {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}

Run = Callable[[], tuple[float, float, float | None]]
"""A case's run: (wall seconds, CPU seconds, seconds to `initialize` or None)."""


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def process(command: list[str], env: dict[str, str]) -> Run:
    """A run of `command` to its exit."""

    def run() -> tuple[float, float, float | None]:
        cpu, start = _children_cpu(), time.perf_counter()
        subprocess.run(command, env=env, capture_output=True, check=True, stdin=subprocess.DEVNULL)
        return time.perf_counter() - start, _children_cpu() - cpu, None

    return run


def _send(stdin: object, *messages: dict[str, object]) -> None:
    for message in messages:
        stdin.write((json.dumps(message) + "\n").encode())  # type: ignore[attr-defined]
    stdin.flush()  # type: ignore[attr-defined]


def _reply(stdout: object, request_id: int) -> dict[str, object]:
    while True:
        line = stdout.readline()  # type: ignore[attr-defined]
        if not line:
            raise RuntimeError("the MCP server closed its output before answering")
        message = json.loads(line)
        if message.get("id") == request_id:
            return dict(message)


def entry(checkout: Path | None) -> list[str]:
    """The `decision-journal` command: this install's, or `checkout`'s code run as it does."""
    if checkout is None:
        return [ENTRY]
    shim = (
        "import sys\n"
        "sys.meta_path[:] = [f for f in sys.meta_path if 'editable' not in repr(f)]\n"
        f"sys.path.insert(0, {str(checkout.resolve())!r})\n"
        "from app.cli.main import main\n"
        "sys.exit(main())\n"
    )
    return [PYTHON, "-c", shim]


def mcp_listing(journal: Path, env: dict[str, str], command_entry: list[str]) -> Run:
    """Spawn → `tools/list` answered, as a client sees it; the process then ends with stdin."""
    command = [*command_entry, "--journal", str(journal), "mcp"]

    def run() -> tuple[float, float, float | None]:
        cpu, start = _children_cpu(), time.perf_counter()
        server = subprocess.Popen(
            command,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        assert server.stdin is not None and server.stdout is not None
        _send(server.stdin, INITIALIZE)
        _reply(server.stdout, 1)
        initialized = time.perf_counter() - start
        _send(server.stdin, INITIALIZED, TOOLS_LIST)
        listing = _reply(server.stdout, 2)
        wall = time.perf_counter() - start
        result = listing.get("result")
        assert isinstance(result, dict) and len(result["tools"]) == 5, listing
        server.stdin.close()
        server.wait(timeout=30)
        server.stdout.close()
        return wall, _children_cpu() - cpu, initialized

    return run


def ours(
    journal: Path, env: dict[str, str], only: str | None, checkout: Path | None
) -> dict[str, Run]:
    """The cases that run our code: the MCP listing and the CLI's read-only commands."""
    command = entry(checkout)
    cli = [*command, "--journal", str(journal)]
    cases: dict[str, Run] = {}
    if only != "cli":
        cases["mcp: tools/list answered"] = mcp_listing(journal, env, command)
    if only != "mcp":
        cases |= {
            "list --limit 20": process([*cli, "list", "--limit", "20"], env),
            "show ID": process([*cli, "show", first_record_id(journal)], env),
            "status": process([*cli, "status"], env),
            "pending": process([*cli, "pending"], env),
            "--version": process([*command, "--version"], env),
            "--help": process([*command, "--help"], env),
        }
    return cases


def first_record_id(journal: Path) -> str:
    return sorted(journal.glob("records/*.json"))[0].stem


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--records", type=int, default=10)
    parser.add_argument("--only", choices=("mcp", "cli"))
    parser.add_argument("--compare", type=Path, metavar="DIR", help="another checkout to time")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="start-bench-") as tmp:
        base = Path(tmp)
        journal = base / "journal"
        write_journal(journal, args.records)
        home = base / "home"
        home.mkdir()
        env = {
            "HOME": str(home),
            "PATH": os.environ.get("PATH", ""),
            "XDG_RUNTIME_DIR": str(base / "run"),
            "XDG_DATA_HOME": str(home / ".local" / "share"),
            "XDG_CONFIG_HOME": str(home / ".config"),
        }
        cases: dict[str, Run] = {"python -c pass": process([PYTHON, "-c", "pass"], env)}
        if args.only != "cli":  # the MCP server's own floor; seconds a run, and no CLI figure
            cases['python -c "import mcp"'] = process([PYTHON, "-c", "import mcp"], env)
        cases |= ours(journal, env, args.only, None)
        if args.compare is not None:
            before = ours(journal, env, args.only, args.compare)
            cases |= {f"{name} (before)": run for name, run in before.items()}
        for run in cases.values():
            run()  # once untimed: compiled bytecode and the page cache, as on a user's machine
        walls: dict[str, list[float]] = {name: [] for name in cases}
        cpus: dict[str, list[float]] = {name: [] for name in cases}
        firsts: dict[str, list[float]] = {name: [] for name in cases}
        for _ in range(args.runs):
            for name, run in cases.items():
                wall, cpu, first = run()
                walls[name].append(wall)
                cpus[name].append(cpu)
                if first is not None:
                    firsts[name].append(first)
    floor = statistics.median(walls["python -c pass"])
    print(f"start: median of {args.runs} runs (cases take turns), {args.records} records")
    print(f"  {'':37} {'wall':>9}  {'(range)':13} {'cpu':>9}  {'x floor':>7}")
    for name, times in walls.items():
        median = statistics.median(times)
        spread = f"({min(times) * 1000:.0f}-{max(times) * 1000:.0f})"
        initialize = ""
        if firsts[name]:
            initialize = f"  [initialize {statistics.median(firsts[name]) * 1000:.0f} ms]"
        print(
            f"  {name:37} {median * 1000:6.1f} ms  {spread:13} "
            f"{statistics.median(cpus[name]) * 1000:6.1f} ms  {median / floor:6.1f}x{initialize}"
        )


if __name__ == "__main__":
    main()
