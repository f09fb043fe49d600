"""A small index of who each pending decision blocks, read before any journal code loads.

Why: the PreToolUse hook runs before every tool call of every agent. Deciding "nothing is
pending for this session or workspace" from the pending files themselves means loading the
journal's models, many times the interpreter's own start, so any decision pending anywhere
made every agent slow. `pending/.index.json` lists, per pending file, the session, workspace
and project it blocks; `PendingStore` rewrites it after every save and remove.

The index is trusted only when it provably describes the directory as it is now: the same
set of decision ids as the `*.json` files listed, no file newer than the index, every entry
readable and not damaged. Anything else (missing, unreadable, other version, a file the index
does not know, a file changed since) answers "unknown", and the caller takes the full path.

Who is blocked is decided from the entries by `core.bulk.pending_lookup.blocks`, the light
copy of `core.capture.workspace_pending`'s same-place rule.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

INDEX_NAME = ".index.json"
"""Hidden, so neither `PendingStore` nor the hook's listing takes it for a pending file."""
INDEX_VERSION = 4
"""2: entries carry `project_path`, so the hook compares paths instead of hashing them.
3: entries carry the decision's `problem` and come in `find_blockers` order (oldest first,
then unreadable files), so the hook writes its deny text from the index alone.
4: entries carry the stage, the project's alias and when the decision was first asked, so
`status` and `pending` list the pending decisions from the index alone."""
INDEX_MAX = 1024 * 1024
"""The most of the index the hook reads; a bigger one is doubt, and the full path decides."""


class IndexEntry:
    """Whom one pending file blocks. `damaged`: its contents could not be fully read.

    `project_path` is the canonical path whose hash `project_id` is, when it is that (the
    pending store checks with the full identity code), else "": a caller of the same project
    then has the same canonical path, so the hook compares strings and never loads `hashlib`.

    A plain class with slots, not a dataclass or a `typing.NamedTuple`: the hook's quick path
    reads these and keeps `dataclasses` and `typing` unloaded.

    `problem` is the pending proposal's problem as validated by the pending store ("" for an
    unreadable file): what the hook's deny text quotes. `stage`, `project_alias`, `created_at`
    (Go's RFC 3339 text) and `created_ns` (the same instant in Unix nanoseconds) are what
    `core.capture.pending.pending_items` lists ("" and 0 for an unreadable file)."""

    __slots__ = (
        "created_at",
        "created_ns",
        "damaged",
        "decision_id",
        "problem",
        "project_alias",
        "project_id",
        "project_path",
        "session_id",
        "stage",
        "workspace",
    )

    def __init__(
        self,
        decision_id: str,
        *,
        session_id: str = "",
        workspace: str = "",
        project_id: str = "",
        damaged: bool = False,
        project_path: str = "",
        problem: str = "",
        stage: str = "",
        project_alias: str = "",
        created_at: str = "",
        created_ns: int = 0,
    ) -> None:
        self.decision_id = decision_id
        self.session_id = session_id
        self.workspace = workspace
        self.project_id = project_id
        self.damaged = damaged
        self.project_path = project_path
        self.problem = problem
        self.stage = stage
        self.project_alias = project_alias
        self.created_at = created_at
        self.created_ns = created_ns

    def as_dict(self) -> dict[str, object]:
        """The entry as the index file stores it."""
        return {name: getattr(self, name) for name in ENTRY_FIELDS}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, IndexEntry) and self.as_dict() == other.as_dict()

    def __hash__(self) -> int:
        return hash(tuple(self.as_dict().values()))

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={value!r}" for name, value in self.as_dict().items())
        return f"IndexEntry({fields})"


ENTRY_FIELDS = (
    "decision_id",
    "session_id",
    "workspace",
    "project_id",
    "damaged",
    "project_path",
    "problem",
    "stage",
    "project_alias",
    "created_at",
    "created_ns",
)
"""The fields of an entry, in the order the index file writes them."""


def is_pending_name(name: str) -> bool:
    """A file name `PendingStore` lists as a pending decision."""
    return name.lower().endswith(".json") and not name.startswith(".")


def encode(entries: list[IndexEntry]) -> bytes:
    """The index file's bytes, entries in the order given (the pending store's listing order)."""
    items = [entry.as_dict() for entry in entries]
    return json.dumps({"version": INDEX_VERSION, "entries": items}, ensure_ascii=False).encode()


def listed(directory: Path) -> list[IndexEntry] | None:
    """`read_current`, and no entries at all when no pending file can exist: no `directory`,
    or one that holds no file `PendingStore` lists. None when in doubt, as there."""
    if not os.path.lexists(directory):
        return []
    if os.path.isdir(directory) and not os.path.islink(directory):
        try:
            if not any(is_pending_name(name) for name in os.listdir(directory)):
                return []
        except OSError:
            return None
    return read_current(directory)


def read_current(directory: Path) -> list[IndexEntry] | None:
    """The index's entries when they describe `directory` exactly as it is now, else None.

    Never raises: every failure (no directory, no index, a listing or stat error, bad JSON,
    an index that is a link or too big) is doubt, answered with None.
    """
    try:
        names = [name for name in os.listdir(directory) if is_pending_name(name)]
        data, index_mtime = _read_index(directory / INDEX_NAME)
        entries = _decode(data) if data is not None else None
        if entries is None or sorted(e.decision_id for e in entries) != sorted(
            name[: -len(".json")] for name in names
        ):
            return None
        for name in names:
            if os.stat(directory / name, follow_symlinks=False).st_mtime_ns > index_mtime:
                return None
    except (OSError, ValueError, RecursionError):
        return None
    return entries


def _read_index(path: Path) -> tuple[bytes | None, int]:
    """(the bytes, the modification time) of a regular file of at most INDEX_MAX bytes, read
    without following a link; (None, 0) for anything else."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > INDEX_MAX:
            return None, 0
        with os.fdopen(fd, "rb", closefd=False) as handle:
            return handle.read(INDEX_MAX + 1), info.st_mtime_ns
    finally:
        os.close(fd)


def _decode(data: bytes) -> list[IndexEntry] | None:
    value = json.loads(data)
    if not isinstance(value, dict) or value.get("version") != INDEX_VERSION:
        return None
    items = value.get("entries")
    if not isinstance(items, list):
        return None
    entries = [_entry(item) for item in items]
    return None if any(e is None for e in entries) else [e for e in entries if e is not None]


def _entry(item: object) -> IndexEntry | None:
    if not isinstance(item, dict) or set(item) != set(ENTRY_FIELDS):
        return None
    text_fields = (
        "decision_id",
        "session_id",
        "workspace",
        "project_id",
        "project_path",
        "problem",
        "stage",
        "project_alias",
        "created_at",
    )
    if not all(isinstance(item[name], str) for name in text_fields):
        return None
    if not isinstance(item["damaged"], bool) or not item["decision_id"]:
        return None
    created_ns = item["created_ns"]
    if type(created_ns) is not int:  # a bool is no time
        return None
    return IndexEntry(**item)
