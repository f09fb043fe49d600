"""What the pre-tool hook costs an agent per tool call, beside an empty Python start.

Usage: python bench/hook_bench.py [--runs 30] [--client claude-code|codex|gemini|copilot|cursor|
qwen|opencode]

Each case runs the real hook process as the client does (`.venv/bin/decision-journal hook
<client>` with that client's pre-tool event for an edit or shell tool on stdin) in a fresh
temporary journal and HOME:

* python -c pass: the interpreter alone, the floor every hook pays;
* nothing pending: no pending directory at all;
* pending elsewhere: decisions pending for another session in another workspace (the case
  that loaded the whole journal before the pending index, about a quarter of a second);
* pending for the caller: a decision pending in the caller's workspace, so the hook prints
  its deny answer (the deny path: from the pending index, without the journal's code).

The cases take turns, so drift on a shared machine reaches all alike; each prints its median
wall time with the range, and its median CPU time (user and system), which a busy machine
inflates far less than the wall time.
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

from core.capture.machine import CaptureService, NeedsHuman
from core.capture.pending import PendingStore
from core.store.decisions import DecisionStore
from tests.factories import proposal_dict

VENV_BIN = ROOT / ".venv" / "bin"
EVENT_SESSION = "bench-session"


def pend(journal: Path, workspace: Path, session: str, problem: str) -> str:
    """One decision pending in `workspace` for `session`, as the MCP server leaves it."""
    service = CaptureService(DecisionStore(journal), PendingStore(journal))
    outcome = service.begin(
        proposal_dict(problem=problem), workspace=str(workspace), session_id=session
    )
    assert isinstance(outcome, NeedsHuman)
    return outcome.ticket.decision_id


def edit_event(workspace: Path, client: str) -> str:
    """An edit (or shell) call as `client` sends it to its hook."""
    if client == "copilot":
        args = {"path": str(workspace / "a.py"), "file_text": "a"}
        event = {"sessionId": EVENT_SESSION, "timestamp": 0, "cwd": str(workspace)}
        return json.dumps(event | {"toolName": "create", "toolArgs": args})
    if client == "cursor":
        event = {"hook_event_name": "beforeShellExecution", "conversation_id": EVENT_SESSION}
        return json.dumps(event | {"workspace_roots": [str(workspace)], "command": "touch a"})
    shapes = {
        "gemini": ("write_file", "BeforeTool"),
        "qwen": ("write_file", "PreToolUse"),
        "opencode": ("write", "tool.execute.before"),
    }
    tool, name = shapes.get(client, ("Edit", "PreToolUse"))
    return json.dumps(
        {
            "session_id": EVENT_SESSION,
            "cwd": str(workspace),
            "hook_event_name": name,
            "tool_name": tool,
            "tool_input": {"file_path": str(workspace / "a.py"), "old_string": "a"},
            "tool_use_id": "toolu_bench",
        }
    )


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(command: list[str], stdin: str, env: dict[str, str]) -> Callable[[], tuple[float, float]]:
    """A run of `command` returning its (wall, CPU) seconds; CPU is steadier on a busy machine,
    where a process waits for a core as long as it runs."""

    def run() -> tuple[float, float]:
        cpu, start = _children_cpu(), time.perf_counter()
        subprocess.run(command, input=stdin, env=env, capture_output=True, text=True, check=True)
        return time.perf_counter() - start, _children_cpu() - cpu

    return run


def hook_case(base: Path, name: str, client: str) -> tuple[list[str], str, dict[str, str], Path]:
    home = base / name / "home"
    workspace = base / name / "repo"
    journal = base / name / "journal"
    for path in (home, workspace):
        path.mkdir(parents=True)
    env = {
        "HOME": str(home),
        "PATH": os.environ.get("PATH", ""),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_RUNTIME_DIR": str(home / "run"),
    }
    command = [str(VENV_BIN / "decision-journal"), "--journal", str(journal), "hook", client]
    return command, edit_event(workspace, client), env, workspace


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=30)
    clients = ("claude-code", "codex", "gemini", "copilot", "cursor", "qwen", "opencode")
    parser.add_argument("--client", default="claude-code", choices=clients)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="hook-bench-") as tmp:
        base = Path(tmp)
        cases: dict[str, Callable[[], tuple[float, float]]] = {
            "python -c pass": timed([str(VENV_BIN / "python"), "-c", "pass"], "", dict(os.environ))
        }
        expected: dict[str, str] = {}
        for name in ("nothing pending", "pending elsewhere", "pending for the caller"):
            command, stdin, env, workspace = hook_case(base, name.replace(" ", "-"), args.client)
            journal = Path(command[2])
            if name == "pending elsewhere":
                other = base / "other-project"
                other.mkdir(exist_ok=True)
                pend(journal, other, "another-session", "Pick the queue library")
                pend(journal, other, "a-third-session", "Pick the cache invalidation strategy")
            elif name == "pending for the caller":
                pend(journal, workspace, "mcp-session", "Pick the storage layout")
            first = subprocess.run(
                command, input=stdin, env=env, capture_output=True, text=True, check=False
            )
            expected[name] = "deny" if '"deny"' in first.stdout else "silent"
            cases[name] = timed(command, stdin, env)
        walls: dict[str, list[float]] = {name: [] for name in cases}
        cpus: dict[str, list[float]] = {name: [] for name in cases}
        for _ in range(args.runs):
            for name, run in cases.items():
                wall, cpu = run()
                walls[name].append(wall)
                cpus[name].append(cpu)
    print(f"hook {args.client}: median per call over {args.runs} runs (cases take turns)")
    print(f"  {'':24} {'wall':>9}  {'(range)':17} {'cpu':>9}")
    for name, times in walls.items():
        answer = f"  [{expected[name]}]" if name in expected else ""
        spread = f"({min(times) * 1000:.0f}-{max(times) * 1000:.0f})"
        print(
            f"  {name:24} {statistics.median(times) * 1000:6.1f} ms  {spread:17}"
            f" {statistics.median(cpus[name]) * 1000:6.1f} ms{answer}"
        )


if __name__ == "__main__":
    main()
