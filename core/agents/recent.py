"""What was already decided here: recent decisions, agent notes and pending forks, compactly.

Why: an agent that resumes work (a new session, a self-wake, a continuation after a pause)
should start from the choices already made instead of re-deriving them, and must learn at once
that a decision still waits for the human. The answer is deliberately small: a few lines per
decision, long text cut, so it fits in an agent's context next to the task itself.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from core.agents.notes import AgentNote, NoteStore
from core.bulk.listing import list_with_issues
from core.capture.pending import PendingStore
from core.gocompat.text import collapse_spaces, go_trim
from core.index.journal_index import JournalIndex
from core.index.query import IndexFilter
from core.messages.wording import count as count_of
from core.record.filters import ListFilter, sort_key, workspace_matches
from core.record.identity import project_identity
from core.record.models import DecisionRecord
from core.store.decisions import DecisionStore

TEXT_MAX = 280
"""Characters kept of each free-text field; the full record is one `show` away."""
DEFAULT_LIMIT = 10
LIMIT_MAX = 50


def clip(text: str, limit: int = TEXT_MAX) -> str:
    """One line, at most `limit` characters, marked with an ellipsis when cut."""
    flat = collapse_spaces(text)
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


@dataclass(frozen=True, slots=True)
class RecentDecision:
    """A recorded decision in a few fields: the fork, the choice, and why the others lost."""

    decision_id: str
    updated_at: str
    problem: str
    chosen: str
    reason: str
    rejected: tuple[str, ...]
    status: str
    selection_by: str
    rationale_by: str


@dataclass(frozen=True, slots=True)
class RecentNote:
    """An agent note: the agent's own account, provenance `model`."""

    note_id: str
    created_at: str
    goal: str
    decision: str
    why: str
    evidence: str
    provenance: str


@dataclass(frozen=True, slots=True)
class PendingFork:
    """A decision still waiting for the human; editing is blocked until it is answered."""

    decision_id: str
    stage: str
    problem: str


