"""OS failures become one clear typed error with a runbook entry, and leave nothing
half-written: a full disk (a real small tmpfs where `mount` works, and an injected ENOSPC), a
read-only file system, permission denied, a FIFO or device where a lock or record belongs."""

from __future__ import annotations

import errno
import os
import stat
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import core.store.safefs
from core.errors import ErrorCode, JournalError, LockUnsafe, StorageFailure, UnsafePath
from core.ipc.protocol import error_from_exception
from core.record.models import DecisionRecord
from core.store.decisions import DecisionStore
from tests.core.support.safefs_tmpfs import fill, mounted_tmpfs
from tests.factories import make_record

RECORD = "decision-test-1"


def _reason(record: DecisionRecord) -> None:
    record.selection_reason_raw = "a corrected reason that has to be written somewhere"


def _temps(root: Path) -> list[str]:
    return [
        os.path.join(directory, name)
        for directory, _dirs, names in os.walk(root)
        for name in names
        if ".tmp-" in name
    ]


def _files(root: Path) -> dict[str, bytes]:
    return {
        os.path.join(directory, name): Path(directory, name).read_bytes()
        for directory, _dirs, names in os.walk(root)
        for name in names
        if not name.endswith(".lock") and name != "temp-sweep.stamp"
    }


@pytest.fixture
def tmpfs(tmp_path: Path) -> Iterator[Path]:
    with mounted_tmpfs(tmp_path) as mount_point:
        yield mount_point


def test_a_full_disk_fails_an_edit_with_a_clear_error_and_changes_nothing(tmpfs: Path) -> None:
    store = DecisionStore(tmpfs / "journal")
    store.put(make_record())
    store.revise(RECORD, 1, _reason)
    before = _files(store.root)
    fill(tmpfs)
    with pytest.raises(StorageFailure) as caught:
        store.revise(RECORD, 2, _reason)
    failure = caught.value
    assert (failure.errno, failure.runbook_anchor) == (errno.ENOSPC, "disk-full")
    assert "the disk is full" in str(failure) and "nothing was changed" in str(failure)
    assert "[Errno" not in str(failure)
    assert failure.runbook_hint().startswith("see: decision-journal help runbook disk-full;")
    assert _temps(store.root) == []
    assert _files(store.root) == before
    assert store.get(RECORD).revision == 2


def test_a_full_disk_fails_a_new_record_and_leaves_no_file(tmpfs: Path) -> None:
    store = DecisionStore(tmpfs / "journal")
    store.put(make_record())
    fill(tmpfs)
    with pytest.raises(StorageFailure, match="the disk is full"):
        store.put(make_record(id="decision-test-2"))
    assert not (store.records_dir / "decision-test-2.json").exists()
    assert _temps(store.root) == []


def test_a_read_only_file_system_is_named_as_such(tmpfs: Path) -> None:
    store = DecisionStore(tmpfs / "journal")
    store.put(make_record())
    before = _files(store.root)
    subprocess.run(["mount", "-o", "remount,ro", str(tmpfs)], check=True)
    with pytest.raises(StorageFailure) as caught:
        store.revise(RECORD, 1, _reason)
    assert (caught.value.errno, caught.value.runbook_anchor) == (
        errno.EROFS,
        "read-only-file-system",
    )
    assert "mounted read-only" in str(caught.value)
    assert store.get(RECORD).revision == 1  # reading still works
    assert _files(store.root) == before


def _failing(
    monkeypatch: pytest.MonkeyPatch, name: str, code: int, when: Callable[..., bool]
) -> None:
    real = getattr(os, name)

    def fake(*args: Any, **kwargs: Any) -> Any:
        if when(*args):
            raise OSError(code, os.strerror(code))
        return real(*args, **kwargs)

    monkeypatch.setattr(core.store.safefs.os, name, fake)


