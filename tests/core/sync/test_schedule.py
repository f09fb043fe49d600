"""The app's sync timing: debounce, start, poll, demand, backoff with a cap, coalescing."""

from __future__ import annotations

import pytest

from core.sync.schedule import Outcome, SyncSchedule, SyncTiming

TIMING = SyncTiming(
    debounce=30, max_delay=120, start_delay=5, poll=300, retry_first=15, retry_cap=600
)


def run(schedule: SyncSchedule, now: float, outcome: Outcome = Outcome.SYNCED) -> None:
    assert schedule.begin(now)
    schedule.finish(now, outcome)


def test_nothing_is_due_until_something_asks() -> None:
    assert SyncSchedule(TIMING).due_at() is None


def test_a_burst_of_commits_syncs_once_after_the_last_one() -> None:
    schedule = SyncSchedule(TIMING)
    for now in (100, 110, 125):
        schedule.committed(now)
    assert schedule.due_at() == 155
    assert schedule.changes_waiting


def test_commits_that_never_pause_still_sync_after_the_longest_delay() -> None:
    schedule = SyncSchedule(TIMING)
    for now in range(100, 400, 10):
        schedule.committed(now)
    assert schedule.due_at() == 100 + 120


def test_start_waits_a_little_and_the_poll_follows_each_sync() -> None:
    schedule = SyncSchedule(TIMING)
    schedule.started(50)
    assert schedule.due_at() == 55
    run(schedule, 55)
    assert schedule.due_at() == 355
    assert not schedule.changes_waiting


def test_sync_now_is_due_at_once() -> None:
    schedule = SyncSchedule(TIMING)
    schedule.committed(10)
    schedule.requested(12)
    assert schedule.due_at() == 12


def test_requests_while_a_sync_runs_coalesce_into_one_more() -> None:
    schedule = SyncSchedule(TIMING)
    schedule.requested(0)
    assert schedule.begin(0)
    assert schedule.due_at() is None  # nothing starts beside a running sync
    schedule.requested(1)
    schedule.requested(2)
    schedule.committed(3)
    assert not schedule.begin(4)  # a second sync is refused, not queued twice
    schedule.finish(5, Outcome.SYNCED)
    assert schedule.due_at() == 1
    assert schedule.begin(5)
    schedule.finish(6, Outcome.SYNCED)
    assert schedule.due_at() == 306  # everything asked was served by that one sync


def test_a_commit_before_the_sync_started_is_served_by_it() -> None:
    schedule = SyncSchedule(TIMING)
    schedule.committed(100)
    schedule.requested(101)
    run(schedule, 101)
    assert schedule.due_at() == 401
    assert not schedule.changes_waiting


def test_offline_backs_off_doubling_up_to_the_cap() -> None:
    schedule = SyncSchedule(TIMING)
    waits = []
    now = 0.0
    for _ in range(9):
        run(schedule, now, Outcome.OFFLINE)
        due = schedule.due_at()
        assert due is not None and due == schedule.retry_at
        waits.append(due - now)
        now = due
    assert waits == [15, 30, 60, 120, 240, 480, 600, 600, 600]
    assert schedule.failures == 9
    run(schedule, now, Outcome.SYNCED)
    assert schedule.failures == 0 and schedule.retry_at is None
    assert schedule.due_at() == now + 300


def test_while_backing_off_commits_and_polls_wait_for_the_retry() -> None:
    schedule = SyncSchedule(TIMING)
    run(schedule, 0, Outcome.OFFLINE)
    run(schedule, 15, Outcome.FAILED)
    assert schedule.due_at() == 45
    schedule.committed(16)
    assert schedule.due_at() == 45  # a commit does not hammer an unreachable remote
    schedule.requested(20)
    assert schedule.due_at() == 20  # the person asked: try now


def test_a_busy_lock_retries_soon_without_counting_as_a_failure() -> None:
    schedule = SyncSchedule(TIMING)
    run(schedule, 0, Outcome.OFFLINE)
    run(schedule, 15, Outcome.BUSY)
    assert schedule.failures == 1
    assert schedule.due_at() == 30


def test_the_backoff_never_overflows() -> None:
    assert TIMING.backoff(10_000) == 600
    assert TIMING.backoff(0) == 0


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"debounce": -1}, "sync timing debounce is -1 s; it must be 0 or more"),
        (
            {"debounce": 60, "max_delay": 30},
            "sync timing max_delay is 30 s, under debounce (60 s); it must be at least debounce",
        ),
        (
            {"retry_first": 60, "retry_cap": 10},
            "sync timing retry_cap is 10 s, under retry_first (60 s)",
        ),
    ],
)
def test_timing_errors_name_the_field_and_the_limit(values: dict[str, float], message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        SyncTiming(**values)


def test_the_default_timing_carries_a_decision_to_another_running_app_within_a_minute() -> None:
    """One machine syncs a debounce after the commit; the other's poll brings it at the
    latest a poll after its own last sync, with a few seconds left for the two syncs."""
    timing = SyncTiming()
    here, there = SyncSchedule(timing), SyncSchedule(timing)
    run(there, 0)  # the other app synced just before the commit: its poll is furthest away
    here.committed(0)
    pushed = here.due_at()
    assert pushed is not None and pushed <= 10
    fetched = there.due_at()
    assert fetched is not None and fetched <= 50
    assert timing.backoff(1) == timing.retry_first and timing.backoff(20) == timing.retry_cap
