"""Every error sync raises names a runbook entry that exists, and each entry is complete."""

from __future__ import annotations

import ast
import builtins
import importlib
import pkgutil
from pathlib import Path

import pytest

import core.sync
from core import errors
from core.errors import InvalidDecision, JournalError, SyncError, SyncGitMissing
from core.messages import runbook
from core.sync.gitrepo import GitFailed, GitRepo

ENTRIES = runbook.entries()
NOT_SHOWN = {("core.sync.schedule", "ValueError")}
"""Programming errors (a bad timing passed in code), never shown to the person."""
AUTH = "sync-auth-failed"
NO_READ = "fatal: Could not read from remote repository.\n"


def _sync_modules() -> list[str]:
    return [f"core.sync.{info.name}" for info in pkgutil.iter_modules(core.sync.__path__)]


def _raised(module_name: str) -> set[str]:
    """Names of the classes a module's `raise X(...)` statements raise."""
    module = importlib.import_module(module_name)
    tree = ast.parse(Path(module.__file__ or "").read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        call = node.exc if isinstance(node, ast.Raise) else None
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name):
            names.add(call.func.id)
    return names


def _subclasses(kind: type) -> list[type]:
    found = []
    for sub in kind.__subclasses__():
        found += [sub, *_subclasses(sub)]
    return found


@pytest.mark.parametrize("module_name", _sync_modules())
def test_every_raise_in_sync_names_an_existing_entry(module_name: str) -> None:
    module = importlib.import_module(module_name)
    for name in sorted(_raised(module_name)):
        if (module_name, name) in NOT_SHOWN:
            continue
        kind = getattr(module, name, None) or getattr(builtins, name)
        assert issubclass(kind, JournalError), f"{module_name} raises {name}, not a JournalError"
        if issubclass(kind, InvalidDecision):
            continue  # input refused: the message names the field and the limit instead
        if kind is GitFailed:
            continue  # its entry depends on git's message: see the test below
        assert kind.runbook_anchor in ENTRIES, (module_name, name, kind.runbook_anchor)


def test_every_sync_error_class_names_an_existing_entry() -> None:
    kinds = _subclasses(SyncError)
    assert len(kinds) >= 8
    for kind in [SyncError, *kinds]:
        assert kind.runbook_anchor in ENTRIES, (kind.__name__, kind.runbook_anchor)


@pytest.mark.parametrize(
    ("stderr", "entry"),
    [
        ("fatal: unable to access 'https://h/': Could not resolve host: h\n", "sync-offline"),
        ("ssh: connect to host h port 22: Connection refused\n", "sync-offline"),
        ("fatal: '/gone.git' does not appear to be a git repository\n", "sync-offline"),
        (f"git@h: Permission denied (publickey).\n{NO_READ}", "sync-auth-failed"),
        ("remote: HTTP Basic: Access denied\nfatal: Authentication failed for 'h'\n", AUTH),
        ("fatal: could not read Username for 'https://h': terminal prompts disabled\n", AUTH),
        (f"Host key verification failed.\n{NO_READ}", AUTH),
        ("fatal: unable to access 'https://h/r.git/': The requested URL returned error: 403", AUTH),
        (f"ERROR: Repository not found.\n{NO_READ}", AUTH),
        (" ! [remote rejected] main -> main (pre-receive hook declined)\n", "sync-remote-refused"),
    ],
)
def test_git_failures_name_the_entry_of_their_cause(stderr: str, entry: str) -> None:
    failure = GitFailed(("fetch", "-q", "origin"), stderr)
    assert failure.runbook_anchor == entry
    assert entry in ENTRIES
    assert failure.unreachable is (entry == "sync-offline")


def test_the_states_the_app_shows_name_existing_entries() -> None:
    for entry in (errors.OFFLINE_ENTRY, errors.CONFLICT_ENTRY, errors.INTERRUPTED_ENTRY):
        assert entry in ENTRIES


def test_each_sync_entry_says_what_you_see_why_and_the_fix() -> None:
    sync_entries = {name: text for name, text in ENTRIES.items() if name.startswith("sync-")}
    assert len(sync_entries) == 15
    for name, text in sync_entries.items():
        for part in ("**You see:**", "**Why:**", "**Fix:**"):
            assert part in text, (name, part)


def test_no_git_on_path_is_its_own_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(SyncGitMissing, match="git is not installed or not on PATH") as caught:
        GitRepo(tmp_path).run("status")
    assert caught.value.runbook_anchor == "sync-git-missing"
