"""The sync key in a real Secret Service (GNOME Keyring under its own D-Bus session), and the
documented error when no keyring backend is usable.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from core.sync.keystore import SERVICE
from tests.integration.sync_machines import ROOT, Machine, bare_remote, cli_env

DRIVER = textwrap.dedent(
    """
    import json, os, subprocess, sys
    import keyring
    subprocess.run(["gnome-keyring-daemon", "--unlock", "--components=secrets"],
                   input=b"test-password", check=True, capture_output=True)
    journal, other, url = sys.argv[1:4]
    def cli(root, *args, stdin=None):
        done = subprocess.run([sys.executable, "-m", "app.cli.main", "--journal", root, *args],
                              input=stdin, capture_output=True, text=True)
        return {"code": done.returncode, "out": done.stdout, "err": done.stderr}
    steps = {"backend": type(keyring.get_keyring()).__module__}
    steps["init"] = cli(journal, "sync", "init", "--remote", url)
    steps["status"] = cli(journal, "sync", "status", "--json")
    steps["export"] = cli(journal, "sync", "export-key")
    config = os.path.join(journal, "sync/.git/decision-journal/config.json")
    journal_id = json.load(open(config))["journal_id"]
    steps["stored"] = keyring.get_password(sys.argv[4], journal_id)
    steps["join"] = cli(other, "sync", "join", "--remote", url, stdin=steps["export"]["out"])
    steps["list"] = cli(other, "list", "--json")
    print(json.dumps(steps))
    """
)


@pytest.mark.skipif(
    shutil.which("gnome-keyring-daemon") is None or shutil.which("dbus-run-session") is None,
    reason="needs Debian's gnome-keyring and dbus-daemon",
)
def test_a_real_secret_service_stores_and_returns_the_key(tmp_path: Path) -> None:
    _, url = bare_remote(tmp_path)
    laptop, desk = Machine.make(tmp_path, "laptop"), Machine.make(tmp_path, "desk")
    laptop.put("decision-keyring-1", "Kept behind the keyring")
    driver = tmp_path / "driver.py"
    driver.write_text(DRIVER)
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    env = cli_env({"XDG_RUNTIME_DIR": str(runtime)})
    env.pop("PYTHON_KEYRING_BACKEND", None)
    done = subprocess.run(
        ["dbus-run-session", "--", sys.executable, str(driver), str(laptop.root), str(desk.root),
         url, SERVICE],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=240,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    steps = json.loads(done.stdout)
    assert steps["backend"] == "keyring.backends.SecretService"
    assert steps["init"]["code"] == 0, steps["init"]
    status = json.loads(steps["status"]["out"])
    assert status["key_storage"].startswith("OS keyring (keyring.backends.SecretService.Keyring)")
    assert steps["export"]["code"] == 0
    assert steps["stored"] == steps["export"]["out"].strip()
    assert steps["stored"].startswith("AGE-SECRET-KEY-1")
    assert steps["join"]["code"] == 0, steps["join"]
    assert "decision-keyring-1" in steps["list"]["out"]


def test_no_usable_keyring_is_a_clear_error_and_writes_nothing(tmp_path: Path) -> None:
    _, url = bare_remote(tmp_path)
    laptop = Machine.make(tmp_path, "laptop")
    laptop.put("decision-nokeyring-1", "No keyring here")
    before = sorted(laptop.root.rglob("*"))
    result = laptop.run(
        "sync", "init", "--remote", url,
        env={"PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"},
    )  # fmt: skip
    assert result.returncode == 2
    assert "no usable OS keyring to keep the sync key" in result.stderr
    assert "Secret Service" in result.stderr and "--key-file PATH" in result.stderr
    assert sorted(laptop.root.rglob("*")) == before
    assert not (laptop.root / "sync").exists()
