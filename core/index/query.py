"""The journal window's filter and its reference semantics, which the index reproduces exactly.

Every field but `query` and the range means what it means in `core.record.filters.ListFilter`;
`query` is word-wise (see `core.index.fulltext`), the only free-text query there is.
`updated_from` is inclusive and `updated_to` exclusive, so consecutive ranges never overlap or
leave gaps.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.gocompat.gotime import GoTime
from core.index.fulltext import query_matches
from core.record.filters import ListFilter, matches, sort_key
from core.record.shape import RecordShape

if TYPE_CHECKING:  # annotations only: a read of the index builds no model
    from core.record.models import DecisionRecord


@dataclass(frozen=True, slots=True)
class IndexFilter:
    project_id: str = ""
    workspace: str = ""
    domain: str = ""
    decision_kind: str = ""
    status: str = ""
    risk_level: str = ""
    query: str = ""
    include_deleted: bool = False
    updated_from: GoTime | None = None
    updated_to: GoTime | None = None
    limit: int = 0

    def structural(self) -> ListFilter:
        """The part `core.record.filters.matches` decides: everything but the query, range and
        limit."""
        return ListFilter(
            project_id=self.project_id,
            workspace=self.workspace,
            domain=self.domain,
            decision_kind=self.decision_kind,
            status=self.status,
            risk_level=self.risk_level,
            include_deleted=self.include_deleted,
        )


def updated_ns(record: RecordShape) -> int:
    return record.updated_at.unix_ns if record.updated_at else 0


def in_range(ns: int, flt: IndexFilter) -> bool:
    if flt.updated_from is not None and ns < flt.updated_from.unix_ns:
        return False
    return flt.updated_to is None or ns < flt.updated_to.unix_ns


def filter_matches(record: DecisionRecord, flt: IndexFilter) -> bool:
    return (
        matches(record, flt.structural())
        and in_range(updated_ns(record), flt)
        and query_matches(record, flt.query)
    )


def select(records: Iterable[DecisionRecord], flt: IndexFilter) -> list[DecisionRecord]:
    """Matching records newest first, limited: what `JournalIndex.query_ids` must return."""
    chosen = [record for record in records if filter_matches(record, flt)]
    chosen.sort(key=sort_key, reverse=True)
    return chosen[: flt.limit] if flt.limit > 0 else chosen
