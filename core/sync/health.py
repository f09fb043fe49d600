"""What `doctor` checks of sync: the last result, files the remote sent that were refused (and
kept in quarantine), and whether the remote answers.

Why here and not in `core.doctor`: these checks read sync's state and run git, and sync sits
above the doctor in core's layers; the findings are the doctor's own `Finding`s, so they are
printed and counted with the journal's.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from core.doctor import Finding
from core.errors import (
    INTERRUPTED_ENTRY,
    OFFLINE_ENTRY,
    PEER_QUIET_ENTRY,
    REFUSED_ENTRY,
    ROLLBACK_ENTRY,
    JournalError,
)
from core.store.quarantine import FOLDER as QUARANTINE
from core.store.quarantine import RECEIVED
from core.sync.engine import SyncEngine
from core.sync.gitrepo import BRANCH, REMOTE, GitFailed
from core.sync.peers import machine_line, quiet_text
from core.sync.report import STALLED, entry_of, stalled_text
from core.sync.status import sync_status


@dataclass(slots=True)
class SyncHealth:
    """Sync's findings, and one line about the remote (empty when sync is off)."""

    findings: list[Finding] = field(default_factory=list)
    remote_line: str = ""
    machine_lines: list[str] = field(default_factory=list)
    """One line per other machine: when its newest authenticated state was written."""


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
    if status["state"] == STALLED:
        health.findings.append(Finding(where, stalled_text(status), INTERRUPTED_ENTRY))
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
    for peer in status.get("machines", []):
        health.machine_lines.append(f"Sync: {machine_line(peer)}.")
        if peer["quiet_seconds"]:
            health.findings.append(Finding(where, quiet_text(peer), PEER_QUIET_ENTRY))
    if contact_remote:
        health.remote_line = _remote_line(engine, health.findings, where)
    return health


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
