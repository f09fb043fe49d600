"""What the tray and the window say about sync, from a status dict and what the app saw."""

from __future__ import annotations

import errno
from datetime import datetime, timedelta
from typing import Any

from core.errors import LockCancelled, SyncKeyUnavailable, SyncNotConfigured
from core.sync.gitrepo import GitFailed
from core.sync.indicator import (
    CONFLICT,
    ERROR,
    OFF,
    OFFLINE,
    PENDING,
    SYNCED,
    Diagnosis,
    SyncView,
    clock_time,
    diagnose,
    explanation,
    headline,
    view_of,
)
from core.sync.schedule import Outcome

NOW = datetime(2026, 12, 1, 14, 30).astimezone()


def status(**values: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "configured": True,
        "state": "synced",
        "last_sync_at": "",
        "last_result": "",
        "last_error": "",
        "pending_commits": 0,
        "conflicts": [],
    }
    base.update(values)
    return base


def test_a_journal_that_does_not_sync_shows_nothing() -> None:
    view = view_of({"configured": False, "state": "off", "pending_commits": 0, "conflicts": []})
    assert view.state == OFF and not view.configured
    assert headline(view) == "" and explanation(view) == ""


def test_synced_shows_the_last_sync_in_local_time() -> None:
    moment = NOW.replace(hour=14, minute=5)
    view = view_of(status(last_result="synced"), last_synced=moment)
    assert view.state == SYNCED
    assert headline(view, NOW) == "Synced 14:05"
    assert explanation(view, NOW) == "This journal matches the remote."


def test_the_state_files_time_is_used_until_the_app_syncs() -> None:
    stamp = NOW.replace(hour=9, minute=41)
    text = stamp.astimezone().strftime("%Y-%m-%dT%H:%M:%S%z")
    text = f"{text[:-2]}:{text[-2:]}"
    view = view_of(status(last_result="synced", last_sync_at=text))
    assert headline(view, NOW) == "Synced 09:41"


def test_another_days_time_names_the_day() -> None:
    yesterday = NOW - timedelta(days=1)
    assert clock_time(yesterday, NOW) == yesterday.strftime("%d %b %H:%M")


def test_commits_not_yet_pushed_are_pending() -> None:
    view = view_of(status(pending_commits=2, last_result="synced"))
    assert view.state == PENDING
    assert headline(view, NOW) == "Changes not yet synced"
    assert "2 local commits not yet on the remote." in explanation(view, NOW)
    waiting = view_of(status(last_result="synced"), changes_waiting=True)
    assert headline(waiting, NOW) == "Changes not yet synced"


def test_offline_says_when_it_retries_and_names_its_entry() -> None:
    retry = NOW.replace(hour=14, minute=37)
    view = view_of(
        status(last_result="offline", pending_commits=1),
        offline_reason="Could not resolve host: git.example.com",
        retry_at=retry,
    )
    assert view.state == OFFLINE and view.entry == "sync-offline"
    assert headline(view, NOW) == "Offline, will retry at 14:37"
    tip = explanation(view, NOW)
    assert "The remote is out of reach (Could not resolve host: git.example.com)" in tip
    assert "Will retry at 14:37." in tip
    assert tip.endswith("Runbook: decision-journal help runbook sync-offline")


def test_conflicts_are_counted_and_listed_in_order() -> None:
    found = [{"id": "decision-b"}, {"id": "decision-c"}]
    view = view_of(status(conflicts=found, last_result="synced"))
    assert view.state == CONFLICT
    assert view.conflicts == ("decision-b", "decision-c")
    assert headline(view, NOW) == "2 sync conflicts"
    assert headline(view_of(status(conflicts=found[:1]))) == "1 sync conflict"
    assert explanation(view, NOW).startswith("2 decisions changed on two machines")


def test_an_error_names_its_entry_and_wins_over_everything_else() -> None:
    failure = Diagnosis(Outcome.FAILED, "sync-auth-failed", "git fetch failed: denied.")
    view = view_of(
        status(conflicts=[{"id": "decision-b"}], last_result="error"),
        failure=failure,
        retry_at=NOW.replace(minute=45),
        running=True,
    )
    assert view.state == ERROR
    assert headline(view, NOW) == "Sync error: sync-auth-failed"
    tip = explanation(view, NOW)
    assert tip.startswith("Sync stopped: git fetch failed: denied. Will retry at 14:45.")
    assert tip.endswith("Runbook: decision-journal help runbook sync-auth-failed")


def test_a_state_file_error_alone_is_not_shown_without_an_entry() -> None:
    view = view_of(status(last_result="error", last_error="git push failed: x"))
    assert view.state == SYNCED


def test_a_running_sync_says_so_unless_something_needs_the_person() -> None:
    assert headline(view_of(status(), running=True)) == "Syncing…"
    conflict = view_of(status(conflicts=[{"id": "decision-b"}]), running=True)
    assert headline(conflict) == "1 sync conflict"


def test_diagnose_gives_every_failure_an_entry() -> None:
    assert diagnose(SyncKeyUnavailable("no keyring")) == Diagnosis(
        Outcome.FAILED, "sync-key-unavailable", "no keyring"
    )
    assert diagnose(SyncNotConfigured("off")).entry == "sync-not-set-up"
    busy = diagnose(LockCancelled("timed out waiting for the lock on sync"))
    assert busy.outcome is Outcome.BUSY and busy.entry == "sync-interrupted"
    auth = GitFailed(("fetch", "-q"), "git@host: Permission denied (publickey).\n")
    assert diagnose(auth).entry == "sync-auth-failed"
    full = OSError(errno.ENOSPC, "No space left on device", "/j/sync/x")
    assert diagnose(full).entry == "disk-full"
    surprise = diagnose(RuntimeError("boom"))
    assert surprise == Diagnosis(Outcome.FAILED, "sync-interrupted", "boom")


def test_views_compare_by_value() -> None:
    assert SyncView() == view_of({"configured": False})


def test_a_stalled_sync_is_an_error_with_its_runbook_entry_not_synced() -> None:
    view = view_of(status(state="stalled", last_result="running", running_seconds=3 * 3600))
    assert view.state == ERROR and view.entry == "sync-interrupted"
    assert headline(view, NOW) == "Sync error: sync-interrupted"
    assert "running for 180 minutes" in explanation(view, NOW)
