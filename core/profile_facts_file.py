"""The profile's per-record facts, kept on disk between processes.

Why: a fresh process (`profile rebuild`, the app after a restart) would otherwise re-read and
strictly validate every record to rebuild the profile. Facts are stored only for records that
passed the strict read, keyed by the file's identity (device, inode, size, mtime, ctime); any
change to a record file changes that identity, so the record is read and validated again. The
file is a cache: unreadable, foreign or outdated content is ignored and rewritten.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

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


def _evidence_in(raw: Any) -> Evidence | None:
    if raw is None:
        return None
    criterion, signature, label, project_id, domains = raw
    if not (
        type(criterion) is str
        and type(signature) is str
        and type(label) is str
        and type(project_id) is str
        and type(domains) is list
        and all(type(d) is str for d in domains)
    ):
        raise ValueError("evidence fields must be strings")
    return Evidence(criterion, signature, label, project_id, tuple(domains))


def _entry_in(raw: Any) -> tuple[str, Identity, RecordFacts]:
    """Types are checked where derivation depends on them; an identity that is not ours
    simply never matches a file's stat, so that file is read again."""
    name, identity, record_id, updated_ns, deleted, digest, evidence = raw
    if not (
        type(name) is str
        and type(record_id) is str
        and type(digest) is str
        and type(updated_ns) is int
        and type(deleted) is bool
        and type(identity) is list
    ):
        raise ValueError("malformed facts entry")
    facts = RecordFacts(record_id, updated_ns, deleted, digest, _evidence_in(evidence))
    return name, tuple(identity), facts


def load_facts(root: Path, path: Path) -> dict[str, tuple[Identity, RecordFacts]] | None:
    """The stored facts, or None when the file is missing or not exactly ours."""
    try:
        data = json.loads(read_regular_file(root, path, MAX_BYTES))
        if not isinstance(data, dict) or data.get("version") != FORMAT_VERSION:
            return None
        entries = (_entry_in(raw) for raw in data["entries"])
        return {name: (identity, facts) for name, identity, facts in entries}
    except (JournalError, OSError, ValueError, TypeError, KeyError):
        return None


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
    payload = json.dumps({"version": FORMAT_VERSION, "entries": rows}, separators=(",", ":"))
    try:
        ensure_private_dir(root, path.parent)
        atomic_write(root, path, payload.encode("utf-8"))
    except (JournalError, OSError):
        return
