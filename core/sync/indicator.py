"""What the tray and the journal window say about sync: one state, a headline and a tooltip.

Why here and not in the widgets: the tray menu, the tray tooltip and the window's status bar
show the same state in the same words, and the words (local times, plurals, the runbook entry
an error names) are tested without Qt. `diagnose` turns whatever a sync raised into the entry
that explains it, so no failure reaches the screen without one.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from core.errors import (
    CONFLICT_ENTRY,
    INTERRUPTED_ENTRY,
    OFFLINE_ENTRY,
    PEER_QUIET_ENTRY,
    JournalError,
    LockCancelled,
    is_storage_failure,
    storage_failure,
)
from core.gocompat.gotime import GoTime
from core.messages.wording import count
from core.sync.peers import machine_line, quiet_span, quiet_text
from core.sync.report import STALLED, entry_of, stalled_text
from core.sync.schedule import Outcome

OFF = "off"
SYNCED = "synced"
PENDING = "pending"
OFFLINE = "offline"
CONFLICT = "conflict"
ERROR = "error"
REFUSED = "refused"
"""The last sync applied what passed its checks and refused files the remote sent: shown as a
tampered remote, with its runbook entry, never as synced."""


@dataclass(frozen=True, slots=True)
class Diagnosis:
    """One failed sync: how the schedule treats it, the runbook entry, the message."""

    outcome: Outcome
    entry: str
    message: str


def diagnose(error: BaseException) -> Diagnosis:
    """The entry and the retry rule for an exception a sync raised.

    A lock wait that timed out means another process's sync ran long: try again soon. An
    error the code did not foresee leaves the working copy as a killed sync would, and the
    next sync resumes it, so it names the interrupted-sync entry.
    """
    if isinstance(error, LockCancelled):
        return Diagnosis(Outcome.BUSY, INTERRUPTED_ENTRY, str(error))
    if isinstance(error, OSError) and is_storage_failure(error):
        error = storage_failure(error, "sync", error.filename or "the journal")
    if isinstance(error, JournalError) and error.runbook_anchor:
        return Diagnosis(Outcome.FAILED, error.runbook_anchor, str(error))
    return Diagnosis(Outcome.FAILED, INTERRUPTED_ENTRY, str(error) or type(error).__name__)


@dataclass(frozen=True, slots=True)
class SyncView:
    """Everything shown about sync at one moment.

    Attributes:
        state: off, synced, pending, offline, refused, conflict or error.
        last_synced: when a sync last reached the remote (None: not since the app started
            and the state file does not say).
        retry_at: when an offline or failed sync is tried again.
        conflicts: the ids of the decisions in conflict, in the journal's order.
        entry: the runbook entry of an error, an offline remote or a conflict.
        detail: the error's message, or why the remote is out of reach.
        pending_commits: commits made here that the remote has not seen.
        changes_waiting: commits to the journal that no sync has carried yet.
        running: a sync is running now.
        peers: the other machines (`core.sync.peers.Peer.to_dict`): when each last wrote.
    """

    state: str = OFF
    last_synced: datetime | None = None
    retry_at: datetime | None = None
    conflicts: tuple[str, ...] = ()
    entry: str = ""
    detail: str = ""
    pending_commits: int = 0
    changes_waiting: bool = False
    running: bool = False
    peers: tuple[dict[str, Any], ...] = ()

    @property
    def configured(self) -> bool:
        return self.state != OFF

    @property
    def quiet(self) -> tuple[dict[str, Any], ...]:
        """The other machines that fell quiet while this one pushed (`core.sync.peers`)."""
        return tuple(p for p in self.peers if p.get("quiet_seconds"))


def view_of(
    status: dict[str, Any],
    *,
    failure: Diagnosis | None = None,
    offline_reason: str = "",
    last_synced: datetime | None = None,
    retry_at: datetime | None = None,
    changes_waiting: bool = False,
    running: bool = False,
) -> SyncView:
    """The view for a `sync_status` dict and what this process knows beyond it.

    Args:
        status: `core.sync.status.sync_status` of the journal.
        failure: the last sync's failure, when it failed (its state file's `last_error`
            alone names no entry, so an error is shown only from a failure seen here).
        offline_reason: why the last sync found the remote out of reach.
        last_synced: when a sync last reached the remote; default: the state file's time,
            when its last result was a sync.
        retry_at: the next try after an offline or failed sync.
        changes_waiting: commits were made that no sync has started to carry.
        running: a sync runs now.
    """
    if not status.get("configured"):
        return SyncView()
    if last_synced is None and status.get("last_result") == SYNCED and status["last_sync_at"]:
        last_synced = GoTime.parse(status["last_sync_at"]).to_datetime()
    conflicts = tuple(str(item["id"]) for item in status.get("conflicts", []))
    pending = int(status.get("pending_commits", 0))
    state, entry, detail = _state(status, failure, offline_reason, conflicts, pending)
    known = tuple(status.get("machines", []))
    quiet = [p for p in known if p.get("quiet_seconds")]
    if quiet and state in (SYNCED, PENDING):
        entry, detail = PEER_QUIET_ENTRY, quiet_text(quiet[0])
    return SyncView(
        state=state,
        last_synced=last_synced,
        retry_at=retry_at if state in (OFFLINE, ERROR) else None,
        conflicts=conflicts,
        entry=entry,
        detail=detail,
        pending_commits=pending,
        changes_waiting=changes_waiting,
        running=running,
        peers=known,
    )


def _state(
    status: dict[str, Any],
    failure: Diagnosis | None,
    offline_reason: str,
    conflicts: tuple[str, ...],
    pending: int,
) -> tuple[str, str, str]:
    if failure is not None and failure.outcome is Outcome.FAILED:
        return ERROR, failure.entry, failure.message
    if status.get("state") == STALLED:
        return ERROR, INTERRUPTED_ENTRY, stalled_text(status)
    if status.get("state") == ERROR:  # a failure this process did not see (a terminal's sync)
        return ERROR, INTERRUPTED_ENTRY, str(status.get("last_error") or "the last sync failed")
    if status.get("last_result") == REFUSED:
        first = (status.get("refusals") or [{}])[0]
        return REFUSED, entry_of(str(first.get("kind", ""))), _refusal_detail(status)
    if conflicts:
        return CONFLICT, CONFLICT_ENTRY, ""
    if status.get("last_result") == OFFLINE:
        return OFFLINE, OFFLINE_ENTRY, offline_reason
    return (PENDING if pending else SYNCED), "", ""


def _refusal_detail(status: dict[str, Any]) -> str:
    refusals = status.get("refusals") or []
    total = int(status.get("refused_count") or len(refusals))
    first = refusals[0] if refusals else {}
    named = f" (first: {first.get('kind', '')} {first.get('name', '')})" if first else ""
    return f"{count(total, 'file')} refused{named}"


# words ------------------------------------------------------------------------------------


def clock_time(moment: datetime, now: datetime | None = None) -> str:
    """Local time: "14:05" today, "28 Nov 14:05" on another day."""
    local = moment.astimezone()
    today = (now or datetime.now().astimezone()).astimezone().date()
    return local.strftime("%H:%M") if local.date() == today else local.strftime("%d %b %H:%M")


def headline(view: SyncView, now: datetime | None = None) -> str:
    """The short line of the tray menu and the status bar ("" while sync is off)."""
    if view.state == OFF:
        return ""
    if view.state == ERROR:
        return f"Sync error: {view.entry}"
    if view.state == REFUSED:
        return "Sync: remote tampered, files refused"
    if view.state == CONFLICT:
        return count(len(view.conflicts), "sync conflict")
    if view.running:
        return "Syncing…"
    if view.state == OFFLINE:
        if view.retry_at is None:
            return "Offline"
        return f"Offline, will retry at {clock_time(view.retry_at, now)}"
    if view.quiet:
        first = view.quiet[0]
        return f"Sync: no news from {first['name'] or first['machine']} for {quiet_span(first)}"
    if view.state == PENDING or view.changes_waiting:
        return "Changes not yet synced"
    if view.last_synced is None:
        return "Synced"
    return f"Synced {clock_time(view.last_synced, now)}"


def explanation(view: SyncView, now: datetime | None = None) -> str:
    """The tooltip: what the state means, what happens next, and the runbook entry."""
    if view.state == OFF:
        return ""
    lines = [_meaning(view, now)]
    if view.pending_commits and view.state != SYNCED:
        lines.append(f"{count(view.pending_commits, 'local commit')} not yet on the remote.")
    if view.last_synced is not None and view.state != SYNCED:
        lines.append(f"Last synced {clock_time(view.last_synced, now)}.")
    for peer in view.peers:
        lines.append(_capital(machine_line(peer, lambda stamp: _clock(stamp, now))) + ".")
    if view.entry:
        lines.append(f"Runbook: decision-journal help runbook {view.entry}")
    return "\n".join(lines)


def _clock(stamp: str, now: datetime | None) -> str:
    moment = GoTime.parse_or_none(stamp) if stamp else None
    return clock_time(moment.to_datetime(), now) if moment is not None else stamp


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _meaning(view: SyncView, now: datetime | None) -> str:
    retry = f" Will retry at {clock_time(view.retry_at, now)}." if view.retry_at else ""
    if view.state == ERROR:
        return f"Sync stopped: {view.detail.rstrip('.')}.{retry}"
    if view.state == REFUSED:
        return (
            f"The remote sent files no machine of this journal writes: {view.detail}. They were "
            "not applied; everything else was."
        )
    if view.state == CONFLICT:
        decisions = count(len(view.conflicts), "decision")
        return (
            f"{decisions} changed on two machines; both versions are kept. Click to compare "
            "them and keep one."
        )
    if view.state == OFFLINE:
        reason = f" ({view.detail})" if view.detail else ""
        return f"The remote is out of reach{reason}; changes made here wait.{retry}"
    if view.running:
        return "Syncing with the remote now."
    if view.quiet:
        return f"{_capital(view.detail)}."
    if view.state == PENDING or view.changes_waiting:
        return "Changes made here are not on the remote yet; they sync shortly."
    return "This journal matches the remote."
