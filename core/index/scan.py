"""The index's answers computed by scanning the store: the fallback when SQLite is unusable.

Slow on a large journal but always correct, so the journal stays browsable without the cache.
The same functions are the reference the SQLite queries are tested against.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from core.bulk.listing import list_with_issues
from core.errors import JournalError
from core.index.entry import key
from core.index.query import IndexFilter, select
from core.index.rows import Facets, ListRow, ProjectSummary
from core.record.filters import ListFilter, sort_key
from core.record.shape import RecordShape

if TYPE_CHECKING:  # annotations only: a read of the index builds no model, and needs no store
    from core.record.models import DecisionRecord
    from core.store.decisions import DecisionStore, ListResult


def project_summaries(records: Iterable[DecisionRecord]) -> list[ProjectSummary]:
    """Per project (case-insensitive id): newest record's id and alias, active count."""
    newest: dict[str, DecisionRecord] = {}
    active: dict[str, int] = {}
    for record in sorted(records, key=sort_key, reverse=True):
        project = key(record.project_id)
        if not project:
            continue
        newest.setdefault(project, record)
        active[project] = active.get(project, 0) + (0 if record.is_deleted else 1)
    summaries = [
        ProjectSummary(r.project_id, r.project_alias or r.project_id, active[k], r.updated_at)
        for k, r in newest.items()
    ]
    summaries.sort(key=lambda p: (key(p.alias), p.project_id))
    return summaries


def facets_of(records: Iterable[DecisionRecord]) -> Facets:
    domains: dict[str, str] = {}
    kinds: set[str] = set()
    risks: set[str] = set()
    statuses: set[str] = set()
    for record in records:
        for domain in record.domains:
            k = key(domain)
            if k and (k not in domains or domain < domains[k]):
                domains[k] = domain
        kinds.add(key(record.decision_kind))
        risks.add(key(record.risk_level))
        statuses.add(key(record.status))
    return Facets(
        [domains[k] for k in sorted(domains)],
        sorted(kinds - {""}),
        sorted(risks - {""}),
        sorted(statuses - {""}),
    )


def current_project(records: Iterable[DecisionRecord]) -> str:
    for record in sorted(records, key=sort_key, reverse=True):
        if not record.is_deleted and key(record.project_id):
            return record.project_id
    return ""


class ScanIndex:
    """Answers every query from a fresh scan of the store."""

    def __init__(self, store: DecisionStore) -> None:
        self.store = store

    def scan(self) -> ListResult:
        return list_with_issues(self.store, ListFilter(include_deleted=True))

    def query_ids(self, flt: IndexFilter) -> list[str]:
        return [record.id for record in select(self.scan().records, flt)]

    def shapes(self, ids: Sequence[str]) -> list[RecordShape]:
        return list(self.records(ids))

    def records(self, ids: Sequence[str]) -> list[DecisionRecord]:
        found = []
        for record_id in ids:
            try:
                found.append(self.store.get(record_id))
            except (JournalError, OSError):
                continue
        return found

    def compact(self, ids: Sequence[str]) -> list[bytes]:
        from core.bulk.compact_json import compact_bytes  # noqa: PLC0415  # with the models

        return [compact_bytes(record) for record in self.records(ids)]

    def rows(self, ids: Sequence[str]) -> list[ListRow]:
        return [ListRow.of(record) for record in self.records(ids)]

    def projects(self) -> list[ProjectSummary]:
        return project_summaries(self.scan().records)

    def facets(self) -> Facets:
        return facets_of(self.scan().records)

    def current_project_id(self) -> str:
        return current_project(self.scan().records)

    def digests(self, include_deleted: bool) -> list[tuple[str, str]]:
        from core.bulk.compact_json import record_digest  # noqa: PLC0415  # with the models

        return sorted(
            (r.id, record_digest(r))
            for r in self.scan().records
            if include_deleted or not r.is_deleted
        )
