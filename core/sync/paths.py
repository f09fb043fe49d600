"""What moves between machines, and which merge unit each journal file belongs to.

Why an allowlist: caches (`cache/`, `profiles/`) are rebuilt from records on each machine,
`pending/` and `drafts/` are one machine's in-flight state, locks and temp files belong to a
running process, and `quarantine/` holds files this machine refused. Anything the journal adds
later stays local until it is named here.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from core.store.safefs import TEMP_MARK

RECORDS = "records"
HISTORY = "history"
CONFLICTS = "sync-conflicts"
LOG_FOLDERS = {"notes": ".jsonl", "outcomes": ".ndjson", "imports": ".ndjson", "decider": ".ndjson"}
"""Append-only logs: two machines' lines are united, never one file over the other. The
decider's ledger (predictions, scores, automatic answers, overrules and each kind's mode
changes) is one of them; its routing policy (`decider/policy.json`) stays on each machine."""
PER_RECORD_FOLDERS = (HISTORY, "corrections", CONFLICTS)
_RECORD_FILE = re.compile(r"[^/]+\.json")
_HISTORY_FILE = re.compile(r"revision-\d{6,}\.json(\.sha256)?")
_CORRECTION_FILE = re.compile(r"revision-\d{6,}\.json")
_CONFLICT_FILE = re.compile(r"((revision|note)-\d{6,}\.[0-9a-f]{8}|conflict)\.json")

MARKER = "decision-journal-sync.json"
"""The remote's marker: a sync remote, its format, whether it is encrypted (and to whom)."""
KEY_CHECK = "key-check.age"
"""A known text encrypted to the key: `sync join` checks the key opens it before writing."""
REMOTE_FILES = (MARKER, KEY_CHECK)
"""The remote's own files beside the journal's."""
FILE_MODE = "100644"
"""The only tree mode sync writes (and accepts): a plain file. Links (120000), submodules
(160000), executables and anything else never come from an honest machine."""
COMPONENT_MAX = 255
PATH_MAX = 1024
"""Bytes in one name component and in a whole remote name: the longest name sync writes is a
record's history file (`history/<id of at most 160 bytes>/revision-NNNNNN.json.sha256`)."""
_ENCRYPTED_LAYOUT = (
    re.compile(r"d/[0-9a-f]{2}/[0-9a-f]{30}\.age"),
    re.compile(r"m/[0-9a-f]{8}\.age"),
    re.compile(r"m/[0-9a-f]{8}-\d{6,}\.age"),
)
"""An encrypted remote's files: keyed names of journal files (`core.sync.crypto.AgeCodec.name`)
and each machine's authenticated manifest `m/<machine>.age` (`core.sync.manifests`; the
numbered name manifests of format 1 until a remote migrates), beside `MARKER` and `KEY_CHECK`."""


@dataclass(frozen=True, slots=True)
class Unit:
    """A merge unit: one record with its history, one log, or one other file."""

    kind: str
    key: str


def unit_of(path: str) -> Unit | None:
    """The merge unit of a journal-relative POSIX path, or None when it never moves."""
    parts = path.split("/")
    if any(part.startswith(".") or TEMP_MARK in part or part.endswith(".lock") for part in parts):
        return None
    if len(parts) == 2 and parts[0] == RECORDS and _RECORD_FILE.fullmatch(parts[1]):
        return Unit("record", parts[1][: -len(".json")])
    if len(parts) == 2 and parts[0] in LOG_FOLDERS and parts[1].endswith(LOG_FOLDERS[parts[0]]):
        return Unit("log", path)
    if len(parts) != 3:
        return None
    folder, _, name = parts
    if folder == HISTORY and _HISTORY_FILE.fullmatch(name):
        return Unit("record", parts[1])
    if folder == "corrections" and _CORRECTION_FILE.fullmatch(name):
        return Unit("file", path)
    if folder == CONFLICTS and _CONFLICT_FILE.fullmatch(name):
        return Unit("file", path)
    return None


