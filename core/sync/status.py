"""What `sync status` reports: the state, the remote, where the key is, the last sync, conflicts.

Why read-only and cheap: the tray and `status --json` ask often; nothing here contacts the
remote, so "pending" means commits made here that the last fetch had not seen pushed.
"""

from __future__ import annotations

import time
from typing import Any

from core.sync import conflicts, peers
from core.sync.engine import SyncEngine
from core.sync.gitrepo import BRANCH, REMOTE
from core.sync.report import FAILED, OFFLINE, REFUSED, STALLED, STALLED_AFTER
from core.sync.state import RUNNING

INTERRUPTED = "interrupted"


def sync_status(engine: SyncEngine) -> dict[str, Any]:
    """A JSON-ready dict; `state` is off, synced, pending, offline, refused (the last sync
    refused files the remote sent, listed in `refusals`), syncing, stalled (a sync has said it
    is running for over `STALLED_AFTER`; `running_seconds` says how long), conflict or error
    (the last sync failed or was cut short: never `synced`). `machines` are the other writers
    (`core.sync.peers.Peer`): when each last wrote; `quiet_machines` the ids of those that
    fell quiet while this machine pushed."""
    if not engine.configured:
        return {"configured": False, "state": "off", "pending_commits": 0, "conflicts": []}
    config = engine.config()
    state = engine.files.state()
    slot = engine.files.slot()
    result, error = state.last_result, state.last_error
    if slot is not None and slot.result:  # written in place: true even when state.json was not
        result = INTERRUPTED if slot.interrupted else slot.result
        error = error or slot.error
        if slot.interrupted:
            error = "the last sync was cut short (killed or stopped); `sync now` resumes it"
    # the refusals state.json keeps are those of the sync it was saved by: a later sync that
    # stopped before saving it (no key, a kill) shows none of them as its own
    current = slot is None or not slot.result or slot.result == state.last_result
    refusals = state.refusals if current else []
    found = conflicts.list_conflicts(engine.root)
    pending = _pending_commits(engine)
    running = _running_seconds(engine) if result == RUNNING else 0
    state_word = _state_word(result, error, pending, len(found))
    known = peers.peers(state, config.machine)
    return {
        "configured": True,
        "state": STALLED if running > STALLED_AFTER else state_word,
        "running_seconds": running,
        "remote": engine.repo.text("remote", "get-url", REMOTE),
        "encrypted": config.encrypted,
        "key_storage": config.key_location.describe() if config.encrypted else "none",
        "machine": config.machine,
        "machine_name": config.machine_name,
        "last_sync_at": state.last_sync_at,
        "last_result": result,
        "last_error": error,
        "refused_at": state.refused_at if current else "",
        "refused_count": state.refused_count if current else 0,
        "refusals": refusals,
        "pending_commits": pending,
        "conflicts": [c.to_dict() for c in found],
        "machines": [p.to_dict() for p in known],
        "quiet_machines": [p.machine for p in known if p.quiet_seconds],
    }


def _running_seconds(engine: SyncEngine) -> int:
    """How long the result slot has said `running` (its last write)."""
    try:
        return max(0, int(time.time() - engine.files.slot_path.stat().st_mtime))
    except OSError:
        return 0


def _pending_commits(engine: SyncEngine) -> int:
    if engine.repo.rev("HEAD") is None:
        return 0
    pushed = engine.repo.rev(f"refs/remotes/{REMOTE}/{BRANCH}")
    span = f"{pushed}..HEAD" if pushed else "HEAD"
    return int(engine.repo.text("rev-list", "--count", span))


def _state_word(result: str, error: str, pending: int, conflict_count: int) -> str:
    if error or result in (FAILED, INTERRUPTED):
        return "error"
    if result == RUNNING:
        return "syncing"
    if result == REFUSED:
        return REFUSED
    if conflict_count:
        return f"conflict {conflict_count}"
    if result == OFFLINE:
        return OFFLINE
    return "pending" if pending else "synced"
