"""Recall: ranked lexical search over decisions and agent notes, with recency decay.

Why its own ranking and not `list --query`: an agent recalling "postgres pooling" wants the few
most relevant past decisions first, not every record containing both words in time order. The
relevance is BM25 over the stems of the words `core.index.fulltext` defines (the index's own
word semantics: "caching" and "cache" are one term), so a term that occurs everywhere counts
little. Candidates come from the journal index (one FTS5
lookup per query word), or from `StoreScan`, which reads every record. Relevance is then
multiplied by a recency factor with the learning journal's half-life (30 days) and a floor, so
an old decision that matches well still outranks a new one that barely matches. Nothing here
uses the network.
"""

from __future__ import annotations

import math
import os
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

from core.agents.notes import NOTES_DIR, AgentNote, NoteStore
from core.agents.recent import clip
from core.bulk.listing import list_with_issues
from core.gocompat.gotime import GoTime
from core.index.fulltext import searched_parts, stem, words
from core.outcomes.verdict import record_outcome
from core.record.models import DecisionRecord
from core.store.decisions import DecisionStore

if TYPE_CHECKING:
    from core.journal import Journal

HALF_LIFE_DAYS = 30.0
RECENCY_FLOOR = 0.25
"""The share of relevance an arbitrarily old match keeps."""
DEFAULT_LIMIT = 8
LIMIT_MAX = 50
_K1 = 1.2
_B = 0.75
_NS_PER_DAY = 86_400 * 1_000_000_000

EntryKind = Literal["decision", "note"]


@dataclass(frozen=True, slots=True)
class RecallEntry:
    """One compact hit an agent can use: what was decided, why, and how it turned out."""

    score: float
    kind: EntryKind
    id: str
    project_id: str
    project_alias: str
    when: str
    text: str
    chosen: str = ""
    reason: str = ""
    outcome: str = ""
    provenance: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class RecallOptions:
    """Args: `now` is injected (tests, reproducible ranking); None reads the clock once."""

    project_id: str = ""
    limit: int = DEFAULT_LIMIT
    now: GoTime | None = None
    half_life_days: float = HALF_LIFE_DAYS
    include_notes: bool = True


class DecisionSource(Protocol):
    """Where candidate decisions come from: the journal index, or a store scan."""

    def candidates(self, terms: Sequence[str], project_id: str) -> tuple[list[DecisionRecord], int]:
        """(records containing any term, number of active records searched)."""
        ...


class StoreScan:
    """Scans every record: the fallback when no index is available."""

    def __init__(self, store: DecisionStore) -> None:
        self.store = store

    def candidates(self, terms: Sequence[str], project_id: str) -> tuple[list[DecisionRecord], int]:
        wanted = {stem(term) for term in terms}
        records = [
            r
            for r in list_with_issues(self.store).records
            if not project_id or r.project_id == project_id
        ]
        return [r for r in records if wanted & set(_record_words(r))], len(records)


class IndexSource:
    """Uses the journal index (`core.index.journal_index.JournalIndex`): one FTS5 lookup per query
    word."""

    def __init__(self, index: Any) -> None:
        self.index = index

    def candidates(self, terms: Sequence[str], project_id: str) -> tuple[list[DecisionRecord], int]:
        from core.index.query import IndexFilter  # noqa: PLC0415  # optional dependency

        ids: dict[str, None] = {}
        for term in terms:
            flt = IndexFilter(project_id=project_id, query=term + " ")
            ids.update(dict.fromkeys(self.index.query_ids(flt)))
        total = len(self.index.query_ids(IndexFilter(project_id=project_id)))
        return list(self.index.records(list(ids))), total


def default_source(store: DecisionStore) -> DecisionSource:
    """The store's journal index."""
    from core.index.journal_index import JournalIndex  # noqa: PLC0415  # loaded when recall runs

    return IndexSource(JournalIndex(store.root, store))


def _record_words(record: DecisionRecord) -> list[str]:
    """Stems of the words of the searched fields; a text repeated in several fields counts
    once."""
    found: list[str] = []
    for part in dict.fromkeys(searched_parts(record)):
        found.extend(stem(word) for word in words(part))
    return found


def _note_words(note: AgentNote) -> list[str]:
    return [stem(w) for w in words(" ".join((note.decision, note.why, note.evidence, note.goal)))]


def recency(when: GoTime | None, now: GoTime, half_life_days: float) -> float:
    """FLOOR + (1 - FLOOR) · 2^(-age / half-life); 1 for undated or future items."""
    if when is None or half_life_days <= 0 or when.unix_ns >= now.unix_ns:
        return 1.0
    age_days = (now.unix_ns - when.unix_ns) / _NS_PER_DAY
    return RECENCY_FLOOR + (1.0 - RECENCY_FLOOR) * math.pow(0.5, age_days / half_life_days)