def test_an_injected_enospc_at_fsync_removes_the_temp_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = DecisionStore(tmp_path / "journal")
    store.put(make_record())
    before = _files(store.root)
    _failing(monkeypatch, "fsync", errno.ENOSPC, lambda fd: stat.S_ISREG(os.fstat(fd).st_mode))
    with pytest.raises(StorageFailure, match="the disk is full") as caught:
        store.revise(RECORD, 1, _reason)
    assert caught.value.path.endswith("revision-000001.json")
    assert _temps(store.root) == []
    assert _files(store.root) == before


def test_permission_denied_is_named_with_its_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = DecisionStore(tmp_path / "journal")
    store.put(make_record())
    _failing(monkeypatch, "open", errno.EACCES, lambda path, *_: ".tmp-" in str(path))
    with pytest.raises(StorageFailure) as caught:
        store.revise(RECORD, 1, _reason)
    assert caught.value.runbook_anchor == "permission-denied"
    assert str(caught.value).startswith("cannot write ")
    assert isinstance(caught.value, OSError) and isinstance(caught.value, JournalError)
    assert caught.value.strerror == "Permission denied"


def test_other_os_errors_pass_unchanged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = DecisionStore(tmp_path / "journal")
    store.put(make_record())
    _failing(monkeypatch, "open", errno.EMFILE, lambda path, *_: ".tmp-" in str(path))
    with pytest.raises(OSError) as caught:
        store.revise(RECORD, 1, _reason)
    assert not isinstance(caught.value, StorageFailure)
    assert caught.value.errno == errno.EMFILE


def _device(path: Path) -> None:
    try:
        os.mknod(path, 0o600 | stat.S_IFCHR, os.makedev(1, 3))  # /dev/null's numbers
    except PermissionError:
        pytest.skip("cannot create a device node here")


LOCK_REPLACEMENTS: dict[str, Callable[[Path], None]] = {
    "fifo": lambda path: os.mkfifo(path, 0o600),
    "device": _device,
    "folder": lambda path: path.mkdir(),
}


@pytest.mark.parametrize("kind", sorted(LOCK_REPLACEMENTS))
def test_a_lock_replaced_by_a_special_file_is_refused_at_once(tmp_path: Path, kind: str) -> None:
    store = DecisionStore(tmp_path / "journal")
    store.put(make_record())
    lock = store.records_dir / f"{RECORD}.json.lock"
    lock.unlink()
    LOCK_REPLACEMENTS[kind](lock)
    with pytest.raises(LockUnsafe, match=r"lock file is not a regular file \(a FIFO") as caught:
        store.revise(RECORD, 1, _reason)
    assert caught.value.runbook_anchor == "lock-file-replaced"
    assert store.get(RECORD).revision == 1


def test_a_fifo_in_place_of_a_record_is_refused_without_blocking(tmp_path: Path) -> None:
    store = DecisionStore(tmp_path / "journal")
    store.put(make_record())
    path = store.records_dir / f"{RECORD}.json"
    path.unlink()
    os.mkfifo(path, 0o600)
    with pytest.raises(UnsafePath, match="not a regular file"):
        store.get(RECORD)
    with pytest.raises(UnsafePath, match="not a regular file"):
        store.revise(RECORD, 1, _reason)


def test_agents_get_the_failure_as_journal_damaged_with_its_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = DecisionStore(tmp_path / "journal")
    store.put(make_record())
    _failing(monkeypatch, "fsync", errno.ENOSPC, lambda fd: stat.S_ISREG(os.fstat(fd).st_mode))
    with pytest.raises(StorageFailure) as caught:
        store.revise(RECORD, 1, _reason)
    wire = error_from_exception(caught.value)
    assert (wire.code, wire.message) == (ErrorCode.JOURNAL_DAMAGED, str(caught.value))
    assert wire.data["runbook"].endswith("#disk-full")


def test_an_unreadable_history_revision_keeps_the_permission_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = DecisionStore(tmp_path / "journal")
    store.put(make_record())
    store.revise(RECORD, 1, _reason)
    _failing(monkeypatch, "open", errno.EACCES, lambda path, *_: "revision-000001" in str(path))
    with pytest.raises(StorageFailure) as caught:
        store.history(RECORD)
    assert caught.value.runbook_anchor == "permission-denied"
    assert str(caught.value).startswith("cannot read ")
