"""The command line a client runs to reach us: `mcp` and the hooks.

User scope writes an absolute command: clients start servers and hooks with a minimal PATH and
their own cwd, so a bare `decision-journal` or a relative path may not resolve. Preference: the
frozen executable, then an installed `decision-journal` script (on PATH, or beside this
interpreter in a virtualenv that is not activated), then this interpreter with
`-m app.cli.main` (plus PYTHONPATH when the package is only importable from its source tree;
Gemini CLI refuses to pass PYTHONPATH, so that last form suits the other clients only).
Project scope writes files the team commits, so they name the bare `decision-journal`, which
resolves on every teammate's machine where it is on PATH (the setup output says so).
"""

from __future__ import annotations

import importlib.util
import os
import shlex
import shutil
import site
import sys
from dataclasses import dataclass, field
from pathlib import Path

EXECUTABLE = "decision-journal"


@dataclass(frozen=True, slots=True)
class Launcher:
    """How to run `decision-journal …`: a program, its leading arguments, extra environment."""

    program: str
    prefix: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)

    def argv(self, journal: str | None, *command: str) -> list[str]:
        """Arguments after the program: the prefix, `--journal DIR` when pinned, the command."""
        pinned = ["--journal", journal] if journal else []
        return [*self.prefix, *pinned, *command]

    def shell(self, journal: str | None, *command: str) -> str:
        """One shell command line (hooks are run by a shell), environment assignments first."""
        assignments = [f"{key}={shlex.quote(value)}" for key, value in sorted(self.env.items())]
        words = [self.program, *self.argv(journal, *command)]
        return " ".join([*assignments, *(shlex.quote(word) for word in words)])


def _source_root() -> Path | None:
    """The directory holding `app/` when it is not installed into site-packages."""
    spec = importlib.util.find_spec("app")
    if spec is None or spec.origin is None:
        return None
    root = Path(spec.origin).resolve().parent.parent
    installed = [Path(p).resolve() for p in [*site.getsitepackages(), site.getusersitepackages()]]
    if any(root == path or path in root.parents for path in installed):
        return None
    return root


def _beside_interpreter() -> str | None:
    """The script installed next to this interpreter (a virtualenv that is not activated)."""
    script = Path(sys.executable).parent / EXECUTABLE
    return str(script) if script.is_file() and os.access(script, os.X_OK) else None


def shared_launcher() -> Launcher:
    """The bare `decision-journal` on PATH: the same text on every machine."""
    return Launcher(EXECUTABLE)


def on_path() -> bool:
    return shutil.which(EXECUTABLE) is not None


def find_launcher() -> Launcher:
    """The absolute command that starts us on this machine (see the module docstring)."""
    if getattr(sys, "frozen", False):
        return Launcher(os.path.abspath(sys.executable))
    script = shutil.which(EXECUTABLE) or _beside_interpreter()
    if script:
        return Launcher(os.path.abspath(script))
    root = _source_root()
    env = {"PYTHONPATH": str(root)} if root is not None else {}
    return Launcher(os.path.abspath(sys.executable), ("-m", "app.cli.main"), env)
