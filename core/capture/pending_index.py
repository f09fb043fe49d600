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

The same-place rule here is `core.capture.workspace_pending.same_place` (same project id, or one
path
inside the other) written without the journal's imports; `project_id_of` is
`core.record.identity.project_identity(...).project_id` and `paths_overlap` is
`core.record.filters.workspace_matches`. Tests hold each pair equal.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

from core.bulk.light_tuple import LightTuple
from core.gocompat.text import go_trim

INDEX_NAME = ".index.json"
"""Hidden, so neither `PendingStore` nor the hook's listing takes it for a pending file."""
INDEX_VERSION = 2
"""2: entries carry `project_path`, so the hook compares paths instead of hashing them."""
INDEX_MAX = 1024 * 1024
"""The most of the index the hook reads; a bigger one is doubt, and the full path decides."""


class IndexEntry(LightTuple):
    """Whom one pending file blocks. `damaged`: its contents could not be fully read.

    Light named tuples, not dataclasses, keep `dataclasses` and `typing` out of the hook's
    quick path."""

    decision_id: str
    session_id: str = ""
    workspace: str = ""
    project_id: str = ""
    damaged: bool = False
    project_path: str = ""
    """The canonical path whose hash `project_id` is, when it is that (the pending store
    checks with the full identity code), else "": a caller of the same project then has the
    same canonical path, so the hook compares strings and never loads `hashlib`."""


def is_pending_name(name: str) -> bool:
    """A file name `PendingStore` lists as a pending decision."""
    return name.lower().endswith(".json") and not name.startswith(".")


def encode(entries: list[IndexEntry]) -> bytes:
    """The index file's bytes, entries sorted by decision id."""
    items = [entry._asdict() for entry in sorted(entries, key=lambda e: e.decision_id)]
    return json.dumps({"version": INDEX_VERSION, "entries": items}, ensure_ascii=False).encode()


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
    if not isinstance(item, dict) or set(item) != set(IndexEntry._fields):
        return None
    text_fields = ("decision_id", "session_id", "workspace", "project_id")
    if not all(isinstance(item[name], str) for name in text_fields):
        return None
    if not isinstance(item["damaged"], bool) or not item["decision_id"]:
        return None
    return IndexEntry(**item)


def blocks(entries: list[IndexEntry], *, session_id: str, workspace: str) -> bool:
    """Any entry blocks this session or workspace, as `core.capture.workspace_pending` decides: a
    damaged
    file blocks everyone unless it is readably someone else's."""
    session = go_trim(session_id)
    caller_path = canonical_path(workspace) if workspace else ""
    caller_project = ""
    for entry in entries:
        if entry.damaged and not (entry.workspace or entry.project_id):
            return True
        if session and entry.session_id == session:
            return True
        if workspace and entry.project_id:
            if entry.project_path:
                if entry.project_path == caller_path:
                    return True
            else:
                caller_project = caller_project or _project_id(caller_path)
                if entry.project_id == caller_project:
                    return True
        if workspace and paths_overlap(entry.workspace, workspace):
            return True
    return False


def canonical_path(workspace: str) -> str:
    """`core.record.identity.canonical_workspace_path(workspace)`, without its imports."""
    trimmed = go_trim(workspace)
    if not trimmed:
        return ""
    path = os.path.abspath(trimmed)
    try:
        path = os.path.realpath(path, strict=True)
    except OSError:
        path = os.path.normpath(path)
    path = path.replace(os.sep, "/")
    return path.lower() if sys.platform == "win32" else path


def project_id_of(workspace: str) -> str:
    """`core.record.identity.project_identity(workspace).project_id`, without its imports."""
    return _project_id(canonical_path(workspace))


def _project_id(canonical: str) -> str:
    import hashlib  # noqa: PLC0415  # only for an entry whose project path is unknown

    digest = hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()
    return "project-" + digest[:16]


def paths_overlap(left: str, right: str) -> bool:
    """`core.record.filters.workspace_matches`: equal cleaned paths, or one inside the other."""
    a = os.path.normpath(go_trim(left)) if go_trim(left) else ""
    b = os.path.normpath(go_trim(right)) if go_trim(right) else ""
    if not a or not b:
        return False
    if a == b:
        return True
    return a.startswith(b.rstrip(os.sep) + os.sep) or b.startswith(a.rstrip(os.sep) + os.sep)