def bm25(
    terms: Sequence[str], docs: Sequence[list[str]], total: int, df: Counter[str]
) -> list[float]:
    """BM25 relevance of each doc; `df` counts docs per term over a corpus of `total` docs."""
    average = (sum(len(d) for d in docs) / len(docs)) if docs else 1.0
    scores = []
    for doc in docs:
        tf = Counter(doc)
        norm = _K1 * (1.0 - _B + _B * len(doc) / max(average, 1.0))
        score = 0.0
        for term in terms:
            if tf[term]:
                idf = math.log(1.0 + (total - df[term] + 0.5) / (df[term] + 0.5))
                score += idf * tf[term] * (_K1 + 1.0) / (tf[term] + norm)
        scores.append(score)
    return scores


def _decision_entry(record: DecisionRecord, score: float) -> RecallEntry:
    chosen = record.selected_label()
    reason = record.selection_reason_raw
    return RecallEntry(
        score=round(score, 6),
        kind="decision",
        id=record.id,
        project_id=record.project_id,
        project_alias=record.project_alias,
        when=record.created_at.format() if record.created_at else "",
        text=clip(f"{record.problem} -> {chosen}"),
        chosen=clip(chosen),
        reason=clip(reason),
        outcome=record_outcome(record) or "",
        provenance=record.provenance.selection,
    )


def _note_entry(note: AgentNote, score: float) -> RecallEntry:
    return RecallEntry(
        score=round(score, 6),
        kind="note",
        id=note.id,
        project_id=note.project_id,
        project_alias=note.project_alias,
        when=note.created_at,
        text=clip(note.decision),
        reason=clip(note.why),
        provenance=note.provenance,
    )


def _all_notes(notes: NoteStore, project_id: str) -> list[AgentNote]:
    try:
        names = os.listdir(notes.root / NOTES_DIR)
    except FileNotFoundError:
        return []
    found: list[AgentNote] = []
    for name in sorted(names):
        stem = name[: -len(".jsonl")] if name.endswith(".jsonl") else ""
        if stem and (not project_id or stem == project_id):
            found.extend(notes.read(stem).notes)
    return found


def recall(
    store: DecisionStore,
    query: str,
    options: RecallOptions | None = None,
    *,
    notes: NoteStore | None = None,
    source: DecisionSource | None = None,
) -> list[RecallEntry]:
    """The best matches for `query`, highest score first; deleted decisions never appear.

    Args:
        notes: agent notes to search too (omit to search decisions only).
        source: where candidate decisions come from (default: the journal index).
    """
    options = options or RecallOptions()
    terms = list(dict.fromkeys(words(query)))
    if not terms:
        return []
    now = options.now or GoTime.now()
    records, total = (source or default_source(store)).candidates(terms, options.project_id)
    terms = list(dict.fromkeys(stem(term) for term in terms))  # ranked by stem, as docs are
    records = [r for r in records if not r.is_deleted]
    docs: list[tuple[GoTime | None, list[str], RecallEntry]] = [
        (r.created_at, _record_words(r), _decision_entry(r, 0.0)) for r in records
    ]
    if notes is not None and options.include_notes:
        listed = _all_notes(notes, options.project_id)
        total += len(listed)
        matching = [(n, _note_words(n)) for n in listed]
        docs += [
            (GoTime.parse_or_none(n.created_at), w, _note_entry(n, 0.0))
            for n, w in matching
            if set(terms) & set(w)
        ]
    return _rank(terms, docs, total, now, options)


def _rank(
    terms: list[str],
    docs: list[tuple[GoTime | None, list[str], RecallEntry]],
    total: int,
    now: GoTime,
    options: RecallOptions,
) -> list[RecallEntry]:
    df: Counter[str] = Counter()
    for _, doc_words, _ in docs:
        df.update(set(doc_words) & set(terms))
    scores = bm25(terms, [d[1] for d in docs], max(total, len(docs)), df)
    ranked = [
        _rescored(entry, score * recency(when, now, options.half_life_days))
        for (when, _, entry), score in zip(docs, scores, strict=True)
        if score > 0
    ]
    ranked.sort(key=lambda e: (e.when, e.id), reverse=True)  # ties: newest first
    ranked.sort(key=lambda e: -e.score)
    return ranked[: _limit(options)]


def _rescored(entry: RecallEntry, score: float) -> RecallEntry:
    data = entry.to_dict()
    data["score"] = round(score, 6)
    return RecallEntry(**data)


def _limit(options: RecallOptions) -> int:
    return min(max(options.limit, 1), LIMIT_MAX)


def entries_json(entries: Iterable[RecallEntry]) -> list[dict[str, Any]]:
    return [entry.to_dict() for entry in entries]


def recall_journal(
    journal: Journal,
    query: str,
    options: RecallOptions | None = None,
) -> list[RecallEntry]:
    """Recall over a journal's decisions (through its index) and its agent notes.

    This is what the CLI `recall` command calls, and what the MCP `recent_decisions` tool
    calls when given a query. The index is reconciled first: a long-lived caller such as the
    MCP server would otherwise never see records other processes wrote after its first query
    (the app commits the decisions an agent asks for).
    """
    journal.index.read_changed_files()
    return recall(
        journal.store,
        query,
        options,
        notes=NoteStore(journal.root),
        source=IndexSource(journal.index),
    )
