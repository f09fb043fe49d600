"""Export finds every changed journal file by the store's own identity rule: a same-size edit
within one clock tick, or into a reused inode, is pushed; a file proven unchanged is not read."""

from __future__ import annotations

import os
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from core.bulk import file_identity
from core.sync import workcopy
from core.sync.crypto import Codec
from core.sync.state import ExportedFile, SyncConfig, SyncState
from core.sync.workcopy import WorkingCopy

PATH = "records/decision-one-1.json"


def _work(root: Path) -> WorkingCopy:
    (root / "records").mkdir(parents=True, exist_ok=True)
    return WorkingCopy(
        root=root,
        working_copy=root / "sync",
        codec=Codec(),
        config=SyncConfig("journal-test", "0123abcd", "test", encrypted=False),
        index={},
        state=SyncState(),
    )


def _blob(work: WorkingCopy) -> bytes:
    return (work.path / PATH).read_bytes()


def _age(path: Path, seconds: float) -> int:
    """Sets the file's mtime `seconds` back and waits out the (shortened) racy window, so the
    next export trusts its identity; returns the mtime."""
    stamp = time.time_ns() - int(seconds * 1e9)
    os.utime(path, ns=(stamp, stamp))
    time.sleep(3 * SHORT_TICK_NS / 1e9)
    return stamp


SHORT_TICK_NS = 5_000_000


@pytest.fixture(autouse=True)
def _short_racy_window(monkeypatch: pytest.MonkeyPatch) -> None:
    """The racy window shortened, so a test waits milliseconds instead of seconds for a file
    to be trusted (a ctime can only be now, never set back)."""
    monkeypatch.setattr(file_identity, "RACY_NS", SHORT_TICK_NS)


def test_a_file_proven_unchanged_is_not_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = _work(tmp_path)
    (tmp_path / PATH).write_bytes(b'{"revision": 1}\n')
    _age(tmp_path / PATH, 10)
    assert work.export() == 1
    assert work.index[PATH].identity is not None  # old enough to be trusted
    reads: list[Any] = []
    real = workcopy.read_regular_file_stat
    monkeypatch.setattr(
        workcopy, "read_regular_file_stat", lambda *a, **k: reads.append(a) or real(*a, **k)
    )
    assert work.export() == 0
    assert reads == []


def test_a_same_size_edit_within_one_clock_tick_is_pushed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a file system whose timestamps are coarse, an edit in the same tick as the export's
    read leaves every stat field as it was: here the stat is held fixed to show exactly that."""
    monkeypatch.setattr(file_identity, "RACY_NS", 2_000_000_000)  # a tick of the coarsest
    work = _work(tmp_path)
    target = tmp_path / PATH
    target.write_bytes(b'{"choice": "a"}\n')
    real = os.lstat(target)
    tick = time.time_ns() - 300_000_000  # the write, within the tick of the read
    frozen = SimpleNamespace(
        st_mode=real.st_mode,
        st_dev=real.st_dev,
        st_ino=real.st_ino,
        st_size=real.st_size,
        st_mtime_ns=tick,
        st_ctime_ns=tick,
    )
    monkeypatch.setattr(workcopy, "scan_journal", lambda root: iter([(PATH, frozen)]))
    real_read = workcopy.read_regular_file_stat
    monkeypatch.setattr(
        workcopy, "read_regular_file_stat", lambda *a, **k: (real_read(*a, **k)[0], frozen)
    )
    assert work.export() == 1
    assert work.index[PATH].identity is None  # changed too shortly before it was read
    target.write_bytes(b'{"choice": "b"}\n')  # same size, same inode, same (frozen) stat
    assert work.export() == 1
    assert _blob(work) == b'{"choice": "b"}\n'


def test_a_same_size_edit_into_a_reused_inode_is_pushed(tmp_path: Path) -> None:
    """The file is replaced by another of the same size and mtime that the file system gives
    the same inode number: only its ctime differs."""
    work = _work(tmp_path)
    target = tmp_path / PATH
    target.write_bytes(b'{"choice": "a"}\n')
    stamp = _age(target, 10)
    assert work.export() == 1
    assert work.index[PATH].identity is not None
    before = os.lstat(target)
    for _ in range(20):
        target.unlink()
        target.write_bytes(b'{"choice": "b"}\n')
        if os.lstat(target).st_ino == before.st_ino:
            break
    else:
        pytest.skip("this file system gave the new file another inode")
    os.utime(target, ns=(stamp, stamp))
    time.sleep(3 * SHORT_TICK_NS / 1e9)
    after = os.lstat(target)
    assert (after.st_size, after.st_mtime_ns, after.st_ino) == (
        before.st_size,
        before.st_mtime_ns,
        before.st_ino,
    )
    assert work.export() == 1
    assert _blob(work) == b'{"choice": "b"}\n'


def test_an_edit_that_sets_the_mtime_back_is_pushed(tmp_path: Path) -> None:
    """`touch -r`, `cp -p` and `rsync -t` put the old mtime back; the ctime still moves."""
    work = _work(tmp_path)
    target = tmp_path / PATH
    target.write_bytes(b'{"choice": "a"}\n')
    stamp = _age(target, 10)
    work.export()
    assert work.index[PATH].identity is not None
    target.write_bytes(b'{"choice": "c"}\n')
    os.utime(target, ns=(stamp, stamp))
    time.sleep(3 * SHORT_TICK_NS / 1e9)
    assert work.export() == 1
    assert _blob(work) == b'{"choice": "c"}\n'


def test_a_file_written_from_the_remote_is_read_again_by_the_next_export(tmp_path: Path) -> None:
    work = _work(tmp_path)
    work.apply(PATH, b'{"revision": 2}\n', None)
    entry = work.index[PATH]
    assert entry.identity is None and entry.name == PATH
    assert work.export() == 0  # read again, same digest: nothing to push


def test_an_exported_file_keeps_its_identity_through_its_saved_form(tmp_path: Path) -> None:
    work = _work(tmp_path)
    (tmp_path / PATH).write_bytes(b"{}\n")
    _age(tmp_path / PATH, 10)
    work.export()
    entry = work.index[PATH]
    assert ExportedFile.from_list(entry.to_list()) == entry
    untrusted = ExportedFile(None, entry.digest, entry.name)
    assert ExportedFile.from_list(untrusted.to_list()) == untrusted
