"""Where the journal lives: one private per-user directory outside every repository."""

from __future__ import annotations

import os
from pathlib import Path

from core.errors import JournalNotAFolder

ENV_HOME = "DECISION_JOURNAL_HOME"
APP_NAME = "decision-journal"


def default_journal_dir() -> Path:
    """platformdirs' per-user data dir: ~/.local/share/decision-journal on Linux,
    ~/Library/Application Support/decision-journal on macOS, %LOCALAPPDATA%\\decision-journal
    on Windows.

    platformdirs loads here: a command given its journal (`--journal`, DECISION_JOURNAL_HOME)
    never needs it, and its import is a noticeable part of a read-only command's start."""
    import platformdirs  # noqa: PLC0415

    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False, roaming=False))


def resolve_journal_dir(explicit: str | os.PathLike[str] | None = None) -> Path:
    """--journal wins, then DECISION_JOURNAL_HOME, then the platform default."""
    if explicit:
        return Path(os.path.abspath(os.path.expanduser(explicit)))
    env = os.environ.get(ENV_HOME, "").strip()
    if env:
        return Path(os.path.abspath(os.path.expanduser(env)))
    return default_journal_dir()


def journal_root_problem(root: Path) -> str | None:
    """Why root cannot hold a journal: it is a file, or a folder above it is; None when it is
    a folder or can become one (the first decision creates it)."""
    if os.path.isdir(root):
        return None
    fix = "point --journal or DECISION_JOURNAL_HOME at a folder; nothing was read or written"
    if os.path.lexists(root):
        return f"the journal {root} is a file, not a folder; {fix}"
    blocker = next((p for p in root.parents if os.path.lexists(p)), None)
    if blocker is not None and not os.path.isdir(blocker):
        return f"the journal {root} lies inside {blocker}, which is a file, not a folder; {fix}"
    return None


def check_journal_root(root: Path) -> None:
    """Raises `JournalNotAFolder` when `journal_root_problem` finds one."""
    problem = journal_root_problem(root)
    if problem is not None:
        raise JournalNotAFolder(problem, path=str(root))
