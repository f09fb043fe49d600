"""What one sync did, and what it refused of what the remote sent.

Why refusals are part of the report and not exceptions: a remote is hostile until checked, and
one bad file (a path outside the layout, an oversized blob, a record the store would not write,
a file changed without the key) must not stop the honest rest. Each refused file is named with
a reason kind and a plain message, applied files are counted, and a sync that refused
anything never reports itself as `synced`. The state file keeps the last refusals for
`sync status`, `doctor` and the tray.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from core.errors import REFUSED_ENTRY, ROLLBACK_ENTRY, TAMPERED_ENTRY

SYNCED = "synced"
OFFLINE = "offline"
REFUSED = "refused"
"""A sync that applied what passed its checks and refused the rest (named in the report)."""
FAILED = "error"
"""A sync that stopped: nothing it reports as applied is missing, the rest waits for the next."""

STALLED = "stalled"
"""`sync status`'s word for a sync that has said it is running for over `STALLED_AFTER`."""
STALLED_AFTER = 30 * 60
"""Seconds a sync may say it is running before it is called stalled: a whole join of a large
journal takes a few minutes, a hung remote or process never ends."""

UNSAFE_PATH = "unsafe-path"
"""A remote name or file mode outside the layout sync writes (`..`, `.git`, a link, a
submodule, an unknown folder, a name that is not UTF-8 or too long)."""
TOO_LARGE = "too-large"
"""A blob over the per-file cap, or a fetch over the per-sync cap."""
INVALID_RECORD = "invalid-record"
"""A record, revision or file the store would not write locally (schema, id, chain, limits,
redaction); kept in quarantine."""
TAMPERED = "tampered"
"""Changed on the remote by someone without the key (authentication failed)."""
ROLLBACK = "rollback"
"""The remote went back to an older state than one this machine already saw."""
UNDECRYPTABLE = "undecryptable"
"""Not an age file this journal's key opens (garbage, or encrypted to another key)."""
REFUSAL_KINDS = (UNSAFE_PATH, TOO_LARGE, INVALID_RECORD, TAMPERED, ROLLBACK, UNDECRYPTABLE)
KEPT_REFUSALS = 100
"""Refusals the state file keeps of the last sync that refused anything (the count is exact)."""


@dataclass(frozen=True, slots=True)
class Refusal:
    """One remote file (or the whole fetch) that was not applied.

    Attributes:
        name: the remote's name for it (a tree path, shown escaped when not printable), or
            the journal path when the remote name maps to one.
        kind: one of `REFUSAL_KINDS`.
        message: a plain sentence: what was wrong and the limit or rule it broke.
        path: the journal path it stands for, when known ("" otherwise).
    """

    name: str
    kind: str
    message: str
    path: str = ""

    def to_dict(self) -> dict[str, str]:
        return asdict(self)

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> Refusal:
        return cls(
            str(raw.get("name", "")),
            str(raw.get("kind", "")),
            str(raw.get("message", "")),
            str(raw.get("path", "")),
        )

    @property
    def entry(self) -> str:
        """The runbook entry that explains this kind of refusal."""
        return entry_of(self.kind)

    def line(self) -> str:
        """One line for a terminal or a log: kind, name, message."""
        return f"{self.kind}: {self.name}: {self.message}"


@dataclass(slots=True)
class SyncReport:
    """What one sync did: its result, files sent, received and applied, commits pushed (with
    any that waited from an earlier sync, merges left out), conflicts found, and what the
    remote sent that was refused."""

    result: str
    sent: int = 0
    received: int = 0
    pushed: int = 0
    waited: int = 0
    """Of `pushed`, the commits earlier syncs made (offline, or failed) that waited here."""
    new_conflicts: list[str] = field(default_factory=list)
    detail: str = ""
    applied: int = 0
    refused: list[Refusal] = field(default_factory=list)

    def refuse(self, refusal: Refusal) -> None:
        self.refused.append(refusal)

    def settle(self) -> None:
        """A sync that reached its end: `refused` when it refused anything."""
        if self.refused and self.result == SYNCED:
            self.result = REFUSED


def stalled_text(status: dict[str, Any]) -> str:
    """What a stalled sync is, in one sentence (doctor and the tray say the same)."""
    minutes = int(status.get("running_seconds", 0)) // 60
    return (
        f"a sync has said it is running for {minutes} minutes without finishing (stalled: a "
        "remote that stopped answering, or a process that hangs)"
    )


def entry_of(kind: str) -> str:
    """The runbook entry of a refusal kind: tampered and rollback have their own, the checks
    of names, sizes and the store's rules share `sync-files-refused`."""
    return {TAMPERED: TAMPERED_ENTRY, ROLLBACK: ROLLBACK_ENTRY}.get(kind, REFUSED_ENTRY)


def entries_of(refusals: list[Refusal]) -> list[str]:
    """The runbook entries of some refusals, each once, in the order first seen."""
    return list(dict.fromkeys(r.entry for r in refusals))


def printable_name(raw: bytes) -> str:
    """A remote name as text for a message: UTF-8 where it is, escapes for the rest and for
    control characters, so a hostile name can neither hide nor move the terminal's cursor."""
    text = raw.decode("utf-8", "backslashreplace")
    return "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in text)
