"""Values the journal index hands to its readers; plain and immutable so threads can share them."""

from __future__ import annotations

from dataclasses import dataclass, field

from core.gocompat.gotime import GoTime
from core.store.decisions import ListIssue


@dataclass(frozen=True, slots=True)
class ReconcileReport:
    """What one reconcile or rebuild did; `unreadable` lists every file that is not a record.

    `generation` counts the reconciles of this index (in this process) that found it changed,
    whether this reconcile read the changes or another process's index wrote them first: a
    reader that shows rows compares it with the generation it showed, since the counts of a
    reconcile that found another process had already caught up are all zero.
    """

    added: int
    changed: int
    removed: int
    unreadable: list[ListIssue] = field(default_factory=list)
    seconds: float = 0.0
    generation: int = 0


@dataclass(frozen=True, slots=True)
class ProjectSummary:
    """One project: the alias of its newest record (any status), its active count."""

    project_id: str
    alias: str
    count: int
    last_updated: GoTime | None


@dataclass(frozen=True, slots=True)
class Facets:
    """Distinct non-blank values over every record, deleted ones included, for filter menus."""

    domains: list[str]
    kinds: list[str]
    risks: list[str]
    statuses: list[str]


@dataclass(frozen=True, slots=True)
class ListRow:
    """The few fields a list view shows, so a page never parses full records."""

    id: str
    problem: str
    project_id: str
    project_alias: str
    decision_kind: str
    risk_level: str
    status: str
    selected_label: str
    updated_at: GoTime
    revision: int
    deleted: bool
