"""The values the journal window and the bridge hand each other: requests and their answers.

Why one module of plain values: the bridge runs disk work for the window's widgets, so it must
know what they ask (a `FilterState`, an override, an export, an import) and what it answers
(a first page, a count, a saved revision, a report). Kept here, the bridge imports no widget
module and a widget needs the bridge only to call it, so the journal package has no import
cycle. Nothing here touches the disk or Qt.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, fields, replace
from datetime import datetime, time, timedelta
from pathlib import Path
from typing import Any

from app.gui.journal.export_formats import ExportFormat
from core.decider.score import KindScore
from core.gocompat.gotime import GoTime
from core.importers.base import ImportReport
from core.index.query import IndexFilter
from core.index.rows import Facets, ListRow, ProjectSummary
from core.messages.language import ENGLISH
from core.outcomes.rule_scores import RuleOutcome
from core.outcomes.verdict import KindAcceptance
from core.profile.model import PreferenceProfile, ProfileStatus
from core.record.models import DecisionRecord
from core.store.correction_notes import CorrectionNote
from core.store.record_files import ListIssue

PAGE_SIZE = 100
"""Rows per page of the decision list; the first page of a scope is one query this long."""
SCOPE_CURRENT = "current"
SCOPE_ALL = "all"
SCOPE_PROJECT = "project"

SORT_NEWEST = "newest"
SORT_OLDEST = "oldest"
SORT_PROBLEM = "problem"
SORT_PROJECT = "project"
SORT_RISK = "risk"
SORTS = (
    (SORT_NEWEST, "Newest first"),
    (SORT_OLDEST, "Oldest first"),
    (SORT_PROBLEM, "Problem A–Z"),
    (SORT_PROJECT, "Project A–Z"),
    (SORT_RISK, "Highest risk first"),
)
_RISK_RANK = {"critical": 0, "high": 1, "medium": 2, "low": 3}


def sort_ids(
    ids: list[str], sort: str, rows_of: Callable[[Sequence[str]], list[ListRow]]
) -> list[str]:
    """The matching IDs (newest first, as the index gives them) in the chosen order.

    Ties keep the newest first, so the order is stable between two loads of one scope.
    `rows_of` is only called for orders that need more than the IDs.
    """
    if sort == SORT_OLDEST:
        return list(reversed(ids))
    if sort not in (SORT_PROBLEM, SORT_PROJECT, SORT_RISK):
        return list(ids)
    rows = rows_of(ids)
    if sort == SORT_PROBLEM:
        rows.sort(key=lambda row: " ".join(row.problem.split()).casefold())
    elif sort == SORT_PROJECT:
        rows.sort(key=lambda row: (row.project_alias or row.project_id).casefold())
    else:
        rows.sort(key=lambda row: _RISK_RANK.get(row.risk_level, len(_RISK_RANK)))
    return [row.id for row in rows]


@dataclass(frozen=True, slots=True)
class FilterState:
    """What the user asked to see; dates are ISO days (inclusive), "" for open-ended."""

    scope: str = SCOPE_CURRENT
    project_id: str = ""
    domain: str = ""
    decision_kind: str = ""
    status: str = ""
    risk_level: str = ""
    date_from: str = ""
    date_to: str = ""
    query: str = ""
    include_deleted: bool = False
    sort: str = SORT_NEWEST

    def to_index_filter(self, current_project: str) -> IndexFilter:
        """`current_project` is used for the current scope; "" there means every project."""
        project = {SCOPE_CURRENT: current_project, SCOPE_PROJECT: self.project_id}.get(
            self.scope, ""
        )
        return IndexFilter(
            project_id=project,
            domain=self.domain,
            decision_kind=self.decision_kind,
            status=self.status,
            risk_level=self.risk_level,
            query=self.query.strip(),
            include_deleted=self.include_deleted or self.status == "deleted",
            updated_from=_day_start(self.date_from),
            updated_to=_day_start(self.date_to, days=1),
        )

    def to_settings(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_settings(cls, data: object) -> FilterState:
        """Tolerates missing, extra and mistyped keys: settings files outlive versions."""
        if not isinstance(data, dict):
            return cls()
        known: dict[str, Any] = {}
        for item in fields(cls):
            value = data.get(item.name)
            if item.name == "include_deleted":
                known[item.name] = value in (True, "true", "1", 1)
            elif isinstance(value, str):
                known[item.name] = value
        state = cls(**known)
        if state.scope not in (SCOPE_CURRENT, SCOPE_ALL, SCOPE_PROJECT):
            state = replace(state, scope=SCOPE_CURRENT)
        if state.sort not in dict(SORTS):
            state = replace(state, sort=SORT_NEWEST)
        return state


def _day_start(iso_day: str, *, days: int = 0) -> GoTime | None:
    """Local midnight of the day (plus `days`), so a date range means the user's calendar days."""
    if not iso_day:
        return None
    try:
        day = datetime.fromisoformat(iso_day).date() + timedelta(days=days)
    except ValueError:
        return None
    moment = datetime.combine(day, time()).astimezone()
    return GoTime(int(moment.timestamp()) * 1_000_000_000)