def journal_path_problem(path: str) -> str | None:
    """Why a journal-relative path (a plain remote's name, or a path a manifest lists) is not
    one sync would write, or None when it is: inside the journal, in a folder that moves,
    printable, short enough."""
    if not path or len(path.encode("utf-8", "surrogatepass")) > PATH_MAX:
        return f"the name is empty or longer than {PATH_MAX} bytes"
    parts = path.split("/")
    for part in parts:
        if part in ("", ".", "..") or part.startswith("."):
            return "the name has an empty, '.', '..' or hidden component"
        if len(part.encode("utf-8", "surrogatepass")) > COMPONENT_MAX:
            return f"a component of the name is longer than {COMPONENT_MAX} bytes"
        if not part.isprintable() or "\\" in part:
            return "the name holds a control character or a backslash"
    if unit_of(path) is None:
        return "the name is not a journal file sync moves (records, history, logs, corrections)"
    return None


def remote_name_problem(name: bytes, mode: str, *, encrypted: bool) -> str | None:
    """Why a tree entry of a fetched commit is outside the layout sync writes, or None when it
    is inside: mode `FILE_MODE`, a UTF-8 name, and on an encrypted remote one of `MARKER`,
    `KEY_CHECK` and the names of `_ENCRYPTED_LAYOUT`; on a plain one `MARKER` or a journal path
    (`journal_path_problem`)."""
    if mode != FILE_MODE:
        kind = {
            "120000": "a symbolic link",
            "160000": "a submodule (gitlink)",
            "040000": "a folder",
        }
        return f"it is {kind.get(mode, f'an entry of mode {mode}')}, not a plain file"
    if len(name) > PATH_MAX:
        return f"the name is longer than {PATH_MAX} bytes"
    try:
        text = name.decode("utf-8")
    except UnicodeDecodeError:
        return "the name is not UTF-8"
    if text == MARKER or (encrypted and text == KEY_CHECK):
        return None
    if encrypted:
        if any(pattern.fullmatch(text) for pattern in _ENCRYPTED_LAYOUT):
            return None
        return (
            f"the name is not one an encrypted remote holds ({MARKER}, {KEY_CHECK}, "
            "d/<2 hex>/<30 hex>.age for journal files, m/<8 hex>.age for manifests)"
        )
    return journal_path_problem(text)


def record_path(record_id: str) -> str:
    return f"{RECORDS}/{record_id}.json"


def history_path(record_id: str, revision: int, *, digest: bool = False) -> str:
    suffix = ".sha256" if digest else ""
    return f"{HISTORY}/{record_id}/revision-{revision:06d}.json{suffix}"


def scan_journal(root: Path) -> Iterator[tuple[str, os.stat_result]]:
    """Every file that moves, as (relative path, lstat); links and special files are skipped."""
    for folder in (RECORDS, *LOG_FOLDERS):
        yield from _scan_flat(root, folder)
    for folder in PER_RECORD_FOLDERS:
        base = root / folder
        for entry in _entries(base):
            if entry.is_dir(follow_symlinks=False):
                yield from _scan_flat(root, f"{folder}/{entry.name}")


def _scan_flat(root: Path, folder: str) -> Iterator[tuple[str, os.stat_result]]:
    for entry in _entries(root / folder):
        path = f"{folder}/{entry.name}"
        if unit_of(path) is None:
            continue  # a lock file, a temporary file: not stat-ed
        info = entry.stat(follow_symlinks=False)
        if stat.S_ISREG(info.st_mode):
            yield path, info


def _entries(directory: Path) -> list[os.DirEntry[str]]:
    if directory.is_symlink():
        return []
    try:
        return sorted(os.scandir(directory), key=lambda entry: entry.name)
    except (FileNotFoundError, NotADirectoryError):
        return []
