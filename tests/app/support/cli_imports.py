"""Which modules one CLI run loads, seen from a fresh interpreter: start-up cost is decided by
what a command imports, and a module loaded in this test process would hide it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def modules_loaded_by(argv: list[str], stdin: str = "") -> tuple[int, set[str]]:
    """The exit code of `decision-journal argv` run in a new process, and its loaded modules."""
    code, modules, _printed = run_and_modules(argv, stdin)
    return code, modules


def run_and_modules(argv: list[str], stdin: str = "") -> tuple[int, set[str], str]:
    """`modules_loaded_by`, and what the command printed."""
    script = (
        "import io, json, sys\n"
        f"sys.stdin = io.StringIO({stdin!r})\n"
        "from app.cli.main import main\n"
        "try:\n"
        f"    code = main({argv!r})\n"
        "except SystemExit as exc:  # --help and usage errors\n"
        "    code = exc.code\n"
        "print(json.dumps([code, sorted(sys.modules)]))\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True
    )
    *printed, last = run.stdout.strip().splitlines()
    code, modules = json.loads(last)
    return code, set(modules), "\n".join(printed)
