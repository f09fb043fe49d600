"""The quick path's answer from the pending index is the full path's answer from the pending
files: for every caller, `core.bulk.pending_lookup.blocks` says "blocked" exactly when
`core.capture.workspace_pending.find_blockers` finds a blocker."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from core.bulk.pending_lookup import blocks
from core.capture.pending import PendingDecision, PendingStore
from core.capture.pending_index import read_current
from core.capture.proposal import parse_proposal
from core.capture.workspace_pending import find_blockers
from tests.factories import proposal_dict

SESSIONS = ["s-repo", "s-else", "s-damaged", "someone", ""]
PLACES = ["repo", "repo/src", ".", "elsewhere", "link", "unrelated", "damaged-place"]


def pend(store: PendingStore, workspace: Path, session: str, problem: str) -> str:
    parsed = parse_proposal(
        proposal_dict(problem=problem), workspace=str(workspace), session_id=session, agent="cc"
    )
    return store.save(PendingDecision(parsed)).decision_id


@pytest.fixture(params=["healthy", "readable damage", "unreadable damage"])
def journal(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[PendingStore, Path]:
    base = tmp_path / "work"
    for name in ("repo/src", "elsewhere", "unrelated", "damaged-place"):
        (base / name).mkdir(parents=True)
    (base / "link").symlink_to(base / "repo")
    store = PendingStore(tmp_path / "journal")
    pend(store, base / "repo", "s-repo", "Pick the storage layout")
    pend(store, base / "elsewhere", "s-else", "Pick the queue library")
    if request.param != "healthy":
        damaged = store.path(pend(store, base / "damaged-place", "s-damaged", "Pick a cache"))
        data = json.loads(damaged.read_text())
        data["proposal"]["options"] = []
        damaged.write_text("{broken" if request.param == "unreadable damage" else json.dumps(data))
        store.refresh_index()
    return store, base


def test_the_index_decides_as_the_pending_files_for_every_caller(
    journal: tuple[PendingStore, Path],
) -> None:
    store, base = journal
    entries = read_current(store.directory)
    assert entries is not None
    for session, place in itertools.product(SESSIONS, PLACES):
        workspace = str(base / place)
        full = bool(find_blockers(store, session_id=session, workspace=workspace))
        quick = blocks(entries, session_id=session, workspace=workspace)
        assert quick == full, (session, place)
