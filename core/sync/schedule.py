"""When the running app syncs: after commits (debounced), at start, on a poll, and on demand.

Why pure rules over a clock value passed in: the app arms one timer for `due_at()` and tells
the schedule what happened, so the timing is tested by stepping numbers, not by sleeping, and
nothing here knows about Qt. The defaults put a decision made on one machine on another within
a minute while both apps run (this side's debounce, then the other side's poll); an idle poll
is one `ls-remote` and a stat scan of the journal, so polling that often costs little. Offline
and failed syncs back off exponentially up to a cap; while backing off, commits and polls wait
for the retry, and only an explicit request skips it. Every request made while a sync runs is
served by one more sync after it ends (they coalesce).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from enum import Enum


class Outcome(Enum):
    """How one sync ended, as far as timing is concerned."""

    SYNCED = "synced"
    OFFLINE = "offline"
    FAILED = "failed"
    BUSY = "busy"
    """Another process held the sync lock for too long; try again soon, without backing off."""


@dataclass(frozen=True, slots=True)
class SyncTiming:
    """The intervals, in seconds.

    Attributes:
        debounce: quiet time after the last commit before its sync starts.
        max_delay: the longest a commit waits while further commits keep coming.
        start_delay: from the app's start to its first sync (the window warms up first).
        poll: between syncs while nothing else asks for one (what other machines pushed).
        retry_first: the first retry after an offline or failed sync; each further one
            doubles.
        retry_cap: the longest wait between retries.
    """

    debounce: float = 10.0
    max_delay: float = 60.0
    start_delay: float = 5.0
    poll: float = 45.0
    retry_first: float = 15.0
    retry_cap: float = 600.0

    def __post_init__(self) -> None:
        for item in fields(self):
            value = getattr(self, item.name)
            if value < 0:
                raise ValueError(f"sync timing {item.name} is {value} s; it must be 0 or more")
        if self.max_delay < self.debounce:
            raise ValueError(
                f"sync timing max_delay is {self.max_delay} s, under debounce "
                f"({self.debounce} s); it must be at least debounce"
            )
        if self.retry_cap < self.retry_first:
            raise ValueError(
                f"sync timing retry_cap is {self.retry_cap} s, under retry_first "
                f"({self.retry_first} s); it must be at least retry_first"
            )

    def backoff(self, failures: int) -> float:
        """The wait before the next try after `failures` failed syncs in a row (1 or more)."""
        if failures < 1:
            return 0.0
        exponent = min(failures - 1, 62)  # 2**62 seconds is past any cap
        return float(min(self.retry_cap, self.retry_first * 2**exponent))


class SyncSchedule:
    """The due times of one journal's syncs; `now` is a monotonic clock in seconds."""

    def __init__(self, timing: SyncTiming | None = None) -> None:
        self.timing = timing if timing is not None else SyncTiming()
        self.running = False
        self.failures = 0
        """Offline or failed syncs in a row; 0 after a sync that reached the remote."""
        self._commit_due: float | None = None
        self._first_commit: float | None = None
        self._asked_due: float | None = None
        self._poll_due: float | None = None
        self._retry_due: float | None = None

    # what happened ----------------------------------------------------------------------

    def committed(self, now: float) -> None:
        """A commit to the journal: sync once commits pause, or after `max_delay` at most."""
        if self._first_commit is None:
            self._first_commit = now
        latest = self._first_commit + self.timing.max_delay
        self._commit_due = min(now + self.timing.debounce, latest)

    def started(self, now: float) -> None:
        """The app started (or sync was just set up): one sync soon."""
        self._ask(now + self.timing.start_delay)

    def requested(self, now: float) -> None:
        """The user asked ("Sync now"): at once, even while backing off."""
        self._ask(now)

    def _ask(self, when: float) -> None:
        self._asked_due = when if self._asked_due is None else min(self._asked_due, when)

    def begin(self, now: float) -> bool:
        """A sync starts now; False when one already runs (the request waits for its end).

        What was due is served by this sync: it exports every commit made so far.
        """
        if self.running:
            return False
        self.running = True
        self._commit_due = self._first_commit = self._asked_due = None
        return True

    def finish(self, now: float, outcome: Outcome) -> None:
        """The running sync ended; requests made meanwhile stay due."""
        self.running = False
        if outcome is Outcome.SYNCED:
            self.failures = 0
            self._retry_due = None
            self._poll_due = now + self.timing.poll
        elif outcome is Outcome.BUSY:
            self._retry_due = now + self.timing.retry_first
        else:
            self.failures += 1
            self._retry_due = now + self.timing.backoff(self.failures)
            self._poll_due = None

    # what is due ------------------------------------------------------------------------

    def due_at(self) -> float | None:
        """When the next sync should start (None while one runs or nothing is due)."""
        if self.running:
            return None
        candidates: tuple[float | None, ...] = (self._commit_due, self._asked_due, self._poll_due)
        if self._retry_due is not None:
            candidates = (self._retry_due, self._asked_due)
        present = [when for when in candidates if when is not None]
        return min(present) if present else None

    @property
    def retry_at(self) -> float | None:
        """When the next try after an offline or failed sync is due, if one is."""
        return self._retry_due

    @property
    def changes_waiting(self) -> bool:
        """Whether commits were made that no sync has started to carry yet."""
        return self._first_commit is not None
