"""One file identity and one racy rule for the index and the profile's facts cache."""

from __future__ import annotations

import os
from pathlib import Path

import msgspec

from core.bulk.file_identity import RACY_NS, FileIdentity


def test_identity_is_the_stat_and_its_signature_the_index_text(tmp_path: Path) -> None:
    path = tmp_path / "decision-1.json"
    path.write_text("{}")
    info = os.lstat(path)
    identity = FileIdentity.of(info)
    assert identity == FileIdentity(
        info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns
    )
    assert identity.signature() == (
        f"{info.st_size}:{info.st_mtime_ns}:{info.st_ino}:{info.st_ctime_ns}"
    )


def test_an_edit_with_its_mtime_set_back_changes_the_identity(tmp_path: Path) -> None:
    path = tmp_path / "decision-1.json"
    path.write_text("{}")
    before = os.lstat(path)
    path.write_text("[]")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = FileIdentity.of(os.lstat(path))
    assert after.mtime_ns == before.st_mtime_ns
    assert after != FileIdentity.of(before)


def test_a_file_changed_just_before_the_scan_is_racy() -> None:
    identity = FileIdentity(1, 2, 3, mtime_ns=10 * RACY_NS, ctime_ns=10 * RACY_NS + 5)
    assert identity.racy(10 * RACY_NS + 5)
    assert identity.racy(11 * RACY_NS + 4)
    assert not identity.racy(11 * RACY_NS + 5)
    assert not identity.racy(20 * RACY_NS)


def test_the_later_of_mtime_and_ctime_counts() -> None:
    scan = 100 * RACY_NS
    assert FileIdentity(1, 2, 3, mtime_ns=0, ctime_ns=scan - 1).racy(scan)
    assert FileIdentity(1, 2, 3, mtime_ns=scan - 1, ctime_ns=0).racy(scan)


def test_the_facts_file_stores_it_as_an_array() -> None:
    identity = FileIdentity(1, 2, 3, 4, 5)
    assert msgspec.msgpack.decode(msgspec.msgpack.encode(identity)) == [1, 2, 3, 4, 5]
    assert msgspec.msgpack.decode(msgspec.msgpack.encode(identity), type=FileIdentity) == identity