# the list's answers --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ScopePage:
    """The first page of a freshly applied filter, shown before the matches are counted."""

    generation: int
    rows: list[ListRow]
    current_project: str = ""
    elsewhere: int = 0
    """When this scope is empty: how many decisions the filter finds in every project."""
    journal_empty: bool = False
    """When this scope is empty: the journal holds no decision at all, deleted ones included."""


@dataclass(frozen=True, slots=True)
class ScopeCount:
    """The snapshot of every match; `rows` replaces the first page when it changed meanwhile."""

    generation: int
    snapshot_id: str
    total: int
    rows: list[ListRow] | None = None
    truncated: int = 0
    """When the matches exceeded the snapshot bounds: how many there were (the newest are kept)."""
    kept: str = ""
    """The decision the window asked about (the one on screen), "" when none."""
    kept_listed: bool = False
    """Whether the snapshot holds `kept`: False puts "not in this view" beside it."""


# requests of the panels and dialogs --------------------------------------------------------


@dataclass(frozen=True, slots=True)
class OverrideRequest:
    """One override change to save: exactly one of enabled, pinned and note is set."""

    rule_id: str
    expected_revision: int
    enabled: bool | None = None
    pinned: bool | None = None
    note: str | None = None


@dataclass(frozen=True, slots=True)
class ExportRequest:
    """What the dialog hands the bridge: which records, which format, where, and a cancel flag."""

    flt: IndexFilter
    fmt: ExportFormat
    directory: Path
    when: GoTime
    cancel: threading.Event
    language: str = ENGLISH
    """The reader's language, for the summaries of a CSV (`core.messages.language`)."""


@dataclass(frozen=True, slots=True)
class ExportOutcome:
    """`cancel` identifies the request (the dialog compares it); `path` is set on success."""

    cancel: threading.Event
    path: Path | None
    count: int
    ok: bool
    message: str = ""


@dataclass(frozen=True, slots=True)
class ImportRequest:
    """One run of the Import dialog; `kind` "" means detect it from the source first."""

    source: Path
    kind: str
    dry_run: bool
    cancel: threading.Event


@dataclass(frozen=True, slots=True)
class ImportOutcome:
    """`cancel` identifies the request; `report` is set, or `error` (with `unknown_source`)."""

    cancel: threading.Event
    report: ImportReport | None = None
    error: str = ""
    unknown_source: bool = False
    """With `error`: the kind was to be detected and no importer recognised the source."""


@dataclass(frozen=True, slots=True)
class OutcomeFigures:
    """The profile tab's outcome tables: acceptance per kind, and each rule's outcome."""

    acceptance: list[KindAcceptance]
    rules: dict[str, RuleOutcome]
    rules_error: str = ""


# the bridge's other answers ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Catalog:
    """What the filter menus and the banner need: projects, facets, current project, issues."""

    projects: list[ProjectSummary]
    facets: Facets
    current_project: str
    issues: list[ListIssue]
    waiting_project: str = ""
    """The project of the newest waiting decision (the waiting panel's notes), else current."""


@dataclass(frozen=True, slots=True)
class MutationResult:
    """The outcome of an edit, delete, restore or confirm; exactly one outcome field is set."""

    action: str
    decision_id: str
    record: DecisionRecord | None = None
    newer: DecisionRecord | None = None
    no_changes: bool = False
    error: str = ""
    field: str = ""
    """With `error`, the record field it is about, when the store named one."""
    warning: str = ""
    """Set beside `record` when the revision was saved but its correction note was not."""
    settled: bool = False
    """Beside `record`: the revision settled the decision's sync conflict. Beside `error`: the
    decision waits for a choice of version and the change was not asked to settle it."""


@dataclass(frozen=True, slots=True)
class MovedAside:
    """What "Move aside" did: (file, where it went) and (file, why it stayed)."""

    moved: list[tuple[str, str]]
    failed: list[tuple[str, str]]


@dataclass(frozen=True, slots=True)
class RevisionHistory:
    """A decision's revisions 1..N and the correction notes saved with some of them."""

    revisions: list[DecisionRecord]
    notes: dict[int, CorrectionNote]


@dataclass(frozen=True, slots=True)
class ModesView:
    """Each decision kind's mode and score; `error` when they could not be read."""

    scores: list[KindScore]
    error: str = ""


@dataclass(frozen=True, slots=True)
class ProfileView:
    """The preference profile with its rebuild state; `error` when it could not be read."""

    profile: PreferenceProfile
    status: ProfileStatus | None
    error: str = ""
