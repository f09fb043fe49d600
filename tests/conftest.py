"""Fixtures shared by every test folder; every test runs with a private home.

Why a private home for every test: the app keeps its settings in QSettings (on Linux
`$XDG_CONFIG_HOME/decision-journal/Decision Journal.conf`), its journal under
`$XDG_DATA_HOME`, and the tests start real app, hook and MCP processes. Set in `os.environ`,
the private folders reach those processes too, so no test reads or writes the developer's
own settings or journal.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

# Property tests draw the same examples on every run, so a run in CI is reproducible and a
# failure seen once is seen again (HYPOTHESIS_PROFILE=explore draws new ones, for hunting).
# No deadline: a property test judges what the code does, never how fast it ran on a loaded
# machine (an example over 200 ms on a busy CI core failed as "flaky").
settings.register_profile("repeatable", derandomize=True, deadline=None)
settings.register_profile("explore", derandomize=False, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))

CLIENTS_CACHE_ENV = "DJ_CLIENTS_CACHE"
XDG_HOMES = {
    "XDG_CONFIG_HOME": ".config",
    "XDG_DATA_HOME": ".local/share",
    "XDG_CACHE_HOME": ".cache",
    "XDG_STATE_HOME": ".local/state",
}
"""Each XDG base directory and where the private home keeps it (the XDG defaults)."""

# The real-client tests install pinned npm clients once, into a cache under the real home;
# that cache stays reachable after the home is swapped. Set before any test runs.
os.environ.setdefault(
    CLIENTS_CACHE_ENV, str(Path.home() / ".cache" / "decision-journal-test-clients")
)
# Likewise the pip and uv caches of the tests that install the project with pipx and uv.
PYTHON_TOOLS_CACHE_ENV = "DJ_PYTHON_TOOLS_CACHE"
os.environ.setdefault(
    PYTHON_TOOLS_CACHE_ENV, str(Path.home() / ".cache" / "decision-journal-test-python")
)


@pytest.fixture
def runtime_dir() -> Iterator[Path]:
    """A private XDG_RUNTIME_DIR short enough for a Unix socket path (sun_path is 104 bytes)."""
    path = Path(tempfile.mkdtemp(prefix="dj-"))
    path.chmod(0o700)
    yield path
    shutil.rmtree(path, ignore_errors=True)


_SESSION_ENV: dict[str, str] = {}
"""What `session_home` set; a test's home replaces only the values a fixture has not changed."""


def _home_env(home: Path, runtime: Path) -> dict[str, str]:
    """HOME, the XDG base directories (created) and XDG_RUNTIME_DIR inside home and runtime."""
    env = {"HOME": str(home), "XDG_RUNTIME_DIR": str(runtime)}
    for name, relative in XDG_HOMES.items():
        folder = home / relative
        folder.mkdir(parents=True, exist_ok=True)
        env[name] = str(folder)
    return env


@pytest.fixture(scope="session", autouse=True)
def session_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A private home for what starts before any one test: module and session fixtures that
    start the app or an MCP server run in it.

    The journal's own override (DECISION_JOURNAL_HOME) is removed, so code that opens the
    default journal opens the private home's.
    """
    home = tmp_path_factory.mktemp("session-home")
    runtime = Path(tempfile.mkdtemp(prefix="dj-"))
    runtime.chmod(0o700)
    with pytest.MonkeyPatch.context() as patch:
        _SESSION_ENV.update(_home_env(home, runtime))
        for name, value in _SESSION_ENV.items():
            patch.setenv(name, value)
        patch.delenv("DECISION_JOURNAL_HOME", raising=False)
        yield home
    shutil.rmtree(runtime, ignore_errors=True)


@pytest.fixture(autouse=True)
def private_home(
    tmp_path_factory: pytest.TempPathFactory, runtime_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """This test's own HOME, XDG base directories and XDG_RUNTIME_DIR (`runtime_dir`).

    A value a module or class fixture set (say, the runtime folder of the app it started for
    every test of a module) is kept, so its tests still reach that app.
    """
    home = tmp_path_factory.mktemp("home")
    for name, value in _home_env(home, runtime_dir).items():
        if os.environ.get(name) == _SESSION_ENV.get(name):
            monkeypatch.setenv(name, value)
    monkeypatch.delenv("DECISION_JOURNAL_HOME", raising=False)
    return home
