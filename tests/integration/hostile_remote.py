"""An attacker with write access to the remote and without the sync key: plain `git` and `age`.

`Attacker` clones the bare remote with the user's git, changes its tree as a compromised host,
a shared account or a NAS someone else writes to could, and pushes (forced when asked). What it
encrypts it encrypts with the `age` CLI to the recipient the remote's marker publishes, which is
all anyone without the key can do. Two honest machines are set up in-process for speed.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path

from core.sync.authenticity import MARKER
from core.sync.engine import SyncEngine
from core.sync.keystore import KeyLocation, load_key
from core.sync.report import SyncReport
from tests.integration.sync_machines import Machine, bare_remote

GIT_ID = ("-c", "user.name=mallory", "-c", "user.email=mallory@example.invalid")


def git(cwd: Path, *args: str) -> str:
    out = subprocess.run(
        ["git", *GIT_ID, *args], cwd=cwd, capture_output=True, text=True, check=True
    )
    return out.stdout.strip()


@dataclass
class Attacker:
    """A clone of the remote in `work`, pushed back with `push`."""

    remote: Path
    work: Path

    @classmethod
    def of(cls, remote: Path, tmp_path: Path) -> Attacker:
        work = tmp_path / "mallory"
        subprocess.run(
            ["git", "clone", "-q", "-b", "main", str(remote), str(work)],
            check=True,
            capture_output=True,
        )
        return cls(remote, work)

    def pull(self) -> None:
        git(self.work, "fetch", "-q", "origin")
        git(self.work, "reset", "-q", "--hard", "origin/main")

    @property
    def recipient(self) -> str:
        return str(json.loads((self.work / MARKER).read_text())["recipient"])

    def encrypt(self, plain: bytes, recipient: str | None = None) -> bytes:
        """What anyone can make: an age file to the recipient the remote publishes."""
        return subprocess.run(
            ["age", "-r", recipient or self.recipient],
            input=plain,
            capture_output=True,
            check=True,
        ).stdout

    def write(self, name: str, data: bytes) -> None:
        target = self.work / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)

    def commit(self, message: str = "sync") -> str:
        git(self.work, "add", "-A", ".")
        git(self.work, "commit", "-q", "-m", message)
        return git(self.work, "rev-parse", "HEAD")

    def push(self, *, force: bool = False) -> None:
        git(self.work, "push", "-q", *(["--force"] if force else []), "origin", "HEAD:main")

    def names(self) -> list[str]:
        return git(self.work, "ls-files").split()

    def commits(self) -> list[str]:
        return git(self.work, "rev-list", "HEAD").split()


def remote_tree(remote: Path) -> dict[str, str]:
    """Name → blob id of the remote branch's tree."""
    out = subprocess.run(
        ["git", f"--git-dir={remote}", "ls-tree", "-r", "main"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return {line.split("\t", 1)[1]: line.split()[2] for line in out.splitlines()}


def engine_sync(machine: Machine) -> SyncReport:
    return SyncEngine(machine.root).sync()


def honest_pair(tmp_path: Path) -> tuple[Machine, Machine, Path]:
    """A laptop that set up sync and a desk that joined, in-process, each with one decision,
    both synced so each holds both; returns them and the bare remote."""
    remote, url = bare_remote(tmp_path)
    laptop, desk = Machine.make(tmp_path, "laptop"), Machine.make(tmp_path, "desk")
    laptop.put("decision-laptop-1", "Pick the cache eviction policy")
    laptop.key_file.parent.mkdir(parents=True, exist_ok=True)
    SyncEngine(laptop.root).init(url, encrypt=True, key_file=str(laptop.key_file))
    desk.put("decision-desk-1", "Decide the log format")
    desk.key_file.parent.mkdir(parents=True, exist_ok=True)
    desk.key_file.write_text(laptop.key_file.read_text())
    desk.key_file.chmod(0o600)
    key = load_key(KeyLocation("file", "", str(desk.key_file)))
    SyncEngine(desk.root).join(url, key=key, key_file=str(desk.key_file))
    engine_sync(laptop)
    engine_sync(desk)
    return laptop, desk, remote


def blob_name(machine: Machine, path: str) -> str:
    """The remote name of a journal path (the attacker sees names, not which is which; the
    test picks the one that matters)."""
    return SyncEngine(machine.root).codec().name(path)
