"""Values the journal index hands to its readers; plain and immutable so threads can share them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from core.gocompat.gotime import GoTime
from core.store.record_files import ListIssue

if TYPE_CHECKING:
    from core.record.models import DecisionRecord


@dataclass(frozen=True, slots=True)
class IndexReadReport:
    """What one catch-up or rebuild did; `unreadable` lists every file that is not a record.

    `generation` counts the changes to this index that this process knows of: its own
    commits (the store's listener updates their rows at once) and the catch-ups that found it
    changed, whether this catch-up read the changes or another process's index wrote them
    first. A reader that shows rows compares it with the generation it showed, since the
    counts of a catch-up after such a change are all zero.
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

    @classmethod
    def of(cls, record: DecisionRecord) -> ListRow:
        """The row of a record read or just saved, so the list updates without another query."""
        assert record.updated_at is not None  # the read contract requires it
        return cls(
            id=record.id,
            problem=record.problem,
            project_id=record.project_id,
            project_alias=record.project_alias,
            decision_kind=record.decision_kind,
            risk_level=record.risk_level,
            status=record.status,
            selected_label=record.selected_label(),
            updated_at=record.updated_at,
            revision=record.revision,
            deleted=record.is_deleted,
        )
