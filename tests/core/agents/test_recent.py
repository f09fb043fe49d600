"""Recent context for a workspace: decisions, notes and pending forks, compact and newest first."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from core.agents.notes import NoteStore
from core.agents.recent import TEXT_MAX, recent_context
from core.capture.machine import CaptureService, NeedsHuman
from core.capture.pending import PendingStore
from core.gocompat.gotime import GoTime
from core.index.journal_index import JournalIndex
from core.record.codec import encode_record
from core.record.identity import project_identity
from core.record.normalize import normalize_record
from core.store.decisions import DecisionStore
from tests.factories import make_record, proposal_dict


@pytest.fixture
def journal(tmp_path: Path) -> Path:
    return tmp_path / "journal"


@pytest.fixture
def workspace(tmp_path: Path) -> str:
    path = tmp_path / "repo"
    path.mkdir()
    return str(path)


@pytest.fixture(autouse=True, params=["store scan", "index"])
def through_index(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> bool:
    """Every test runs on both sources of decisions: a scan of the store, and the index."""
    monkeypatch.setattr(Source, "index", request.param == "index")
    return bool(request.param == "index")


class Source:
    index = False


def context(journal: Path, workspace: str, **kw: object):  # type: ignore[no-untyped-def]
    store = DecisionStore(journal)
    return recent_context(
        store,
        NoteStore(journal),
        PendingStore(journal),
        workspace=workspace,
        index=JournalIndex(journal, store) if Source.index else None,
        **kw,  # type: ignore[arg-type]
    )


def put(journal: Path, workspace: str, number: int, **overrides: object) -> str:
    identity = project_identity(workspace)
    record = make_record(
        id=f"decision-{number}",
        project_id=identity.project_id,
        workspace=workspace,
        **overrides,
    )
    return DecisionStore(journal).put(record).id


def test_empty_journal_gives_an_empty_context(journal: Path, workspace: str) -> None:
    result = context(journal, workspace)
    assert (result.decisions, result.notes, result.pending, result.issues) == ((), (), (), ())
    assert result.project_id == project_identity(workspace).project_id


def test_decisions_of_this_project_only_with_rejections(
    journal: Path, workspace: str, tmp_path: Path
) -> None:
    mine = put(journal, workspace, 1)
    other = tmp_path / "other"
    other.mkdir()
    put(journal, str(other), 2)
    result = context(journal, workspace)
    assert [d.decision_id for d in result.decisions] == [mine]
    decision = result.decisions[0]
    assert decision.chosen == "Per-record JSON"
    assert decision.rejected == ("Single JSON document: global rewrite bottleneck",)
    assert (decision.selection_by, decision.rationale_by) == ("user", "user")


def test_a_subdirectory_sees_the_project_decisions(journal: Path, workspace: str) -> None:
    mine = put(journal, workspace, 1)
    sub = Path(workspace) / "src"
    sub.mkdir()
    assert [d.decision_id for d in context(journal, str(sub)).decisions] == [mine]


def test_long_text_is_clipped(journal: Path, workspace: str) -> None:
    put(journal, workspace, 1, problem="p" * 3000)
    (decision,) = context(journal, workspace).decisions
    assert len(decision.problem) == TEXT_MAX
    assert decision.problem.endswith("…")


def test_limit_applies_to_decisions_and_notes(journal: Path, workspace: str) -> None:
    for number in range(5):
        put(journal, workspace, number)
        NoteStore(journal).append(workspace=workspace, decision=f"n{number}", why="w")
    result = context(journal, workspace, limit=2)
    assert len(result.decisions) == 2
    assert [n.decision for n in result.notes] == ["n4", "n3"]


def test_goal_filters_notes_and_goal_tagged_decisions(journal: Path, workspace: str) -> None:
    plain = put(journal, workspace, 1)
    put(journal, workspace, 2, goal_id="goal-other")
    tagged = put(journal, workspace, 3, goal_id="goal-a")
    NoteStore(journal).append(workspace=workspace, decision="for a", why="w", goal="goal-a")
    NoteStore(journal).append(workspace=workspace, decision="for b", why="w", goal="goal-b")
    result = context(journal, workspace, goal="goal-a")
    assert {d.decision_id for d in result.decisions} == {plain, tagged}
    assert [n.decision for n in result.notes] == ["for a"]


def test_pending_forks_are_listed(journal: Path, workspace: str) -> None:
    service = CaptureService(DecisionStore(journal), PendingStore(journal))
    outcome = service.begin(proposal_dict(), workspace=workspace, session_id="s1")
    assert isinstance(outcome, NeedsHuman)
    result = context(journal, workspace)
    assert [p.decision_id for p in result.pending] == [outcome.ticket.decision_id]
    assert result.pending[0].stage == "choice"


def test_unreadable_record_becomes_an_issue_not_a_failure(journal: Path, workspace: str) -> None:
    mine = put(journal, workspace, 1)
    (journal / "records" / "decision-broken.json").write_text("{", encoding="utf-8")
    result = context(journal, workspace)
    assert [d.decision_id for d in result.decisions] == [mine]
    assert len(result.issues) == 1
    assert "decision-broken.json" in result.issues[0]


def test_to_dict_is_plain_json(journal: Path, workspace: str) -> None:
    put(journal, workspace, 1)
    data = context(journal, workspace).to_dict()
    assert data["decisions"][0]["decision_id"] == "decision-1"
    assert data["notes"] == []


def test_a_long_lived_index_sees_records_other_processes_wrote(
    journal: Path, workspace: str
) -> None:
    """The MCP server keeps one index for its life; the app commits what agents ask."""
    first = put(journal, workspace, 1)
    store = DecisionStore(journal)
    index = JournalIndex(journal, store)

    def ids() -> list[str]:
        result = recent_context(
            store, NoteStore(journal), PendingStore(journal), workspace=workspace, index=index
        )
        return [d.decision_id for d in result.decisions]

    assert ids() == [first]
    later = put(journal, workspace, 2)  # another store instance: this index is not told
    assert ids() == [later, first]


_PLACES = ["repo", "repo/src", "other", "repo-two"]


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@example(  # the newest of one query's head is for another goal, the next newest is not loaded
    rows=[
        ("repo/src", "goal-b", 9, False),
        ("repo/src", "goal-a", 8, False),
        ("repo", "goal-a", 7, False),
    ],
    here="repo",
    goal="goal-a",
    limit=1,
)
@given(
    rows=st.lists(
        st.tuples(
            st.sampled_from(_PLACES),
            st.sampled_from(["", "goal-a", "goal-b"]),
            st.integers(0, 5),
            st.booleans(),
        ),
        max_size=14,
    ),
    here=st.sampled_from(_PLACES),
    goal=st.sampled_from(["", "goal-a"]),
    limit=st.integers(1, 4),
)
def test_the_index_finds_what_the_scan_finds(
    tmp_path_factory: pytest.TempPathFactory,
    rows: list[tuple[str, str, int, bool]],
    here: str,
    goal: str,
    limit: int,
) -> None:
    """Records of this project or of a workspace above or below, goals, ties in time and
    deleted records: the newest `limit` are the same whichever way they are found."""
    base = tmp_path_factory.mktemp("recent")
    journal = base / "journal"
    store = DecisionStore(journal)
    store.records_dir.mkdir(parents=True)
    for number, (place, goal_id, minute, deleted) in enumerate(rows):
        workspace = str(base / place)
        stamp = GoTime(1_780_000_000_000_000_000 + minute * 60_000_000_000)  # ties: id decides
        record = make_record(
            id=f"decision-{number}",
            project_id=project_identity(workspace).project_id,
            workspace=workspace,
            goal_id=goal_id,
            created_at=stamp,
            updated_at=stamp,
            status="deleted" if deleted else "completed",
            deleted_at=stamp if deleted else None,
        )
        store.record_path(record.id).write_bytes(encode_record(normalize_record(record)))
    workspace = str(base / here)

    def found(index: JournalIndex | None) -> list[str]:
        result = recent_context(
            store,
            NoteStore(journal),
            PendingStore(journal),
            workspace=workspace,
            goal=goal,
            limit=limit,
            index=index,
        )
        return [d.decision_id for d in result.decisions]

    assert found(JournalIndex(journal, store)) == found(None)
