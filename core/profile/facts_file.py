"""The profile's per-record facts, kept on disk between processes.

Why: a fresh process (`profile rebuild`, the app after a restart) would otherwise re-read and
strictly validate every record to rebuild the profile. Facts are stored only for records that
passed the strict read, keyed by the file's identity (`core.bulk.file_identity`); any
change to a record file changes that identity, so the record is read and validated again. The
file is a cache: unreadable, foreign or outdated content is ignored and rewritten.
"""

from __future__ import annotations

from pathlib import Path

import msgspec

from core.bulk.file_identity import FileIdentity
from core.bulk.profile_facts import RecordFacts
from core.errors import JournalError
from core.store.safefs import atomic_write, ensure_private_dir, read_regular_file

FORMAT_VERSION = 3
MAX_BYTES = 512 * 1024 * 1024
_LEGACY_NAME = "profile-facts.json"
"""Formats 1 and 2 were JSON with named fields under this name; MessagePack of arrays is smaller and
written faster (bench/CHANGES.md)."""


Entry = tuple[str, FileIdentity, RecordFacts]


class _FactsFile(msgspec.Struct):
    """The file's layout; msgspec checks every type while decoding, in C, facts included."""

    version: int
    entries: list[Entry]


_DECODER = msgspec.msgpack.Decoder(_FactsFile)
_ENCODER = msgspec.msgpack.Encoder()


def load_facts(root: Path, path: Path) -> dict[str, tuple[FileIdentity, RecordFacts]] | None:
    """The stored facts, or None when the file is missing or not exactly ours.

    An identity that is not ours simply never matches a file's stat, so that file is read again.
    """
    try:
        data = _DECODER.decode(read_regular_file(root, path, MAX_BYTES))
    except (JournalError, OSError, msgspec.DecodeError):
        return None
    if data.version != FORMAT_VERSION:
        return None
    return {name: (identity, facts) for name, identity, facts in data.entries}


def save_facts(root: Path, path: Path, entries: list[Entry]) -> None:
    """Writes atomically; failing to write a cache never fails a rebuild."""
    payload = _ENCODER.encode(_FactsFile(FORMAT_VERSION, entries))
    try:
        ensure_private_dir(root, path.parent)
        # A cache: a file lost or torn by a power cut fails to decode and is rebuilt, so
        # waiting for the disk (tens of megabytes at 100,000 records) would buy nothing.
        atomic_write(root, path, payload, durable=False)
        path.with_name(_LEGACY_NAME).unlink(missing_ok=True)
    except (JournalError, OSError):
        return
