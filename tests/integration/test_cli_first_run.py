"""A first run on a fresh account: no `~/.local`, no config, nothing created before.

Every command runs as a real process with a new HOME and no XDG variables, as a new user's
login shell has; the journal then lives at the platform default, `~/.local/share/...`.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from core.ipc.client import app_is_running
from core.ipc.runtime_paths import socket_path
from tests.factories import proposal_dict
from tests.integration.cli_runner import ROOT
from tests.integration.desktop import _wait_for  # the one polling helper of these tests

_XDG = ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME")


def _fresh_env(home: Path, runtime: Path, **extra: str) -> dict[str, str]:
    dropped = {"DISPLAY", "WAYLAND_DISPLAY", "DECISION_JOURNAL_HOME", *_XDG}
    env = {k: v for k, v in os.environ.items() if k not in dropped}
    env.update(HOME=str(home), XDG_RUNTIME_DIR=str(runtime), PYTHONPATH=str(ROOT), **extra)
    return env


@pytest.fixture
def home(tmp_path: Path) -> Path:
    folder = tmp_path / "home"
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)
    return folder


def _cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app.cli.main", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        start_new_session=True,  # no controlling terminal: nobody to ask but the app
    )


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _ask(env: dict[str, str], tmp_path: Path, *journal: str) -> dict[str, object]:
    proposal = tmp_path / "p1.json"
    proposal.write_text(json.dumps(proposal_dict()), encoding="utf-8")
    result = _cli(env, *journal, "ask", str(proposal), "--no-app", "--workspace", str(ROOT))
    assert result.returncode == 3, result.stderr
    assert result.stderr == ""
    data: dict[str, object] = json.loads(result.stdout)
    assert data["status"] == "pending"
    return data


def test_ask_creates_the_default_journal_and_its_parents(
    tmp_path: Path, home: Path, runtime_dir: Path
) -> None:
    data = _ask(_fresh_env(home, runtime_dir), tmp_path)
    journal = home / ".local" / "share" / "decision-journal"
    assert (journal / "pending" / f"{data['decision_id']}.json").is_file()
    for folder in (home / ".local", home / ".local" / "share", journal, journal / "pending"):
        assert _mode(folder) == 0o700, folder
    assert _mode(home) == 0o755  # the user's own folder keeps its mode


def test_ask_creates_a_named_journal_and_its_parents(
    tmp_path: Path, home: Path, runtime_dir: Path
) -> None:
    journal = tmp_path / "new" / "a" / "b"
    data = _ask(_fresh_env(home, runtime_dir), tmp_path, "--journal", str(journal))
    assert (journal / "pending" / f"{data['decision_id']}.json").is_file()
    assert all(_mode(f) == 0o700 for f in (tmp_path / "new", tmp_path / "new" / "a", journal))
    assert not (home / ".local").exists()


def test_doctor_on_a_fresh_account_tests_writes_and_creates_nothing(
    home: Path, runtime_dir: Path
) -> None:
    result = _cli(_fresh_env(home, runtime_dir), "doctor")
    assert result.returncode == 0, result.stderr
    assert "Capture can write: a test file was created and removed for pending/, records/ and " in (
        result.stdout
    )
    assert f"Not created yet: pending/, records/ and cache/ (tested in {home};" in result.stdout
    assert os.listdir(home) == []


def test_doctor_reports_a_folder_capture_cannot_write(home: Path, runtime_dir: Path) -> None:
    journal = home / "journal"
    journal.mkdir(mode=0o700)
    (journal / "pending").write_text("")
    (journal / "pending").chmod(0o600)
    result = _cli(_fresh_env(home, runtime_dir), "--journal", str(journal), "doctor")
    assert result.returncode == 6
    assert f"{journal / 'pending'}: capture cannot write here: " in result.stdout
    assert "see: decision-journal help runbook journal-not-writable;" in result.stdout
    assert "Capture cannot save decisions: writing failed for pending/ (see above)." in (
        result.stdout
    )
    report = json.loads(_cli(_fresh_env(home, runtime_dir), "--journal", str(journal), "doctor",
                             "--json").stdout)  # fmt: skip
    assert [p["writable"] for p in report["capture"]] == [False, True, True]


def test_first_start_of_the_app_logs_nothing_alarming(home: Path, runtime_dir: Path) -> None:
    """The app's first start builds its index and profile in a journal that does not exist
    yet; the only line it prints says where it runs. Its settings go to XDG_CONFIG_HOME."""
    config = home / "elsewhere-config"
    env = _fresh_env(home, runtime_dir, QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=str(config))
    journal = home / ".local" / "share" / "decision-journal"
    log_path = runtime_dir / "app.log"
    with open(log_path, "w", encoding="utf-8") as log:
        app = subprocess.Popen(
            [sys.executable, "-m", "app.cli.main", "app"],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            _wait_for(lambda: app_is_running(socket_path(journal)) or app.poll() is not None, 30)
            assert app.poll() is None, log_path.read_text()
            _wait_for((journal / "profiles" / "profile.json").exists, 30)
            _wait_for((journal / "cache" / "index.sqlite3").exists, 30)
            time.sleep(1.0)  # a warning would follow the first rebuild at once
        finally:
            app.terminate()
            app.wait(15)
    assert log_path.read_text().splitlines() == [f"Decision Journal is running for {journal}"]
    assert (config / "decision-journal" / "Decision Journal.conf").is_file()
    assert not (home / ".config").exists()
    assert _mode(home / ".local") == 0o700 and _mode(journal) == 0o700


def test_tests_run_in_a_private_home_that_reaches_qt_settings(private_home: Path) -> None:
    """The autouse fixture: HOME and every XDG folder are the test's own, and a process it
    starts keeps its QSettings there (Qt reads XDG_CONFIG_HOME on Linux)."""
    assert os.environ["HOME"] == str(private_home)
    for name in _XDG:
        assert Path(os.environ[name]).is_relative_to(private_home), name
    assert "DECISION_JOURNAL_HOME" not in os.environ
    code = (
        "from PySide6.QtCore import QSettings; "
        "print(QSettings('decision-journal', 'Decision Journal').fileName())"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    config = Path(os.environ["XDG_CONFIG_HOME"])
    assert result.stdout.strip() == str(config / "decision-journal" / "Decision Journal.conf")
