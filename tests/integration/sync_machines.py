"""Two or more "machines" (journals) syncing through a local bare git repository.

Each machine runs the real `decision-journal sync` CLI (in-process, see `Machine.run`) with its
own journal and key file; `assert_kernforge_valid` is the store's strict read of every record
and history chain.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from core.record.filters import ListFilter
from core.record.models import DecisionRecord
from core.store.decisions import DecisionStore
from core.store.record_files import is_record_file_name
from tests.factories import make_record
from tests.integration.cli_runner import SUBPROCESS_ENV, run_main

ROOT = Path(__file__).resolve().parents[2]


def bare_remote(tmp_path: Path, name: str = "remote.git") -> tuple[Path, str]:
    path = tmp_path / name
    subprocess.run(["git", "init", "-q", "--bare", str(path)], check=True)
    return path, f"file://{path}"


def cli_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DECISION_JOURNAL_HOME",)}
    env.pop("DBUS_SESSION_BUS_ADDRESS", None)
    env["PYTHONPATH"] = str(ROOT)
    env.update(extra or {})
    return env


@dataclass
class Machine:
    """One journal with its sync key file beside it (outside the journal)."""

    root: Path
    key_file: Path

    @classmethod
    def make(cls, tmp_path: Path, name: str) -> Machine:
        return cls(tmp_path / name / "journal", tmp_path / name / "sync.key")

    @property
    def store(self) -> DecisionStore:
        return DecisionStore(self.root)

    def run(
        self, *args: str, stdin: str | None = None, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        """The CLI on this machine's journal: in this process (`cli_runner.run_main`), unless
        DJ_CLI_SUBPROCESS=1 or `env` changes the environment (a process's own keyring, ssh or
        git settings take effect at its start)."""
        if env is None and os.environ.get(SUBPROCESS_ENV) != "1":
            return run_main(["--journal", str(self.root), *args], stdin=stdin, env=cli_env())
        return subprocess.run(
            [sys.executable, "-m", "app.cli.main", "--journal", str(self.root), *args],
            cwd=ROOT,
            env=cli_env(env),
            input=stdin,
            capture_output=True,
            text=True,
            timeout=300,
        )

    def ok(self, *args: str, stdin: str | None = None, code: int = 0) -> str:
        result = self.run(*args, stdin=stdin)
        assert result.returncode == code, (result.returncode, result.stdout, result.stderr)
        return result.stdout

    def put(self, record_id: str, problem: str, **fields: object) -> DecisionRecord:
        return self.store.put(make_record(id=record_id, problem=problem, **fields))

    def edit(self, record_id: str, reason: str) -> DecisionRecord:
        store = self.store
        current = store.get(record_id)

        def mutate(record: DecisionRecord) -> None:
            record.selection_reason_raw = reason

        return store.revise(record_id, current.revision, mutate)

    def init(self, url: str) -> str:
        self.key_file.parent.mkdir(parents=True, exist_ok=True)
        return self.ok("sync", "init", "--remote", url, "--key-file", str(self.key_file))

    def join(self, url: str, pairing: str, *, code: int = 0) -> str:
        self.key_file.parent.mkdir(parents=True, exist_ok=True)
        self.key_file.write_text(pairing + "\n")
        self.key_file.chmod(0o600)
        return self.ok("sync", "join", "--remote", url, "--key-file", str(self.key_file), code=code)

    def pairing(self) -> str:
        return self.ok("sync", "export-key").strip()


def assert_kernforge_valid(machine: Machine) -> dict[str, list[int]]:
    """The store's strict read of every record and every history chain; only KernForge's
    files (and our digests and locks) in records/ and history/. Returns id → revisions."""
    store = machine.store
    result = store.list_with_issues()
    assert result.issues == [], result.issues
    for name in os.listdir(machine.root / "records"):
        temp = name.startswith(".") and ".tmp-" in name  # a killed writer's, swept on open
        assert is_record_file_name(name) or name.endswith(".json.lock") or temp, name
    chains = {}
    for record in store.list(ListFilter(include_deleted=True)):
        chains[record.id] = [r.revision for r in store.history(record.id)]
        assert chains[record.id] == list(range(1, record.revision + 1))
    history = machine.root / "history"
    for folder in os.listdir(history) if history.is_dir() else []:
        assert (machine.root / "records" / f"{folder}.json").is_file(), folder
    return chains


def synced_pair(tmp_path: Path) -> tuple[Machine, Machine, Path]:
    """A laptop that ran `sync init` and a desk that joined, each with a decision of its own,
    both synced once more so each holds both; returns them and the bare remote."""
    remote, url = bare_remote(tmp_path)
    laptop, desk = Machine.make(tmp_path, "laptop"), Machine.make(tmp_path, "desk")
    laptop.put("decision-laptop-1", "Pick the cache eviction policy")
    laptop.init(url)
    desk.put("decision-desk-1", "Decide the log format")
    desk.join(url, laptop.pairing())
    laptop.ok("sync", "now")
    desk.ok("sync", "now")
    return laptop, desk, remote


def remote_commits(remote: Path) -> list[list[str]]:
    """Each commit on the remote's branch as its list of parents, newest first."""
    out = subprocess.run(
        ["git", f"--git-dir={remote}", "log", "--format=%P", "main"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return [line.split() for line in out.splitlines()]
