"""A fresh process rebuilds from facts an earlier one verified, and never trusts a changed file."""

from __future__ import annotations

import gc
import os
import sys
from pathlib import Path

import msgspec
import pytest

from core.errors import JournalDamaged
from core.profile.facts_file import FORMAT_VERSION
from core.profile.store import FACTS_CACHE_FILE, ProfileStore
from core.store.decisions import DecisionStore
from tests.factories import count_record_reads, decision


@pytest.fixture(autouse=True)
def trust_fresh_files(monkeypatch: pytest.MonkeyPatch) -> None:
    """Files written in the test are seconds old; the 2 s racy window would distrust them."""
    monkeypatch.setattr("core.bulk.file_identity.RACY_NS", -(10**18))


def _journal(tmp_path: Path, count: int = 4) -> DecisionStore:
    store = DecisionStore(tmp_path / "journal")
    for number in range(1, count + 1):
        store.put(decision(number))
    ProfileStore(store.root, store).rebuild()
    return store


def test_a_new_process_reads_no_unchanged_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = _journal(tmp_path)
    first = ProfileStore(store.root, store).load()
    cache = store.root / FACTS_CACHE_FILE
    assert cache.is_file() and oct(os.stat(cache).st_mode & 0o777) == "0o600"

    [name, identity, _facts] = msgspec.msgpack.decode(cache.read_bytes())["entries"][0]
    info = os.stat(store.records_dir / name)
    assert identity == [info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns]

    fresh_store = DecisionStore(store.root)
    reads = count_record_reads(monkeypatch)
    fresh = ProfileStore(fresh_store.root, fresh_store)
    assert fresh.status().state == "current"
    rebuilt = fresh.rebuild().profile
    assert reads == []
    assert rebuilt.source_hash == first.source_hash
    assert [r.model_dump(exclude={"updated_at"}) for r in rebuilt.rules] == [
        r.model_dump(exclude={"updated_at"}) for r in first.rules
    ]


def test_a_changed_record_is_read_again_in_a_new_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = _journal(tmp_path)
    store.revise("decision-3", 1, lambda r: setattr(r, "tags", ["changed"]))
    fresh_store = DecisionStore(store.root)
    reads = count_record_reads(monkeypatch)
    assert ProfileStore(fresh_store.root, fresh_store).status().state == "stale"
    assert reads == ["decision-3.json"]


def test_a_corrupted_record_still_fails_closed(tmp_path: Path) -> None:
    store = _journal(tmp_path)
    path = store.records_dir / "decision-2.json"
    path.write_bytes(path.read_bytes() + b"{}")
    fresh_store = DecisionStore(store.root)
    with pytest.raises(JournalDamaged, match="unreadable"):
        ProfileStore(fresh_store.root, fresh_store).rebuild()


@pytest.mark.parametrize(
    "content",
    [
        b"{broken",
        msgspec.msgpack.encode({"version": 99, "entries": []}),
        msgspec.msgpack.encode([]),
        msgspec.json.encode({"version": 2, "entries": []}),
    ],
)
def test_a_damaged_cache_is_ignored_and_rewritten(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, content: bytes
) -> None:
    store = _journal(tmp_path, count=2)
    cache = store.root / FACTS_CACHE_FILE
    cache.write_bytes(content)
    fresh_store = DecisionStore(store.root)
    reads = count_record_reads(monkeypatch)
    ProfileStore(fresh_store.root, fresh_store).rebuild()
    assert sorted(reads) == ["decision-1.json", "decision-2.json"]
    assert msgspec.msgpack.decode(cache.read_bytes())["version"] == FORMAT_VERSION


