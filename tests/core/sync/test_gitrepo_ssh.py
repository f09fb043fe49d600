"""The ssh git runs for sync: bounded connects by default, the user's own ssh whenever they set one.

A "slow SSH connect" is a real TCP listener on 127.0.0.1 that accepts and never sends the SSH
banner: without a connect timeout ssh waits for it until the system gives up. The user's
choices are real git configuration (their global config, the working copy's, `-c` through the
environment) and real environment variables; a recording script stands in for their ssh, so
the tests see which command git actually ran.
"""

from __future__ import annotations

import shutil
import socket
import stat
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.sync import gitrepo
from core.sync.gitrepo import GitFailed, GitRepo, default_ssh_command


@pytest.fixture
def silent_host() -> Iterator[int]:
    """A port that accepts connections and never answers: an SSH server too slow to greet."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(4)
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                accepted.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    stop.set()
    thread.join()
    for connection in accepted:
        connection.close()
    server.close()


@pytest.fixture
def recording_ssh(tmp_path: Path) -> tuple[Path, Path]:
    """(a stand-in ssh that writes its arguments to a file and fails, that file)."""
    log = tmp_path / "ssh-called.txt"
    script = tmp_path / "my-ssh"
    script.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > {log}\nexit 255\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script, log


SCP_LIKE = "nobody@127.0.0.1:journal.git"
"""A remote git reaches through ssh, written without a port (so any ssh variant takes it)."""


def _repo(tmp_path: Path) -> GitRepo:
    path = tmp_path / "work"
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    return GitRepo(path)


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home of this test's own with no ssh chosen: no git config but what a test writes."""
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(folder / ".config"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for name in (*gitrepo.USER_SSH_VARIABLES, "GIT_CONFIG_GLOBAL", "GIT_CONFIG_COUNT"):
        monkeypatch.delenv(name, raising=False)
    return folder


def test_the_default_bounds_the_connect_and_asks_for_nothing() -> None:
    batch = default_ssh_command(interactive=False).split()
    assert batch[0] == "ssh"
    options = [batch[n + 1] for n, word in enumerate(batch) if word == "-o"]
    assert options == [
        "BatchMode=yes",
        f"ConnectTimeout={gitrepo.SSH_CONNECT_TIMEOUT}",
        f"ServerAliveInterval={gitrepo.SSH_ALIVE_INTERVAL}",
        f"ServerAliveCountMax={gitrepo.SSH_ALIVE_COUNT}",
    ]
    assert "BatchMode=yes" not in default_ssh_command(interactive=True)
    assert "ConnectTimeout=" in default_ssh_command(interactive=True)


def test_a_host_that_never_greets_is_offline_within_the_connect_timeout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, silent_host: int
) -> None:
    monkeypatch.setattr(gitrepo, "SSH_CONNECT_TIMEOUT", 1)
    repo = _repo(tmp_path)
    started = time.monotonic()
    with pytest.raises(GitFailed) as failed:
        repo.run("ls-remote", f"ssh://nobody@127.0.0.1:{silent_host}/journal.git")
    assert time.monotonic() - started < 10
    assert failed.value.unreachable, failed.value.stderr
    assert "timed out" in failed.value.stderr.lower()


@pytest.mark.parametrize("where", ["global", "working-copy", "environment -c"])
def test_core_ssh_command_wins_over_the_default(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    recording_ssh: tuple[Path, Path],
    home: Path,
    where: str,
) -> None:
    script, log = recording_ssh
    repo = _repo(tmp_path)
    if where == "global":
        (home / ".gitconfig").write_text(f"[core]\n\tsshCommand = {script} -o Mine=yes\n")
    elif where == "working-copy":
        subprocess.run(
            ["git", "-C", str(repo.path), "config", "core.sshCommand", f"{script} -o Mine=yes"],
            check=True,
        )
    else:
        monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
        monkeypatch.setenv("GIT_CONFIG_KEY_0", "core.sshCommand")
        monkeypatch.setenv("GIT_CONFIG_VALUE_0", f"{script} -o Mine=yes")
    assert repo.user_chose_ssh()
    assert "GIT_SSH_COMMAND" not in repo._env()
    repo.run("ls-remote", SCP_LIKE, check=False)
    called = log.read_text().split()
    assert "Mine=yes" in called
    assert not any(word.startswith("ConnectTimeout") for word in called)


@pytest.mark.parametrize("variable", gitrepo.USER_SSH_VARIABLES)
def test_the_users_ssh_variables_are_kept(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    recording_ssh: tuple[Path, Path],
    variable: str,
) -> None:
    script, log = recording_ssh
    monkeypatch.setenv(variable, str(script))
    repo = _repo(tmp_path)
    env = repo._env()
    assert env.get(variable) == str(script)
    if variable == "GIT_SSH":
        assert "GIT_SSH_COMMAND" not in env  # it would rank above the user's GIT_SSH
    repo.run("ls-remote", SCP_LIKE, check=False)
    assert "127.0.0.1" in log.read_text()
    assert "ConnectTimeout" not in log.read_text()


def test_without_a_users_choice_git_runs_the_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = GitRepo(tmp_path / "not-created-yet")
    assert not repo.user_chose_ssh()
    assert repo._env()["GIT_SSH_COMMAND"] == default_ssh_command(interactive=False)
    interactive = GitRepo(tmp_path / "not-created-yet", interactive=True)
    assert interactive._env()["GIT_SSH_COMMAND"] == default_ssh_command(interactive=True)
    assert "GIT_TERMINAL_PROMPT" not in interactive._env()


def _effective(config: Path, host: str) -> dict[str, str]:
    """What ssh itself makes of a config for one host (`ssh -G`: no connection is made)."""
    out = subprocess.run(
        ["ssh", "-G", "-F", str(config), host], capture_output=True, text=True, check=True
    ).stdout
    return dict(line.split(" ", 1) for line in out.splitlines() if " " in line)


@pytest.mark.skipif(shutil.which("ssh") is None, reason="needs OpenSSH's ssh for `ssh -G`")
def test_the_users_own_ssh_config_wins_over_our_defaults(tmp_path: Path, home: Path) -> None:
    (home / ".ssh").mkdir(mode=0o700)
    (home / ".ssh" / "config").write_text(
        "Host work\n    ConnectTimeout 30\n    ServerAliveInterval 60\n"
    )
    repo = _repo(tmp_path)
    command = repo._env()["GIT_SSH_COMMAND"]
    config = repo.path / ".git" / "ssh-defaults"
    assert command == f"ssh -F {config}"
    work = _effective(config, "work")
    assert (work["connecttimeout"], work["serveraliveinterval"]) == ("30", "60")
    assert (work["batchmode"], work["serveralivecountmax"]) == ("yes", "2")
    elsewhere = _effective(config, "elsewhere")
    assert elsewhere["connecttimeout"] == str(gitrepo.SSH_CONNECT_TIMEOUT)
    assert elsewhere["serveraliveinterval"] == str(gitrepo.SSH_ALIVE_INTERVAL)


@pytest.mark.skipif(shutil.which("ssh") is None, reason="needs OpenSSH's ssh for `ssh -G`")
def test_our_defaults_apply_when_the_user_has_no_ssh_config(tmp_path: Path) -> None:
    repo = GitRepo(_repo(tmp_path).path, interactive=True)
    repo._env()
    effective = _effective(repo.path / ".git" / "ssh-defaults-interactive", "host")
    assert effective["connecttimeout"] == str(gitrepo.SSH_CONNECT_TIMEOUT)
    assert effective["batchmode"] == "no"  # a terminal can answer a prompt
