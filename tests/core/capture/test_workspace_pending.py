"""One pending decision per workspace (docs/agents.md rule 5), as ask, MCP and the hooks read it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.capture.pending import PendingDecision
from core.capture.proposal import parse_proposal
from core.capture.workspace_pending import find_blockers, other_pending_here
from core.journal import Journal
from tests.factories import decision, proposal_dict


@pytest.fixture
def journal(tmp_path: Path) -> Journal:
    return Journal(tmp_path / "journal")


def _pend(journal: Journal, workspace: Path, session: str, problem: str) -> str:
    parsed = parse_proposal(
        proposal_dict(problem=problem), workspace=str(workspace), session_id=session
    )
    return journal.pending.save(PendingDecision(parsed)).decision_id


def _other(journal: Journal, decision_id: str, workspace: Path) -> str | None:
    blocker = other_pending_here(journal.store, journal.pending, decision_id, str(workspace))
    return None if blocker is None else blocker.decision_id


def test_another_pending_decision_in_the_workspace_or_around_it_blocks(
    journal: Journal, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    pending = _pend(journal, project, "session-a", "Pick a storage layout")
    assert _other(journal, "decision-new", project) == pending
    assert _other(journal, "decision-new", project / "src") == pending  # inside it
    assert _other(journal, "decision-new", tmp_path) == pending  # around it
    assert _other(journal, pending, project) is None  # resuming it is allowed


def test_an_unrelated_workspace_or_a_recorded_decision_is_not_blocked(
    journal: Journal, tmp_path: Path
) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    _pend(journal, tmp_path / "a", "session-a", "Pick a storage layout")
    assert _other(journal, "decision-new", tmp_path / "b") is None
    recorded = journal.store.put(decision(1))
    assert _other(journal, recorded.id, tmp_path / "a") is None  # asking again returns it


def test_a_damaged_pending_file_blocks_the_hooks_but_not_a_new_proposal(
    journal: Journal, tmp_path: Path
) -> None:
    """The hooks fail closed on it; refusing proposals for it would block the human's fix."""
    journal.pending.directory.mkdir(parents=True, mode=0o700)
    (journal.pending.directory / "decision-broken.json").write_text("{")
    [blocker] = find_blockers(journal.pending, session_id="s", workspace=str(tmp_path))
    assert blocker.damaged and blocker.decision_id == "decision-broken"
    assert _other(journal, "decision-new", tmp_path) is None


def test_a_pending_file_at_the_filesystem_root_holds_only_agents_at_the_root(
    journal: Journal, tmp_path: Path
) -> None:
    """New proposals cannot name '/', but a file an older version wrote may: everything is
    inside '/', and one such file must not stop every agent in every project."""
    project = tmp_path / "project"
    project.mkdir()
    decision_id = _pend(journal, project, "session-a", "Pick a storage layout")
    path = journal.pending.directory / f"{decision_id}.json"
    stored = json.loads(path.read_text(encoding="utf-8"))
    stored["workspace"] = "/"
    path.write_text(json.dumps(stored), encoding="utf-8")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert find_blockers(journal.pending, session_id="s", workspace=str(elsewhere)) == []
    [blocker] = find_blockers(journal.pending, session_id="s", workspace="/")
    assert blocker.decision_id == decision_id
    assert find_blockers(journal.pending, session_id="session-a", workspace=str(elsewhere))
