"""What `doctor` checks of sync: the last result, files the remote sent that were refused (and
kept in quarantine), and whether the remote answers.

Why here and not in `core.doctor`: these checks read sync's state and run git, and sync sits
above the doctor in core's layers; the findings are the doctor's own `Finding`s, so they are
printed and counted with the journal's.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from core.doctor import Finding
from core.errors import (
    INTERRUPTED_ENTRY,
    OFFLINE_ENTRY,
    REFUSED_ENTRY,
    ROLLBACK_ENTRY,
    JournalError,
)
from core.store.quarantine import FOLDER as QUARANTINE
from core.store.quarantine import RECEIVED
from core.sync.engine import SyncEngine
from core.sync.gitrepo import BRANCH, REMOTE, GitFailed
from core.sync.report import entry_of
from core.sync.state import RUNNING
from core.sync.status import sync_status

STALLED_AFTER = 30 * 60
"""Seconds a sync may say it is running before doctor calls it stalled: a whole join of a
large journal takes a few minutes, a hung remote or process never ends."""


@dataclass(slots=True)
class SyncHealth:
    """Sync's findings, and one line about the remote (empty when sync is off)."""

    findings: list[Finding] = field(default_factory=list)
    remote_line: str = ""


def check_sync(root: Path, *, contact_remote: bool = True) -> SyncHealth:
    """The sync checks of one journal; nothing when it does not sync."""
    health = SyncHealth()
    health.findings += quarantined_findings(root)
    engine = SyncEngine(root)
    if not engine.configured:
        return health
    where = str(engine.files.working_copy)
    try:
        status = sync_status(engine)
    except (JournalError, OSError, ValueError) as exc:
        health.findings.append(
            Finding(where, f"sync's state cannot be read: {exc}", INTERRUPTED_ENTRY)
        )
        return health
    if status["state"] == "error":
        error = status["last_error"] or "the last sync failed"
        health.findings.append(Finding(where, f"the last sync failed: {error}", INTERRUPTED_ENTRY))
    if status["state"] == "syncing" and (since := _running_since(engine)) is not None:
        health.findings.append(
            Finding(
                where,
                f"a sync has said it is running for {since // 60} minutes without finishing "
                "(stalled: a remote that stopped answering, or a process that hangs)",
                INTERRUPTED_ENTRY,
            )
        )
    if status["state"] == "refused":
        first = (status["refusals"] or [{}])[0]
        health.findings.append(
            Finding(
                where,
                f"the last sync refused {status['refused_count']} file(s) the remote sent "
                f"(first: {first.get('kind', '')} {first.get('name', '')})",
                entry_of(str(first.get("kind", ""))),
            )
        )
    if contact_remote:
        health.remote_line = _remote_line(engine, health.findings, where)
    return health


def _running_since(engine: SyncEngine) -> int | None:
    """Seconds the result slot has said `running`, when that is over `STALLED_AFTER`."""
    try:
        age = int(time.time() - engine.files.slot_path.stat().st_mtime)
    except OSError:
        return None
    slot = engine.files.slot()
    return age if slot is not None and slot.result == RUNNING and age > STALLED_AFTER else None


def _remote_line(engine: SyncEngine, findings: list[Finding], where: str) -> str:
    try:
        listed = engine.repo.run("ls-remote", "--heads", REMOTE, f"refs/heads/{BRANCH}")
        if not listed.stdout.strip() and _synced_before(engine):
            findings.append(Finding(where, WIPED_FINDING, ROLLBACK_ENTRY))
            return "Sync: the remote answers but holds no journal (see above)."
    except GitFailed as exc:
        if exc.unreachable:
            return f"Sync: the remote is out of reach now ({exc.reason}); changes made here wait."
        findings.append(Finding(where, f"the remote refuses: {exc}", exc.runbook_anchor))
        return "Sync: the remote refuses this machine (see above)."
    except JournalError as exc:
        findings.append(Finding(where, str(exc), exc.runbook_anchor or OFFLINE_ENTRY))
        return "Sync: the remote could not be asked (see above)."
    return "Sync: the remote answers."


WIPED_FINDING = (
    "the remote holds no journal branch though this machine synced with it (deleted, or the "
    "remote replaced by an empty repository); the next sync pushes this machine's journal back"
)


def _synced_before(engine: SyncEngine) -> bool:
    """Whether this machine fetched from the remote, or heard from its writers, before."""
    if engine.repo.rev(f"refs/remotes/{REMOTE}/{BRANCH}") is not None:
        return True
    try:
        return bool(engine.files.state().seen)
    except (JournalError, OSError, ValueError):
        return False


def quarantined_findings(root: Path) -> list[Finding]:
    """One finding per quarantine folder holding files sync received and refused."""
    base = root / QUARANTINE
    found = []
    for received in sorted(base.glob(f"*/{RECEIVED}")) if base.is_dir() else []:
        if received.is_symlink() or not received.is_dir():
            continue
        files = [
            os.path.join(d, n)
            for d, _, names in os.walk(received, followlinks=False)
            for n in names
        ]
        if files:
            found.append(
                Finding(
                    str(received),
                    f"{files} file(s) another machine sent were refused and kept here",
                    REFUSED_ENTRY,
                )
            )
    return found
