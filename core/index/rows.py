"""Values the journal index hands to its readers; plain and immutable so threads can share them.

Why msgspec Structs, as the index's entries are: `list` and `show` load this module at every
start, and a Struct class is made in C, many times faster than a dataclass is decorated
(bench/CHANGES.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from core.gocompat.gotime import GoTime
from core.store.record_files import ListIssue

if TYPE_CHECKING:
    from core.record.models import DecisionRecord


class IndexReadReport(msgspec.Struct, frozen=True):
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
    unreadable: list[ListIssue] = msgspec.field(default_factory=list)
    seconds: float = 0.0
    generation: int = 0


class ProjectSummary(msgspec.Struct, frozen=True):
    """One project: the alias of its newest record (any status), its active count."""

    project_id: str
    alias: str
    count: int
    last_updated: GoTime | None


class Facets(msgspec.Struct, frozen=True):
    """Distinct non-blank values over every record, deleted ones included, for filter menus."""

    domains: list[str]
    kinds: list[str]
    risks: list[str]
    statuses: list[str]


class ListRow(msgspec.Struct, frozen=True):
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