@dataclass(frozen=True, slots=True)
class RecentContext:
    """The answer for one workspace (and optionally one goal), newest first."""

    workspace: str
    project_id: str
    goal: str
    pending: tuple[PendingFork, ...]
    decisions: tuple[RecentDecision, ...]
    notes: tuple[RecentNote, ...]
    issues: tuple[str, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON data: lists, not tuples, so it validates as a JSON schema array."""
        return asdict(self, dict_factory=lambda pairs: {k: _plain(v) for k, v in pairs})


def _plain(value: Any) -> Any:
    return [_plain(item) for item in value] if isinstance(value, tuple) else value


def _decision(record: DecisionRecord) -> RecentDecision:
    rejected = tuple(
        clip(f"{record.option_label(r.option_id) or r.option_id}: {r.reason}", TEXT_MAX)
        for r in record.rejected_reasons
    )
    return RecentDecision(
        decision_id=record.id,
        updated_at=record.updated_at.format() if record.updated_at else "",
        problem=clip(record.problem),
        chosen=clip(record.selected_label()),
        reason=clip(record.selection_reason_raw),
        rejected=rejected,
        status=record.status,
        selection_by=record.provenance.selection,
        rationale_by=record.provenance.rationale,
    )


def _note(note: AgentNote) -> RecentNote:
    return RecentNote(
        note_id=note.id,
        created_at=note.created_at,
        goal=note.goal,
        decision=clip(note.decision),
        why=clip(note.why),
        evidence=clip(note.evidence),
        provenance=note.provenance,
    )


def _belongs(record: DecisionRecord, workspace: str, project_id: str, goal: str) -> bool:
    """Same project, or a workspace below or above this one; a goal narrows to its own."""
    here = record.project_id == project_id or workspace_matches(record.workspace, workspace)
    if not here:
        return False
    return not goal or not record.goal_id or record.goal_id == goal


def _newest_indexed(
    index: JournalIndex, workspace: str, project_id: str, goal: str, count: int
) -> list[DecisionRecord]:
    """The newest `count` records that belong here, loading only the newest candidates.

    The index finds this project's records and this workspace's (above or below) in two
    queries, each newest first; records are loaded from the head of both until the wanted
    ones are certainly the newest: no record left unloaded in a list can be newer than the
    last one loaded from it.
    """
    queries = [IndexFilter(workspace=workspace)]
    if project_id:
        queries.append(IndexFilter(project_id=project_id))
    lists = [index.query_ids(query) for query in queries]
    head = count
    while True:
        loaded = {r.id: r for r in index.records(list(dict.fromkeys(_heads(lists, head))))}
        cuts = [_last_loaded(ids[:head], loaded) for ids in lists if len(ids) > head]
        cut = max(cuts, default=(0, ""))  # every record not loaded is older than this
        newest = sorted(loaded.values(), key=sort_key, reverse=True)
        kept = [
            r for r in newest if sort_key(r) >= cut and _belongs(r, workspace, project_id, goal)
        ]
        if len(kept) >= count or not cuts:
            return kept[:count]
        head *= 4


def _heads(lists: list[list[str]], head: int) -> list[str]:
    return [record_id for ids in lists for record_id in ids[:head]]


def _last_loaded(ids: list[str], loaded: dict[str, DecisionRecord]) -> tuple[int, str]:
    """The order key of the oldest record loaded from a list (a file removed since the query
    is simply not among them)."""
    return min((sort_key(loaded[i]) for i in ids if i in loaded), default=(0, ""))


def recent_context(
    store: DecisionStore,
    notes: NoteStore,
    pending: PendingStore,
    *,
    workspace: str,
    goal: str = "",
    limit: int = DEFAULT_LIMIT,
    index: JournalIndex | None = None,
) -> RecentContext:
    """Recent decisions and notes for `workspace`, plus every fork pending there.

    Args:
        store: the canonical decisions.
        index: the journal's index, which finds them without reading every record (a scan
            takes far longer: bench/CHANGES.md); it is reconciled first, so a long-lived
            caller such as the MCP server sees what other processes wrote since.
        notes: the agent notes.
        pending: the decisions waiting for the human.
        workspace: the project directory the agent works in.
        goal: when given, only notes of this goal, and decisions whose `goal_id` is this goal
            or empty (decisions from agents that do not track goals stay visible).
        limit: decisions and notes each, clamped to 1..50.

    Unreadable records, note lines or pending files become `issues`; they never hide the rest.
    """
    count = min(max(limit, 1), LIMIT_MAX)
    wanted_goal = go_trim(goal)
    project_id = project_identity(workspace).project_id
    if index is None:
        listed = list_with_issues(store, ListFilter())
        unreadable = listed.issues
        records = [r for r in listed.records if _belongs(r, workspace, project_id, wanted_goal)]
    else:
        index.read_changed_files()
        unreadable = index.issues()
        records = _newest_indexed(index, workspace, project_id, wanted_goal, count)
    issues = [f"unreadable record {i.path}: {i.error}" for i in unreadable]
    recent_notes, listing = notes.recent(workspace, goal=wanted_goal, limit=count)
    if listing.damaged_lines:
        issues.append(f"{count_of(listing.damaged_lines, 'unreadable line')} in the notes file")
    waiting = pending.list(workspace=workspace)
    issues.extend(f"unreadable pending decision {i.path}: {i.error}" for i in waiting.issues)
    return RecentContext(
        workspace=workspace,
        project_id=project_id,
        goal=wanted_goal,
        pending=tuple(
            PendingFork(p.decision_id, p.stage, clip(p.proposal.problem)) for p in waiting.items
        ),
        decisions=tuple(_decision(r) for r in records[:count]),
        notes=tuple(_note(n) for n in recent_notes),
        issues=tuple(issues),
    )
