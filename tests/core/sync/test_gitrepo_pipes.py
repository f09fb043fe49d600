"""git gets all of its input, however large: a request bigger than a pipe buffer no longer
leaves git waiting for the rest while the sync waits for git (a join of thousands of records
hung there for good)."""

from __future__ import annotations

import subprocess
import threading
from pathlib import Path

import pytest

from core.sync.gitrepo import GitRepo

NAMES = 3500
"""Each request line is `<40 hex>:d/xx/<30 hex>.age\n`, about 80 bytes: ~480 KB, several
pipe buffers (64 KiB on Linux), and answers larger still."""


@pytest.fixture(scope="module")
def many(tmp_path_factory: pytest.TempPathFactory) -> tuple[GitRepo, str, list[str]]:
    """A working copy whose one commit holds `NAMES` small files, built once per module."""
    path = tmp_path_factory.mktemp("many") / "wc"
    path.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main", str(path)], check=True)
    index = subprocess.run(
        ["git", "-C", str(path), "hash-object", "-w", "--stdin-paths"],
        input="\n".join(str(_write(path, n)) for n in range(NAMES)).encode(),
        capture_output=True,
        check=True,
    )
    assert len(index.stdout.split()) == NAMES
    repo = GitRepo(path)
    repo.run("add", "-A", ".")
    tree = repo.text("write-tree")
    commit = repo.text("commit-tree", tree, "-m", "many")
    names = [f"d/{n % 256:02x}/{n:030x}.age" for n in range(NAMES)]
    return repo, commit, names


def _write(path: Path, n: int) -> Path:
    target = path / "d" / f"{n % 256:02x}" / f"{n:030x}.age"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(f"file {n}\n".encode() * 20)
    return target


def _within(seconds: float, action):  # type: ignore[no-untyped-def]
    result: list[object] = []

    def run() -> None:
        try:
            result.append(action())
        except BaseException as exc:
            result.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"git did not finish within {seconds} s: its input was cut"
    assert not isinstance(result[0], BaseException), result[0]
    return result[0]


def test_a_request_larger_than_a_pipe_buffer_is_written_whole(many) -> None:  # type: ignore[no-untyped-def]
    repo, commit, names = many
    request_bytes = sum(len(f"{commit}:{n}\n") for n in names)
    assert request_bytes > 4 * 65536
    found = _within(60, lambda: repo.blobs(commit, names, limit=1 << 20))
    assert len(found) == NAMES  # type: ignore[arg-type]
    assert found[names[3210]] == b"file 3210\n" * 20  # type: ignore[index]


def test_sizes_read_headers_only_for_thousands_of_objects(many) -> None:  # type: ignore[no-untyped-def]
    repo, commit, names = many
    sizes = _within(60, lambda: repo.sizes(f"{commit}:{n}" for n in names))
    expected = {f"{commit}:{n}": ("blob", 20 * len(f"file {i}\n")) for i, n in enumerate(names)}
    assert sizes == expected


def test_contents_leave_out_what_is_over_the_limit_unread(many) -> None:  # type: ignore[no-untyped-def]
    repo, commit, names = many
    found = repo.contents([f"{commit}:{names[0]}", f"{commit}:{names[1000]}"], limit=150)
    assert found == {f"{commit}:{names[0]}": b"file 0\n" * 20}


def test_the_entries_of_one_folder_are_that_folders_alone(many) -> None:  # type: ignore[no-untyped-def]
    repo, commit, names = many
    assert len(repo.entries(commit)) == NAMES
    under = repo.entries(commit, "d")
    assert sorted(e.text or "" for e in under) == sorted(names)
    assert repo.entries(commit, "m") == []
