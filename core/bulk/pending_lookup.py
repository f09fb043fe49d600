"""Whether a pending decision blocks a caller, decided from the pending index alone.

Why: the PreToolUse hook runs before every tool call of every agent, and its quick path
(`app/hooks/pending_answer.py`) must cost little beyond the interpreter's own start
(`bench/hook_bench.py`). The plain rules live in `core.capture.workspace_pending` and
`core.record.identity`, which load the journal's models; the functions here are their faster
variants over `core.capture.pending_index` entries, using only `os`, `sys` and (rarely)
`hashlib`. `tests/core/bulk/test_pending_lookup.py` holds each equal to the rule it replaces.
"""

from __future__ import annotations

import os
import sys

from core.gocompat.text import go_trim

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: `typing` stays out of the hook's quick path

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Protocol, TypeVar

    class PendingEntry(Protocol):
        """What is read of a `core.capture.pending_index.PendingBlocker` (bulk sits below
        capture)."""

        decision_id: str
        session_id: str
        workspace: str
        project_id: str
        damaged: bool
        project_path: str
        problem: str
        stage: str
        project_alias: str
        created_at: str
        created_ns: int

    Entry = TypeVar("Entry", bound=PendingEntry)


def blocks(entries: Sequence[PendingEntry], *, session_id: str, workspace: str) -> bool:
    """Faster variant of `core.capture.workspace_pending.find_blockers` (non-empty) over index
    entries: a damaged file blocks everyone unless it is readably someone else's."""
    return bool(blocking(entries, session_id=session_id, workspace=workspace, first_only=True))


def blocking(
    entries: Sequence[Entry], *, session_id: str, workspace: str, first_only: bool = False
) -> list[Entry]:
    """Faster variant of `core.capture.workspace_pending.find_blockers` over index entries:
    the entries that block the caller, in the index's order (which is `find_blockers`' own);
    with `first_only`, at most the first of them."""
    session = go_trim(session_id)
    caller_path = canonical_path(workspace) if workspace else ""
    caller_project = ""
    found: list[Entry] = []
    for entry in entries:
        hit = (entry.damaged and not (entry.workspace or entry.project_id)) or bool(
            session and entry.session_id == session
        )
        if not hit and workspace and entry.project_id:
            if entry.project_path:
                hit = entry.project_path == caller_path
            else:
                caller_project = caller_project or _project_id(caller_path)
                hit = entry.project_id == caller_project
        if hit or (workspace and _around(entry.workspace, workspace, caller_path)):
            found.append(entry)
            if first_only:
                break
    return found


def _around(pending_workspace: str, workspace: str, caller_path: str) -> bool:
    """One directory inside the other, as `core.capture.workspace_pending.same_place` judges
    it after the project ids differ."""
    pending_path = canonical_path(pending_workspace)
    if is_root(pending_workspace) or is_root(pending_path):
        return is_root(workspace) or is_root(caller_path)
    return paths_overlap(pending_workspace, workspace) or paths_overlap(pending_path, caller_path)


def is_root(path: str) -> bool:
    """Faster variant of `core.capture.workspace_pending.is_root` (the same expression)."""
    trimmed = go_trim(path)
    return bool(trimmed) and os.path.normpath(trimmed) in ("/", "//")


def canonical_path(workspace: str) -> str:
    """Faster variant of `core.record.identity.canonical_workspace_path`, without its imports."""
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
    """Faster variant of `core.record.identity.project_identity(workspace).project_id`."""
    return _project_id(canonical_path(workspace))


def _project_id(canonical: str) -> str:
    import hashlib  # noqa: PLC0415  # only for an entry whose project path is unknown

    digest = hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()
    return "project-" + digest[:16]


def paths_overlap(left: str, right: str) -> bool:
    """Faster variant of `core.record.filters.workspace_matches`: equal cleaned paths, or one
    inside the other."""
    a = os.path.normpath(go_trim(left)) if go_trim(left) else ""
    b = os.path.normpath(go_trim(right)) if go_trim(right) else ""
    if not a or not b:
        return False
    if a == b:
        return True
    return a.startswith(b.rstrip(os.sep) + os.sep) or b.startswith(a.rstrip(os.sep) + os.sep)


def pending_rows(entries: Sequence[PendingEntry], now_ns: int) -> list[dict[str, object]]:
    """Faster variant of `core.capture.pending.pending_items` (no filter) over index entries:
    the readable pending decisions, in the index's order (the listing's own), as of `now_ns`."""
    return [
        {
            "decision_id": entry.decision_id,
            "stage": entry.stage,
            "problem": entry.problem,
            "project_alias": entry.project_alias,
            "session_id": entry.session_id,
            "created_at": entry.created_at,
            "age_seconds": (now_ns - entry.created_ns) // 1_000_000_000 if entry.created_at else 0,
        }
        for entry in entries
        if not entry.damaged
    ]
