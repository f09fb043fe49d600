"""Sync conflicts kept beside the journal: `sync-conflicts/<id>/`, and their resolution.

Why outside `records/` and `history/`: KernForge reads those strictly, so a second version of a
revision there would make the journal unreadable. The folder moves with the journal, so every
machine sees the same conflict, and resolving it on any one (`core.sync.resolution`) writes
the next revision of the current record through the store's compare-and-swap and removes the
folder everywhere.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core import limits
from core.errors import InvalidDecision, SyncConflictUnknown
from core.record.codec import decode_stored_record
from core.record.models import DecisionRecord
from core.record.validation import check_decision_id
from core.store.correction_notes import read_note_file
from core.store.safefs import atomic_write, ensure_private_dir, read_regular_file
from core.sync.merge import RecordMerge
from core.sync.paths import CONFLICTS

SUMMARY = "conflict.json"


@dataclass(slots=True)
class Conflict:
    """One conflicted record: the revision both sides wrote, who wrote which, whose is current."""

    record_id: str
    fork: int
    current: str
    versions: dict[str, dict[str, Any]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.record_id,
            "fork_revision": self.fork,
            "current": self.current,
            "versions": self.versions,
        }


def conflict_files(
    record_id: str,
    merge: RecordMerge,
    sides: tuple[tuple[str, str], tuple[str, str]],
    earlier: Conflict | None = None,
    notes: tuple[dict[int, bytes], dict[int, bytes]] = ({}, {}),
) -> dict[str, bytes]:
    """Journal-relative path → bytes for a conflict: both sides' divergent revisions (named
    `revision-NNNNNN.<machine>.json`), the correction note each side saved with them
    (`note-NNNNNN.<machine>.json`: both sides' notes of revision N share one path in
    `corrections/`, so each travels with its version here) and the summary. `sides` are
    (machine id, machine name) of the side whose version stays current, then the
    other's; `notes` are each side's note files by revision, in the same order. A conflict
    already waiting for this record (`earlier`) keeps every version it listed."""
    folder = f"{CONFLICTS}/{record_id}"
    files: dict[str, bytes] = {}
    versions = {m: dict(v) for m, v in earlier.versions.items()} if earlier else {}
    for (machine, name), side, side_notes in zip(
        sides, (merge.local, merge.remote), notes, strict=True
    ):
        known = set(versions.get(machine, {}).get("revisions", []))
        versions[machine] = {"name": name, "revisions": sorted(known | set(side))}
        for number, data in side.items():
            files[f"{folder}/{_file_name('revision', number, machine)}"] = data
            if number in side_notes:
                files[f"{folder}/{_file_name('note', number, machine)}"] = side_notes[number]
    fork = min(merge.fork, earlier.fork) if earlier else merge.fork
    conflict = Conflict(record_id, fork, sides[0][0], versions)
    files[f"{folder}/{SUMMARY}"] = _encode(conflict.to_dict())
    return files


def _file_name(kind: str, number: int, machine: str) -> str:
    return f"{kind}-{number:06d}.{machine}.json"


def _encode(value: dict[str, Any]) -> bytes:
    return (json.dumps(value, ensure_ascii=False, indent=2) + "\n").encode("utf-8")


def list_conflicts(root: Path) -> list[Conflict]:
    found = []
    base = root / CONFLICTS
    for entry in sorted(os.listdir(base)) if base.is_dir() else []:
        summary = base / entry / SUMMARY
        if summary.is_file():
            found.append(_decode(read_regular_file(root, summary, limits.RECORD_FILE_MAX)))
    return found


def find_conflict(root: Path, record_id: str) -> Conflict | None:
    check_decision_id(record_id)
    summary = root / CONFLICTS / record_id / SUMMARY
    if not summary.is_file():
        return None
    return _decode(read_regular_file(root, summary, limits.RECORD_FILE_MAX))


def get_conflict(root: Path, record_id: str) -> Conflict:
    found = find_conflict(root, record_id)
    if found is None:
        raise SyncConflictUnknown(f"decision {record_id} has no sync conflict")
    return found


def _decode(data: bytes) -> Conflict:
    raw = json.loads(data)
    return Conflict(raw["id"], raw["fork_revision"], raw["current"], raw["versions"])


def version_of(root: Path, conflict: Conflict, machine: str) -> DecisionRecord:
    """The newest revision that machine wrote, as a record."""
    number = max(conflict.versions[machine]["revisions"])
    name = _file_name("revision", number, machine)
    path = root / CONFLICTS / conflict.record_id / name
    data = read_regular_file(root, path, limits.RECORD_FILE_MAX)
    return decode_stored_record(data, what=name, expected_id=conflict.record_id)


def note_of(root: Path, conflict: Conflict, machine: str) -> str:
    """The correction note saved with that machine's newest revision ("" when it has none or
    its file is unreadable: a note never makes a conflict unreadable)."""
    number = max(conflict.versions[machine]["revisions"])
    path = root / CONFLICTS / conflict.record_id / _file_name("note", number, machine)
    if not path.is_file():
        return ""
    note = read_note_file(root, path, number)
    return note.note if note is not None else ""


def choose_machine(conflict: Conflict, keep: str, this_machine: str) -> str:
    """`local` is this machine's version, `remote` the other one's; a machine id or name
    picks among three or more.

    Raises:
        InvalidDecision: keep names none of the versions (field `keep`).
    """
    others = [m for m in conflict.versions if m != this_machine]
    if keep == "local" and this_machine in conflict.versions:
        return this_machine
    if keep == "remote" and len(others) == 1:
        return others[0]
    for machine, info in conflict.versions.items():
        if keep in (machine, info.get("name")):
            return machine
    names = ", ".join(f"{m} ({info.get('name', '')})" for m, info in conflict.versions.items())
    raise InvalidDecision(  # a usage error: the decision has a conflict, keep names no side
        f"--keep {keep!r} matches no version of decision {conflict.record_id}; versions: {names}",
        field="keep",
    )


def write_files(root: Path, files: dict[str, bytes]) -> None:
    for path, data in files.items():
        target = root / path
        ensure_private_dir(root, target.parent)
        atomic_write(root, target, data)