def test_a_record_with_a_lone_surrogate_escape_is_cached_as_go_reads_it(tmp_path: Path) -> None:
    """Such a file once crashed the rebuild: its text could not be written to the facts file."""
    store = _journal(tmp_path, count=3)
    path = store.records_dir / "decision-2.json"
    path.write_bytes(path.read_bytes().replace(b'"Per-record JSON"', b'"Per-record JSON\\ud800"'))
    (store.root / FACTS_CACHE_FILE).unlink()
    fresh_store = DecisionStore(store.root)
    rebuilt = ProfileStore(fresh_store.root, fresh_store).rebuild().profile
    assert (store.root / FACTS_CACHE_FILE).is_file()
    assert fresh_store.get("decision-2").options[0].label == "Per-record JSON\ufffd"
    [rule] = rebuilt.rules
    assert rule.support_decision_ids == ["decision-1", "decision-3"]
    assert rule.contradiction_decision_ids == ["decision-2"]


@pytest.mark.skipif(sys.platform != "linux", reason="names synced files through /proc")
def test_only_the_profile_waits_for_the_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The profile is the user's data (overrides) and is synced; the facts file is a cache that
    a torn write merely invalidates, so a rebuild does not wait for the disk to write it."""
    store = DecisionStore(tmp_path / "journal")
    store.put(decision(1))
    synced: list[str] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        synced.append(os.readlink(f"/proc/self/fd/{fd}"))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    ProfileStore(store.root, store).rebuild()
    assert (store.root / FACTS_CACHE_FILE).exists()
    assert not [path for path in synced if "profile-facts" in path]
    assert any("profile.json.tmp" in path for path in synced)


def test_the_cache_is_rewritten_only_when_enough_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rewriting the facts of a whole journal after every commit would cost more than the one
    re-read it saves a later process; a few changes wait until there are enough."""
    monkeypatch.setattr("core.profile.store.PERSIST_MIN_CHANGES", 2)
    store = DecisionStore(tmp_path / "journal")
    for number in range(1, 5):
        store.put(decision(number))
    profiles = ProfileStore(store.root, store)
    profiles.rebuild()
    cache = store.root / FACTS_CACHE_FILE
    written = cache.stat().st_ino
    store.revise("decision-1", 1, lambda r: setattr(r, "tags", ["edited"]))
    profiles.rebuild()
    assert cache.stat().st_ino == written  # one change: kept as it was
    store.revise("decision-2", 1, lambda r: setattr(r, "tags", ["edited"]))
    profiles.rebuild()
    assert cache.stat().st_ino != written  # two changes since it was written
    rewritten = cache.stat().st_ino
    (store.records_dir / "decision-3.json").unlink()
    (store.records_dir / "decision-4.json").unlink()
    profiles.rebuild()
    assert cache.stat().st_ino != rewritten  # two records gone count as two changes


def test_facts_kept_per_record_are_never_walked_by_the_cycle_collector(tmp_path: Path) -> None:
    """One entry per record lives as long as the process: a tracked part of each (a tuple)
    made the first collection after a 100,000-record rebuild walk 100,000 objects."""
    store = _journal(tmp_path)
    (store.root / FACTS_CACHE_FILE).unlink()
    gc.disable()  # a collection would untrack a tuple of numbers it walked
    try:
        for profiles in (ProfileStore(store.root, store), ProfileStore(store.root, store)):
            profiles.rebuild()  # the first reads the files, the second loads the facts file
            entries = profiles._facts._entries.values()
            assert len(entries) == 4
            assert not any(gc.is_tracked(e) or gc.is_tracked(e.identity) for e in entries)
    finally:
        gc.enable()


def test_the_json_facts_file_of_earlier_versions_is_removed(tmp_path: Path) -> None:
    """Formats 1 and 2 were JSON under another name; left behind it would hold 40 MB of a
    100,000-record journal for nothing."""
    store = _journal(tmp_path, count=2)
    legacy = store.root / "cache" / "profile-facts.json"
    legacy.write_bytes(b'{"version":2,"entries":[]}')
    (store.root / FACTS_CACHE_FILE).unlink()
    ProfileStore(store.root, DecisionStore(store.root)).rebuild()
    assert (store.root / FACTS_CACHE_FILE).is_file() and not legacy.exists()
