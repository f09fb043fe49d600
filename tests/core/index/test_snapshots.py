"""The paging snapshot cache: bounds, least-recently-used eviction, idle expiry, oversize."""

from __future__ import annotations

import pytest

from core.errors import SnapshotExpired, SnapshotTooLarge
from core.index.snapshots import SnapshotCache, estimated_bytes


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def ids(count: int, prefix: str = "decision-") -> list[str]:
    return [f"{prefix}{n:05d}" for n in range(count)]


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


def test_pages_are_slices_of_the_frozen_list(clock: FakeClock) -> None:
    cache = SnapshotCache(clock=clock)
    source = ids(250)
    sid = cache.create("filter", source)
    source.clear()
    assert len(sid) == 32 and int(sid, 16) >= 0
    assert cache.total(sid) == 250
    assert cache.page(sid, 0, 100) == ids(250)[:100]
    assert cache.page(sid, 200, 100) == ids(250)[200:]
    assert cache.page(sid, 250, 100) == []
    assert cache.page(sid, 200, 100) == ids(250)[200:]  # the last page keeps the snapshot
    with pytest.raises(ValueError):
        cache.page(sid, 251, 100)
    with pytest.raises(ValueError):
        cache.page(sid, 0, 0)


def test_at_most_four_snapshots_least_recently_used_goes_first(clock: FakeClock) -> None:
    cache = SnapshotCache(clock=clock)
    made = []
    for n in range(4):
        made.append(cache.create(n, ids(10)))
        clock.now += 1
    cache.page(made[0], 0, 5)  # now the most recently used
    clock.now += 1
    fifth = cache.create(4, ids(10))
    assert len(cache) == 4
    with pytest.raises(SnapshotExpired):
        cache.page(made[1], 0, 5)
    for sid in (made[0], made[2], made[3], fifth):
        assert cache.page(sid, 0, 1) == ["decision-00000"]


def test_total_ids_bound_evicts_until_the_new_one_fits(clock: FakeClock) -> None:
    cache = SnapshotCache(max_ids=100, clock=clock)
    first = cache.create("a", ids(60))
    clock.now += 1
    second = cache.create("b", ids(30))
    clock.now += 1
    third = cache.create("c", ids(50))
    with pytest.raises(SnapshotExpired):
        cache.total(first)
    assert (cache.total(second), cache.total(third)) == (30, 50)


def test_byte_bound_uses_the_reference_estimate(clock: FakeClock) -> None:
    assert estimated_bytes(["ab", "cde"]) == 1024 + (256 + 4) + (256 + 6)
    limit = estimated_bytes(ids(10)) * 2
    cache = SnapshotCache(max_bytes=limit, clock=clock)
    first = cache.create("a", ids(10))
    second = cache.create("b", ids(10))
    third = cache.create("c", ids(10))
    with pytest.raises(SnapshotExpired):
        cache.total(first)
    assert cache.total(second) == cache.total(third) == 10


def test_idle_snapshots_expire_and_reading_refreshes(clock: FakeClock) -> None:
    cache = SnapshotCache(ttl_seconds=900, clock=clock)
    kept = cache.create("kept", ids(3))
    idle = cache.create("idle", ids(3))
    clock.now += 600
    cache.page(kept, 0, 1)
    clock.now += 400
    with pytest.raises(SnapshotExpired):
        cache.page(idle, 0, 1)
    assert cache.page(kept, 0, 1) == ["decision-00000"]
    clock.now += 900
    assert cache.prune() == 1
    assert len(cache) == 0


def test_prune_on_create_removes_expired_ones(clock: FakeClock) -> None:
    cache = SnapshotCache(ttl_seconds=10, clock=clock)
    cache.create("old", ids(2))
    clock.now += 11
    cache.create("new", ids(2))
    assert len(cache) == 1


def test_a_single_oversized_snapshot_is_refused_and_the_cache_untouched(
    clock: FakeClock,
) -> None:
    cache = SnapshotCache(max_ids=100, max_bytes=64 * 1024 * 1024, clock=clock)
    kept = cache.create("kept", ids(50))
    with pytest.raises(SnapshotTooLarge):
        cache.create("big", ids(101))
    small_bytes = SnapshotCache(max_bytes=estimated_bytes(ids(5)), clock=clock)
    with pytest.raises(SnapshotTooLarge):
        small_bytes.create("big", ids(6))
    assert cache.total(kept) == 50
    assert len(cache) == 1


def test_reference_defaults() -> None:
    cache = SnapshotCache()
    assert (cache.max_snapshots, cache.max_ids, cache.ttl_seconds) == (4, 100_000, 900.0)
    assert cache.max_bytes == 64 * 1024 * 1024
    sid = cache.create("all", ids(100_000))
    assert cache.total(sid) == 100_000
    with pytest.raises(SnapshotTooLarge):
        cache.create("more", ids(100_001))


def test_a_page_under_another_filter_key_is_refused(clock: FakeClock) -> None:
    cache = SnapshotCache(clock=clock)
    sid = cache.create(("project-a", "cache"), ids(5))
    assert cache.page(sid, 0, 2, key=("project-a", "cache")) == ids(2)
    with pytest.raises(SnapshotExpired):
        cache.page(sid, 0, 2, key=("project-b", "cache"))


def test_discard_drops_a_snapshot(clock: FakeClock) -> None:
    cache = SnapshotCache(clock=clock)
    sid = cache.create("x", ids(5))
    cache.discard(sid)
    with pytest.raises(SnapshotExpired):
        cache.total(sid)
