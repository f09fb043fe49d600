"""One record's history folder, checked strictly, and the digest kept beside each revision.

Why strict: `edit`, `delete` and `restore` append to this chain, so they must refuse a chain
that is not exactly `revision-NNNNNN.json` regular files; a gap, a renamed or duplicate
revision, a stray file, a link, a FIFO or an oversized file would otherwise be buried under a
new revision. Why digests: a revision's content edited in place still parses, so nothing else
would notice. Each `revision-NNNNNN.json` gets a `revision-NNNNNN.json.sha256` in the format of
`sha256sum` (KernForge reads only `*.json` there, so it ignores them; a user can run
`sha256sum -c *.sha256` in the folder).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path

from core import limits
from core.errors import HistoryBroken, HistoryTampered, JournalDamaged, StorageFailure
from core.messages.wording import too_large
from core.store.safefs import TEMP_MARK, atomic_write, read_regular_file

HISTORY_NAME = re.compile(r"revision-(\d{6,})\.json")
DIGEST_SUFFIX = ".sha256"
DIGEST_FILE_MAX = 4 * limits.KIB
_DIGEST_LINE = re.compile(r"([0-9a-f]{64})  (\S+)\n")


@dataclass(slots=True)
class HistoryFolder:
    """What a history folder holds, by kind: revision files, digest files, our temp files."""

    revisions: dict[int, str] = field(default_factory=dict)
    digests: set[str] = field(default_factory=set)
    temps: list[str] = field(default_factory=list)


def revision_name(revision: int) -> str:
    return f"revision-{revision:06d}.json"


def scan_history(directory: Path) -> HistoryFolder:
    """Every entry of the folder classified; anything else in it is refused.

    Raises:
        HistoryBroken: an entry is not ours, is not a regular file, is over the record size
            cap, repeats a revision number, or is a digest of a revision that is not there.
    """
    folder = HistoryFolder()
    try:
        listing = sorted(os.scandir(directory), key=lambda entry: entry.name)
    except FileNotFoundError:
        return folder
    for entry in listing:
        _classify(directory, entry, folder)
    return folder


def check_orphan_digests(directory: Path, folder: HistoryFolder) -> None:
    """A digest whose revision file is gone: checked after the chain, whose gap says more."""
    orphans = sorted(folder.digests - set(folder.revisions.values()))
    if orphans:
        raise _broken(
            directory, orphans[0] + DIGEST_SUFFIX, "is the digest of a revision that is missing"
        )


def _classify(directory: Path, entry: os.DirEntry[str], folder: HistoryFolder) -> None:
    name = entry.name
    if name.startswith(".") and TEMP_MARK in name:
        folder.temps.append(name)
        return
    base = name.removesuffix(DIGEST_SUFFIX)
    match = HISTORY_NAME.fullmatch(base)
    if match is None or int(match.group(1)) <= 0:
        raise HistoryBroken(
            f"invalid implementation decision history filename {name!r} in {directory}: "
            "only revision-NNNNNN.json files and their .sha256 digests belong there",
            path=str(directory / name),
        )
    _require_regular(directory, entry)
    if base != name:
        folder.digests.add(base)
        return
    revision = int(match.group(1))
    if revision in folder.revisions:
        first = folder.revisions[revision]
        raise _broken(directory, name, f"repeats revision {revision} of {first}")
    folder.revisions[revision] = name


def _require_regular(directory: Path, entry: os.DirEntry[str]) -> None:
    info = entry.stat(follow_symlinks=False)
    if stat.S_ISLNK(info.st_mode):
        raise _broken(directory, entry.name, "is a symbolic link")
    if not stat.S_ISREG(info.st_mode):
        raise _broken(directory, entry.name, "is not a regular file (a FIFO, device or folder)")
    if info.st_size > limits.RECORD_FILE_MAX:
        raise _broken(
            directory,
            entry.name,
            too_large(info.st_size, limits.RECORD_FILE_MAX),
        )


def _broken(directory: Path, name: str, problem: str) -> HistoryBroken:
    return HistoryBroken(
        f"implementation decision history {directory}: {name} {problem}",
        path=str(directory / name),
    )


def read_revision(root: Path, directory: Path, name: str) -> bytes:
    """A revision file's bytes; any failure to read it is a broken history."""
    try:
        return read_regular_file(root, directory / name, limits.RECORD_FILE_MAX)
    except StorageFailure:
        raise  # the disk or its permissions, not the history: that entry says how to fix it
    except JournalDamaged as exc:
        raise _broken(directory, name, f"cannot be read: {exc}") from exc


def digest_line(data: bytes, name: str) -> bytes:
    """The `sha256sum` line for a revision file's bytes."""
    return f"{hashlib.sha256(data).hexdigest()}  {name}\n".encode()


def verify_digest(root: Path, directory: Path, name: str, data: bytes) -> None:
    """Checks a revision's bytes against its digest file, which must exist.

    Raises:
        HistoryTampered: the digest file is malformed, names another file, or holds another
            digest: the revision was changed after it was written.
    """
    digest_path = directory / (name + DIGEST_SUFFIX)
    try:
        stored = read_regular_file(root, digest_path, DIGEST_FILE_MAX)
    except StorageFailure:
        raise
    except JournalDamaged as exc:
        raise _broken(directory, name + DIGEST_SUFFIX, f"cannot be read: {exc}") from exc
    match = _DIGEST_LINE.fullmatch(stored.decode("utf-8", "replace"))
    if match is None or match.group(2) != name:
        raise HistoryTampered(
            f"implementation decision history {directory}: {digest_path.name} is not a "
            f"sha256sum line for {name}",
            path=str(digest_path),
        )
    if not hmac.compare_digest(match.group(1), hashlib.sha256(data).hexdigest()):
        raise HistoryTampered(
            f"implementation decision history {directory}: {name} was changed after it was "
            f"written (its SHA-256 no longer matches {digest_path.name})",
            path=str(directory / name),
        )


def write_digest(root: Path, directory: Path, name: str, data: bytes) -> None:
    atomic_write(root, directory / (name + DIGEST_SUFFIX), digest_line(data, name))


def rewrite_revision(root: Path, directory: Path, name: str, data: bytes) -> None:
    """Replaces a history revision in place, with its digest: only for an explicit purge
    (`doctor --redact --purge-history`); history is otherwise never rewritten."""
    atomic_write(root, directory / name, data)
    write_digest(root, directory, name, data)
