"""Two machines syncing over SSH: Debian's `sshd` on 127.0.0.1, started by the test, and the
user's own `ssh` and `git` (a key in `GIT_SSH_COMMAND`, as a user's ssh config would give).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.sync_machines import Machine, assert_kernforge_valid

SSHD = "/usr/sbin/sshd"

pytestmark = pytest.mark.skipif(
    not os.path.exists(SSHD) or shutil.which("ssh") is None,
    reason="needs Debian's openssh-server and openssh-client",
)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def ssh_remote(tmp_path: Path) -> Iterator[tuple[str, dict[str, str], subprocess.Popen[bytes]]]:
    """An sshd on 127.0.0.1 that accepts one generated key; yields the URL and the ssh env."""
    ssh_dir = tmp_path / "ssh"
    ssh_dir.mkdir(mode=0o700)
    for name in ("host", "client"):
        subprocess.run(
            ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(ssh_dir / name)], check=True
        )
    (ssh_dir / "authorized_keys").write_text((ssh_dir / "client.pub").read_text())
    port = _free_port()
    config = ssh_dir / "sshd_config"
    config.write_text(
        f"ListenAddress 127.0.0.1\nPort {port}\nHostKey {ssh_dir / 'host'}\n"
        f"AuthorizedKeysFile {ssh_dir / 'authorized_keys'}\nPidFile {ssh_dir / 'sshd.pid'}\n"
        "PasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\n"
        "StrictModes no\nPermitRootLogin prohibit-password\n"
    )
    Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)
    log = (ssh_dir / "sshd.log").open("wb")
    server = subprocess.Popen([SSHD, "-D", "-e", "-f", str(config)], stderr=log)
    try:
        _wait_for(port)
        remote = tmp_path / "remote.git"
        subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
        user = (
            os.environ.get("USER")
            or subprocess.run(
                ["id", "-un"], capture_output=True, text=True, check=True
            ).stdout.strip()
        )
        command = (
            f"ssh -i {ssh_dir / 'client'} -o IdentitiesOnly=yes -o BatchMode=yes "
            "-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR"
        )
        yield f"ssh://{user}@127.0.0.1:{port}{remote}", {"GIT_SSH_COMMAND": command}, server
    finally:
        if server.poll() is None:
            server.terminate()
            server.wait(timeout=10)
        log.close()


def _wait_for(port: int) -> None:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise AssertionError(f"sshd did not listen on 127.0.0.1:{port}")


def _ok(machine: Machine, env: dict[str, str], *args: str, code: int = 0) -> str:
    result = machine.run(*args, env=env)
    assert result.returncode == code, (result.stdout, result.stderr)
    return result.stdout


def test_two_machines_sync_over_ssh(
    tmp_path: Path, ssh_remote: tuple[str, dict[str, str], subprocess.Popen[bytes]]
) -> None:
    url, env, _ = ssh_remote
    laptop, desk = Machine.make(tmp_path, "laptop"), Machine.make(tmp_path, "desk")
    laptop.put("decision-ssh-1", "Carried over SSH")
    laptop.key_file.parent.mkdir(parents=True, exist_ok=True)
    _ok(laptop, env, "sync", "init", "--remote", url, "--key-file", str(laptop.key_file))
    desk.key_file.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(laptop.key_file, desk.key_file)
    _ok(desk, env, "sync", "join", "--remote", url, "--key-file", str(desk.key_file))
    desk.edit("decision-ssh-1", "edited on the desk")
    _ok(desk, env, "sync", "now")
    _ok(laptop, env, "sync", "now")
    assert laptop.store.get("decision-ssh-1").selection_reason_raw == "edited on the desk"
    assert assert_kernforge_valid(laptop) == assert_kernforge_valid(desk)


def test_an_ssh_server_that_went_away_is_offline(
    tmp_path: Path, ssh_remote: tuple[str, dict[str, str], subprocess.Popen[bytes]]
) -> None:
    url, env, server = ssh_remote
    laptop = Machine.make(tmp_path, "laptop")
    laptop.put("decision-ssh-2", "Then the server went away")
    laptop.key_file.parent.mkdir(parents=True, exist_ok=True)
    _ok(laptop, env, "sync", "init", "--remote", url, "--key-file", str(laptop.key_file))
    server.terminate()
    server.wait(timeout=10)
    laptop.put("decision-ssh-3", "Written while the server is down")
    out = _ok(laptop, env, "sync", "now")
    assert out.startswith("Sync: offline, will retry")
    assert "Connection refused" in out
    assert json.loads(laptop.ok("sync", "status", "--json"))["pending_commits"] == 1
    assert_kernforge_valid(laptop)
