"""The profile's per-record facts, kept on disk between processes.

Why: a fresh process (`profile rebuild`, the app after a restart) would otherwise re-read and
strictly validate every record to rebuild the profile. Facts are stored only for records that
passed the strict read, keyed by the file's identity (device, inode, size, mtime, ctime); any
change to a record file changes that identity, so the record is read and validated again. The
file is a cache: unreadable, foreign or outdated content is ignored and rewritten.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from core.errors import JournalError
from core.profile_derive import Evidence, RecordFacts
from core.safefs import atomic_write, ensure_private_dir, read_regular_file

FORMAT_VERSION = 1
MAX_BYTES = 512 * 1024 * 1024
Identity = tuple[int, ...]


def _evidence_out(evidence: Evidence | None) -> list[Any] | None:
    if evidence is None:
        return None
    return [
        evidence.criterion,
        evidence.signature,
        evidence.label,
        evidence.project_id,
        list(evidence.domains),
    ]


EvidenceRow = tuple[str, str, str, str, list[str]]
EntryRow = tuple[str, list[int], str, int, bool, str, EvidenceRow | None]


class _FactsFile(msgspec.Struct):
    """The file's layout; msgspec checks every type while decoding, in C."""

    version: int
    entries: list[EntryRow]


_DECODER = msgspec.json.Decoder(_FactsFile)


def _facts_in(row: EntryRow) -> RecordFacts:
    _name, _identity, record_id, updated_ns, deleted, digest, evidence = row
    if evidence is None:
        return RecordFacts(record_id, updated_ns, deleted, digest, None)
    criterion, signature, label, project_id, domains = evidence
    found = Evidence(criterion, signature, label, project_id, tuple(domains))
    return RecordFacts(record_id, updated_ns, deleted, digest, found)


def load_facts(root: Path, path: Path) -> dict[str, tuple[Identity, RecordFacts]] | None:
    """The stored facts, or None when the file is missing or not exactly ours.

    An identity that is not ours simply never matches a file's stat, so that file is read again.
    """
    try:
        data = _DECODER.decode(read_regular_file(root, path, MAX_BYTES))
    except (JournalError, OSError, msgspec.DecodeError):
        return None
    if data.version != FORMAT_VERSION:
        return None
    return {row[0]: (tuple(row[1]), _facts_in(row)) for row in data.entries}


def save_facts(root: Path, path: Path, entries: dict[str, tuple[Identity, RecordFacts]]) -> None:
    """Writes atomically; failing to write a cache never fails a rebuild."""
    rows = [
        [
            name,
            list(identity),
            facts.record_id,
            facts.updated_ns,
            facts.deleted,
            facts.digest,
            _evidence_out(facts.evidence),
        ]
        for name, (identity, facts) in sorted(entries.items())
    ]
    payload = msgspec.json.encode({"version": FORMAT_VERSION, "entries": rows})
    try:
        ensure_private_dir(root, path.parent)
        atomic_write(root, path, payload)
    except (JournalError, OSError):
        return
