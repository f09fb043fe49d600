"""List filters and ordering with the reference's semantics, shared by the store and the index.

A `ListFilter` selects by fields only; free-text search is the index's word-wise query
(`core.index.query.IndexFilter`), the one meaning a query has.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.errors import InvalidDecision, NotFound
from core.gocompat.text import go_lower, go_trim

if TYPE_CHECKING:  # annotations only: a read of the index builds no model
    from core.record.models import DecisionRecord


@dataclass(frozen=True, slots=True)
class ListFilter:
    project_id: str = ""
    workspace: str = ""
    domain: str = ""
    decision_kind: str = ""
    status: str = ""
    risk_level: str = ""
    include_deleted: bool = False
    limit: int = 0


_NAMED_MAX = 10
"""The most project names an unknown-project error lists."""


def resolve_project(wanted: str, aliases: Mapping[str, str]) -> str:
    """The project id that `wanted` names: its id, or the alias lists show for it.

    Both compare case-insensitively, as the filter does. Why aliases: the list and the window
    show a project by its alias (`payments-api`), and the `project-…` id is hidden.

    Args:
        aliases: every project id of the journal and the alias shown for it.

    Raises:
        NotFound: no project has that id or alias.
        InvalidDecision: the alias is shown for several projects; the id tells them apart.
    """
    key = go_lower(go_trim(wanted))
    if not key:
        return ""
    for project_id in aliases:
        if go_lower(project_id) == key:
            return project_id
    named = sorted(pid for pid, alias in aliases.items() if go_lower(go_trim(alias)) == key)
    if len(named) == 1:
        return named[0]
    if named:
        raise InvalidDecision(
            f"project {wanted!r} names {len(named)} projects ({', '.join(named)}); "
            "give one of their ids",
            field="project",
        )
    known = sorted({alias for alias in aliases.values() if alias}, key=go_lower)
    shown = ", ".join(known[:_NAMED_MAX])
    if len(known) > _NAMED_MAX:
        shown += f" and {len(known) - _NAMED_MAX:,} more"
    listed = f"; the journal's projects: {shown}" if known else "; the journal has none"
    raise NotFound(f"no project has the id or name {wanted!r}{listed}")


def _clean_path(path: str) -> str:
    return os.path.normpath(go_trim(path)) if go_trim(path) else ""


def workspace_matches(record_workspace: str, wanted: str) -> bool:
    """Equal cleaned paths, or one is a path prefix of the other (worktrees below a base)."""
    left, right = _clean_path(record_workspace), _clean_path(wanted)
    if not left or not right:
        return False
    if left == right:
        return True
    return left.startswith(right.rstrip(os.sep) + os.sep) or right.startswith(
        left.rstrip(os.sep) + os.sep
    )


def matches(record: DecisionRecord, flt: ListFilter) -> bool:
    if record.is_deleted and not flt.include_deleted:
        return False
    for wanted, actual in (
        (flt.project_id, record.project_id),
        (flt.decision_kind, record.decision_kind),
        (flt.status, record.status),
        (flt.risk_level, record.risk_level),
    ):
        if go_trim(wanted) and go_lower(go_trim(wanted)) != go_lower(go_trim(actual)):
            return False
    if go_trim(flt.workspace) and not workspace_matches(record.workspace, flt.workspace):
        return False
    if go_trim(flt.domain):
        wanted_domain = go_lower(go_trim(flt.domain))
        return wanted_domain in {go_lower(go_trim(d)) for d in record.domains}
    return True


def sort_key(record: DecisionRecord) -> tuple[int, str]:
    """Newest first: updated_at descending, then ID descending (use with reverse=True)."""
    updated = record.updated_at.unix_ns if record.updated_at else 0
    return (updated, record.id)
