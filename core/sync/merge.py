"""The merge rules: how two machines' versions of one record or one log meet without loss.

History revisions are immutable and every revision names its predecessor only by number, so
one side *descends* from the other when its chain holds the other's current file byte for byte
at that revision. Then the newer side wins and nothing is lost. Otherwise both machines wrote
their own revision from a common one: the record is in conflict, both sides' divergent
revisions are kept beside the journal, and the chain at the higher revision stays in `records/`
and `history/` (the local one on a tie), so no machine ever takes a record to a lower revision
or pushes a tree without a history revision another machine wrote.

Two machines that wrote the same content on their own (each imported the same decisions.md
row, or made the same deletion) are not in conflict: their chains differ only in the times
each machine stamped (`STAMPS`). The chain stamped first stands everywhere (ties: the smaller
bytes), which both machines compute alike, so they converge without asking the user; the
other's stamps are the only thing not kept (each machine's own ledger, an import ledger or
the decider's, still says when it wrote them).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from core.gocompat.gotime import GoTime

SAME = "same"
LOCAL = "local"
REMOTE = "remote"
CONFLICT = "conflict"

STAMPS = ("updated_at", "deleted_at")
"""The fields a machine stamps with its own clock when it writes a revision: two revisions
that differ only in these hold the same decision."""


@dataclass(slots=True)
class RecordSide:
    """One machine's copy of one record: the current file and its history revisions."""

    current: bytes | None
    history: dict[int, bytes] = field(default_factory=dict)

    @property
    def revision(self) -> int:
        if self.current is None:
            return 0
        value = json.loads(self.current).get("revision", 0)
        return value if isinstance(value, int) else 0

    def chain(self) -> dict[int, bytes]:
        """Revision → bytes, the current file included."""
        versions = dict(self.history)
        if self.current is not None:
            versions[self.revision] = self.current
        return versions


@dataclass(slots=True)
class RecordMerge:
    """The outcome, and for a conflict the first divergent revision and both sides from it."""

    outcome: str
    fork: int = 0
    local: dict[int, bytes] = field(default_factory=dict)
    remote: dict[int, bytes] = field(default_factory=dict)


def merge_record(local: RecordSide, remote: RecordSide) -> RecordMerge:
    """Which side's record stands; see the module docstring for the rule."""
    if remote.current is None or local.current == remote.current:
        return RecordMerge(SAME if local.current == remote.current else LOCAL)
    if local.current is None:
        return RecordMerge(REMOTE)
    mine, theirs = local.revision, remote.revision
    if theirs > mine and remote.history.get(mine) == local.current:
        return RecordMerge(REMOTE)
    if mine > theirs and local.history.get(theirs) == remote.current:
        return RecordMerge(LOCAL)
    ours, other = local.chain(), remote.chain()
    if mine == theirs and _same_content(ours, other):
        return RecordMerge(LOCAL if _first_written(ours[mine], other[theirs]) else REMOTE)
    fork = next(
        (n for n in range(1, max(mine, theirs) + 1) if ours.get(n) != other.get(n)),
        min(mine, theirs),
    )
    return RecordMerge(
        CONFLICT,
        fork,
        {n: data for n, data in ours.items() if n >= fork},
        {n: data for n, data in other.items() if n >= fork},
    )


def _same_content(ours: dict[int, bytes], other: dict[int, bytes]) -> bool:
    """Whether two chains of the same revisions differ only in their `STAMPS`."""
    if ours.keys() != other.keys():
        return False
    return all(_unstamped(ours[n]) == _unstamped(other[n]) for n in ours)


def _unstamped(data: bytes) -> object:
    try:
        value = json.loads(data)
    except ValueError:
        return data
    if isinstance(value, dict):
        for stamp in STAMPS:
            value.pop(stamp, None)
    return value


def _first_written(mine: bytes, theirs: bytes) -> bool:
    """Whether this machine's revision of the same content stands: the earlier `updated_at`,
    then the smaller bytes (so both machines pick the same one)."""
    return (_stamped_at(mine), mine) <= (_stamped_at(theirs), theirs)


def _stamped_at(data: bytes) -> int:
    try:
        at = json.loads(data).get("updated_at")
        return GoTime.parse(at).unix_ns if isinstance(at, str) else 0
    except (ValueError, TypeError, AttributeError):
        return 0


def merge_lines(local: bytes, remote: bytes) -> bytes:
    """An append-only log with both machines' lines, in one canonical order whichever side
    merges: the lines both files begin with, in their order, then every other line once,
    sorted by `line_key`. So two machines that merge the same two files write the same bytes
    and stop pushing each other a reordered copy. A torn last line (a writer killed
    mid-append) is unreadable on either side and is dropped, so the file ends on a whole line."""
    ours, theirs = _whole_lines(local), _whole_lines(remote)
    shared = 0
    while shared < min(len(ours), len(theirs)) and ours[shared] == theirs[shared]:
        shared += 1
    head = ours[:shared]
    seen = set(head)
    rest = {line for line in ours[shared:] + theirs[shared:] if line not in seen}
    return b"".join(head + sorted(rest, key=line_key))


def line_key(line: bytes) -> tuple[int, bytes]:
    """A log line's place: its `at` time (ledgers, outcome signals) when it has one, then its
    bytes; a line without a time (an agent note) sorts by its bytes before timed ones."""
    try:
        value = json.loads(line)
        at = value.get("at") if isinstance(value, dict) else None
        return (GoTime.parse(at).unix_ns if isinstance(at, str) else 0), line
    except (ValueError, TypeError):
        return 0, line


def _whole_lines(data: bytes) -> list[bytes]:
    lines = data.splitlines(keepends=True)
    return [line for line in lines if line.endswith(b"\n") and line.strip()]
