"""Where the journal lives: one private per-user directory outside every repository."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

ENV_HOME = "DECISION_JOURNAL_HOME"
APP_NAME = "decision-journal"


def default_journal_dir() -> Path:
    """platformdirs' per-user data dir: ~/.local/share/decision-journal on Linux,
    ~/Library/Application Support/decision-journal on macOS, %LOCALAPPDATA%\\decision-journal
    on Windows."""
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False, roaming=False))


def resolve_journal_dir(explicit: str | os.PathLike[str] | None = None) -> Path:
    """--journal wins, then DECISION_JOURNAL_HOME, then the platform default."""
    if explicit:
        return Path(os.path.abspath(os.path.expanduser(explicit)))
    env = os.environ.get(ENV_HOME, "").strip()
    if env:
        return Path(os.path.abspath(os.path.expanduser(env)))
    return default_journal_dir()
