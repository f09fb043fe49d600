"""Fixtures for tests of the frozen build: where it is, and a private home for each run.

These tests run the PyInstaller bundle, not the source tree, so `make package` builds it first
and sets DECISION_JOURNAL_FROZEN. Run alone, they skip when no bundle has been built.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FROZEN_ENV = "DECISION_JOURNAL_FROZEN"
APP_START_TIMEOUT = 20.0
DEFAULT_BUNDLE = ROOT / "dist" / "decision-journal"

# Every stderr line the frozen app and CLI may print; anything else fails the smoke test.
STDERR_ALLOWED = (
    # Qt's offscreen platform cannot size windows from hints; harmless and documented.
    re.compile(r"This plugin does not support propagateSizeHints\(\)"),
    # Offscreen has no tray: QSystemTrayIcon's internal connect to a missing signal.
    re.compile(r"QObject::connect.*systemTrayWindowChanged"),
    # The start-up probe, when DECISION_JOURNAL_STARTUP_PROBE is set.
    re.compile(r"^tray-visible \d+$"),
)


def project_version() -> str:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return str(data["project"]["version"])


def unexpected_stderr(text: str) -> list[str]:
    """The stderr lines no allow-list entry explains."""
    return [
        line
        for line in text.splitlines()
        if line.strip() and not any(pattern.search(line) for pattern in STDERR_ALLOWED)
    ]


@pytest.fixture(scope="session")
def bundle() -> Path:
    """The one-folder bundle; fails when `make package` promised one and it is missing."""
    configured = os.environ.get(FROZEN_ENV)
    path = (Path(configured).parent if configured else DEFAULT_BUNDLE).resolve()
    if not (path / "decision-journal").is_file():
        if configured:
            pytest.fail(f"{FROZEN_ENV}={configured} does not exist")
        pytest.skip("no frozen build in dist/: run `make package`")
    return path


@pytest.fixture(scope="session")
def frozen(bundle: Path) -> Path:
    return bundle / "decision-journal"


@pytest.fixture
def home() -> Iterator[Path]:
    """A short private directory: the socket path must stay below the 104-byte sun_path."""
    path = Path(tempfile.mkdtemp(prefix="dj-", dir="/tmp"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def frozen_env(home: Path) -> dict[str, str]:
    """The environment of a user with a fresh home, no display and no session bus."""
    runtime = home / "rt"
    runtime.mkdir(mode=0o700)
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DECISION_JOURNAL_", "QT_", "XDG_", "_PYI_", "LD_LIBRARY_PATH"))
        and key not in ("DISPLAY", "WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS")
    }
    env.update(
        HOME=str(home),
        XDG_RUNTIME_DIR=str(runtime),
        XDG_CONFIG_HOME=str(home / "config"),
        XDG_DATA_HOME=str(home / "data"),
        XDG_CACHE_HOME=str(home / "cache"),
    )
    return env


def run(
    frozen: Path, journal: Path, *args: str, env: dict[str, str], stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(frozen), "--journal", str(journal), *args],
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def start_app(frozen: Path, journal: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [str(frozen), "--journal", str(journal), "app"],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_running(frozen: Path, journal: Path, env: dict[str, str]) -> dict[str, object]:
    deadline = time.monotonic() + APP_START_TIMEOUT
    while time.monotonic() < deadline:
        result = run(frozen, journal, "status", "--json", env=env)
        assert result.returncode == 0, result.stderr
        status: dict[str, object] = json.loads(result.stdout)
        if status["app_running"]:
            assert not unexpected_stderr(result.stderr)
            return status
        time.sleep(0.1)
    raise AssertionError(f"the app did not answer on its socket in {APP_START_TIMEOUT} s")


def stop_app(process: subprocess.Popen[str], timeout: float = 10.0) -> tuple[int | None, str]:
    """SIGTERM, then the exit code and stderr; a process that ignores it is killed (None)."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
    try:
        _, err = process.communicate(timeout=timeout)
        return process.returncode, err
    except subprocess.TimeoutExpired:
        process.kill()
        _, err = process.communicate()
        return None, err


def source_copy(target: Path) -> Path:
    """The tracked files of the working tree, so building leaves no `build/` in it."""
    names = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True, check=True
    ).stdout.split(b"\0")
    for name in filter(None, names):
        source = ROOT / name.decode()
        if source.is_file():
            (target / name.decode()).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name.decode())
    return target
