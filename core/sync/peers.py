"""The other machines that write this journal: when each last wrote, and which fell quiet.

Why: a remote can freeze (TUF's "freeze attack"): keep showing this machine an old state of
another machine, for example the decider ledger before that machine demoted a kind from
automatic answers, while it accepts this machine's pushes. Manifests cannot stop that (an old
manifest is genuine), and this machine cannot tell a frozen remote from a machine that is
switched off. So it is honest about what it knows: for each other machine, the number and the
time of its newest manifest this machine verified (the time is the writer's own clock, inside
the MAC), and a warning when a machine it heard from before has been quiet for longer than
`QUIET_AFTER` while this machine pushed states that machine has not seen. `sync status`,
`doctor` and the tray show both (runbook `sync-peer-quiet`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from core.gocompat.gotime import GoTime
from core.messages.wording import count
from core.sync.manifests import Manifest
from core.sync.state import SyncState

QUIET_AFTER = 3 * 24 * 3600
"""Seconds another machine may write nothing while this machine pushes before it is called
quiet: a machine used every working day writes within a long weekend."""
_NS = 1_000_000_000


@dataclass(frozen=True, slots=True)
class Peer:
    """What this machine knows of one other writer."""

    machine: str
    name: str
    seq: int
    """The number of its newest manifest this machine verified."""
    written_at: str
    """When it wrote that manifest, by its clock ("" when its version does not say)."""
    heard_at: str
    """When that manifest first reached this machine, by this machine's clock."""
    saw_this_machine: int
    """The number of this machine's manifest it had seen when it wrote that one."""
    unseen: int
    """This machine's manifests pushed since, which it has not seen."""
    quiet_seconds: int
    """How long it has written nothing while this machine pushed (0 unless over
    `QUIET_AFTER`)."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def learn(state: SyncState, manifest: Manifest, own: str) -> None:
    """Keeps a verified manifest of another machine when it is newer than the one held."""
    if manifest.machine == own:
        return
    held = state.peers.get(manifest.machine)
    if held is not None and int(held.get("seq", 0)) >= manifest.seq:
        return
    state.peers[manifest.machine] = {
        "seq": manifest.seq,
        "at": manifest.at,
        "heard_at": GoTime.now().format(),
        "saw": manifest.seen.get(own, 0),
    }


def peers(state: SyncState, own: str, now_ns: int | None = None) -> list[Peer]:
    """Every other machine this machine verified a manifest of, by name."""
    now = _now_ns() if now_ns is None else now_ns
    mine = state.seen.get(own, 0)
    found = []
    for machine, held in state.peers.items():
        seq, saw = int(held.get("seq", 0)), int(held.get("saw", 0))
        written, heard = str(held.get("at", "")), str(held.get("heard_at", ""))
        since = _unix_ns(written) or _unix_ns(heard)
        silent = max(0, (now - since) // _NS) if since else 0
        unseen = max(0, mine - saw)
        found.append(
            Peer(
                machine,
                state.machines.get(machine, ""),
                seq,
                written,
                heard,
                saw,
                unseen,
                silent if unseen and silent > QUIET_AFTER else 0,
            )
        )
    return sorted(found, key=lambda p: (p.name, p.machine))


def _now_ns() -> int:
    return GoTime.now().unix_ns


def quiet_text(peer: dict[str, Any]) -> str:
    """The warning for a quiet machine (a `Peer.to_dict`), in one sentence."""
    return (
        f"machine {label(peer)} has written nothing for {quiet_span(peer)} while this machine "
        f"pushed {count(int(peer['unseen']), 'state')} it has not seen: it may be switched off, "
        "or the remote may be showing this machine an old state of it (frozen), so a change "
        "made there (a kind demoted from automatic answers, an overrule) may not have arrived"
    )


def quiet_span(peer: dict[str, Any]) -> str:
    """How long a quiet machine has written nothing: "4 days" (hours under a day)."""
    seconds = int(peer["quiet_seconds"])
    return count(seconds // 86400, "day") if seconds >= 86400 else count(seconds // 3600, "hour")


def machine_line(peer: dict[str, Any], when: Callable[[str], str] | None = None) -> str:
    """ "machine desk (0a0a0a0a) last wrote its state at 2026-12-02 01:31 UTC (manifest 14); it
    has not seen this machine's last 2 states"; `when` words a time (default: UTC)."""
    words = when or utc_words
    written = words(peer["written_at"]) if peer["written_at"] else ""
    if not written:
        written = f"{words(peer['heard_at'])} or before (when it arrived here)"
    line = f"machine {label(peer)} last wrote its state at {written} (manifest {peer['seq']})"
    if peer["unseen"]:
        line += f"; it has not seen this machine's last {count(int(peer['unseen']), 'state')}"
    return line


def utc_words(stamp: str) -> str:
    moment = GoTime.parse_or_none(stamp) if stamp else None
    if moment is None:
        return stamp or "an unknown time"
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(moment.unix_ns // _NS))


def label(peer: dict[str, Any]) -> str:
    """ "desk (0a0a0a0a)", or the id alone for a machine whose name is not known."""
    return f"{peer['name']} ({peer['machine']})" if peer.get("name") else str(peer["machine"])


def _unix_ns(stamp: str) -> int:
    moment = GoTime.parse_or_none(stamp) if stamp else None
    return moment.unix_ns if moment is not None else 0
