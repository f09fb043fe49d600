"""Which commits a merge may build on: none that holds an object the merge refused, or one
over the per-file cap anywhere in the history the remote adds."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from core.sync.bounds import BLOB_MAX
from core.sync.gitrepo import GitRepo
from core.sync.report import TOO_LARGE, SyncReport
from core.sync.screening import kept_parents


class History:
    """A repository whose commits are made from {name: content} trees."""

    def __init__(self, path: Path) -> None:
        self.path = path
        subprocess.run(["git", "init", "-q", "-b", "main", str(path)], check=True)
        self.repo = GitRepo(path)

    def git(self, *args: str, data: bytes | None = None) -> str:
        done = subprocess.run(
            ["git", "-C", str(self.path), *args], input=data, capture_output=True, check=True
        )
        return done.stdout.decode().strip()

    def blob(self, content: bytes) -> str:
        return self.git("hash-object", "-w", "--stdin", data=content)

    def commit(self, files: dict[str, str], *parents: str) -> str:
        listing = "".join(f"100644 blob {oid}\t{name}\n" for name, oid in sorted(files.items()))
        tree = self.git("mktree", data=listing.encode())
        args = [arg for parent in parents for arg in ("-p", parent)]
        who = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t"}
        who |= {"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
        done = subprocess.run(
            ["git", "-C", str(self.path), "commit-tree", tree, *args, "-m", "c"],
            capture_output=True,
            check=True,
            env={**os.environ, **who},
        )
        return done.stdout.decode().strip()


@pytest.fixture
def history(tmp_path: Path) -> History:
    return History(tmp_path / "repo")


def test_an_honest_history_keeps_the_usual_parents(history: History) -> None:
    a = history.blob(b"a")
    base = history.commit({"a": a})
    head = history.commit({"a": a, "h": history.blob(b"h")}, base)
    remote = history.commit({"a": a, "r": history.blob(b"r")}, base)
    report = SyncReport("synced")
    assert kept_parents(history.repo, head, remote, set(), report) is None
    assert report.refused == []


def test_commits_holding_a_refused_object_and_their_descendants_are_left_out(
    history: History,
) -> None:
    a = history.blob(b"a")
    base = history.commit({"a": a})
    head = history.commit({"a": a, "h": history.blob(b"h")}, base)
    honest = history.commit({"a": a, "x": history.blob(b"x")}, base)
    bad = history.blob(b"forged")
    hostile = history.commit({"a": a, "x": history.blob(b"x"), "f": bad}, honest)
    on_top = history.commit({"a": a, "f": bad, "y": history.blob(b"y")}, hostile)
    report = SyncReport("synced")
    assert kept_parents(history.repo, head, on_top, {bad}, report) == [head, honest]
    # nothing honest left on the remote's side: this machine's HEAD alone
    assert kept_parents(history.repo, head, hostile, {bad}, report) == [head, honest]
    first = history.commit({"f": bad}, base)
    assert kept_parents(history.repo, head, first, {bad}, report) == [head]


def test_a_blob_over_the_cap_that_a_later_commit_removed_still_taints_its_commit(
    history: History, tmp_path: Path
) -> None:
    a = history.blob(b"a")
    base = history.commit({"a": a})
    big = tmp_path / "big"
    with open(big, "wb") as handle:
        handle.truncate(BLOB_MAX + 1)
    oid = history.git("hash-object", "-w", str(big))
    added = history.commit({"a": a, "big": oid}, base)
    removed = history.commit({"a": a}, added)
    report = SyncReport("synced")
    assert kept_parents(history.repo, base, removed, set(), report) == [base]
    assert [(r.name, r.kind) for r in report.refused] == [(f"object {oid}", TOO_LARGE)]
    # without a HEAD (a join): the remote's commits that hold none
    assert kept_parents(history.repo, None, removed, set(), SyncReport("")) == [base]
    # a remote that descends from HEAD: its honest commit alone, never HEAD beside its child
    honest = history.commit({"a": a, "x": history.blob(b"x")}, base)
    tainted = history.commit({"a": a, "big": oid}, honest)
    assert kept_parents(history.repo, base, tainted, set(), SyncReport("")) == [honest]
