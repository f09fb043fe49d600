"""The hook's light same-place rules (`core.bulk.pending_lookup`) against the plain ones."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.bulk.pending_lookup import (
    blocking,
    blocks,
    canonical_path,
    paths_overlap,
    pending_rows,
    project_id_of,
)
from core.capture.pending import PendingDecision, PendingStore, pending_items
from core.capture.pending_index import listed, read_current
from core.capture.proposal import Selection, parse_proposal
from core.capture.workspace_pending import find_blockers
from core.record.filters import workspace_matches
from core.record.identity import canonical_workspace_path, project_identity
from tests.factories import proposal_dict

_PATHS = st.lists(st.sampled_from(["a", "b", "..", ".", "", " ", "/", "x y"]), max_size=5).map(
    "/".join
)


@settings(max_examples=300, deadline=None)
@given(left=_PATHS, right=_PATHS, absolute=st.booleans())
def test_paths_overlap_is_workspace_matches(left: str, right: str, absolute: bool) -> None:
    if absolute:
        left, right = "/" + left, "/" + right
    assert paths_overlap(left, right) == workspace_matches(left, right)


@settings(max_examples=100, deadline=None)
@given(path=_PATHS)
def test_project_id_of_is_project_identity(
    path: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    base = tmp_path_factory.getbasetemp()
    for candidate in (path, str(base / path), f"  {base}/{path}\t"):
        assert project_id_of(candidate) == project_identity(candidate).project_id


@given(path=_PATHS)
def test_canonical_path_is_canonical_workspace_path(
    path: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    base = tmp_path_factory.getbasetemp()
    for candidate in (path, str(base / path), f"  {base}/{path}\t"):
        assert canonical_path(candidate) == canonical_workspace_path(candidate)


_PLACES = ("a", "a/sub", "b", "link", "link/sub")
"""`link` is a symlink to `a`: a subfolder reached through it is still inside `a`."""


@settings(max_examples=60, deadline=None)
@given(
    pending=st.lists(
        st.tuples(
            st.sampled_from(_PLACES),
            st.sampled_from(("s1", "s2")),
            st.sampled_from(("readable", "damaged", "at the root")),
        ),
        max_size=4,
    ),
    caller_session=st.sampled_from(("", "s1", "s2", "s3")),
    caller_place=st.sampled_from(("", *_PLACES, "c", "/")),
)
def test_blocking_from_the_index_is_find_blockers(
    pending: list[tuple[str, str, str]], caller_session: str, caller_place: str
) -> None:
    """The hook's quick deny names the same decisions, problems and order as the full path."""
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        for place in ("a/sub", "b", "c"):
            (base / place).mkdir(parents=True, exist_ok=True)
        (base / "link").symlink_to(base / "a")
        store = PendingStore(base / "journal")
        for index, (place, session, state) in enumerate(pending):
            parsed = parse_proposal(
                proposal_dict(problem=f"Problem number {index}"),
                workspace=str(base / place),
                session_id=session,
                agent="cc",
            )
            decision = store.save(PendingDecision(parsed)).decision_id
            if state != "readable":
                path = store.path(decision)
                data = json.loads(path.read_text())
                if state == "damaged":
                    data["proposal"]["options"] = []
                else:  # as an older version may have written it
                    data["workspace"] = "/"
                path.write_text(json.dumps(data))
        store.refresh_index()
        workspace = str(base / caller_place) if caller_place else ""
        caller = {"session_id": caller_session, "workspace": workspace}
        entries = read_current(store.directory) if pending else []
        assert entries is not None
        quick = [(e.decision_id, e.problem, e.damaged) for e in blocking(entries, **caller)]
        full = [(b.decision_id, b.problem, b.damaged) for b in find_blockers(store, **caller)]
        assert quick == full
        assert blocks(entries, **caller) is bool(full)


def test_a_subfolder_reached_through_a_symlink_is_inside_the_pending_project(
    tmp_path: Path,
) -> None:
    (tmp_path / "project" / "sub" / "deep").mkdir(parents=True)  # a hook's cwd exists
    (tmp_path / "link").symlink_to(tmp_path / "project")
    store = PendingStore(tmp_path / "journal")
    parsed = parse_proposal(
        proposal_dict(), workspace=str(tmp_path / "project"), session_id="s1", agent="cc"
    )
    decision = store.save(PendingDecision(parsed)).decision_id
    store.refresh_index()
    entries = read_current(store.directory)
    assert entries is not None
    for place in ("link/sub", "link/sub/deep", "link"):
        caller = {"session_id": "other", "workspace": str(tmp_path / place)}
        assert [b.decision_id for b in find_blockers(store, **caller)] == [decision], place
        assert blocks(entries, **caller), place


@settings(max_examples=30, deadline=None)
@given(
    pending=st.lists(
        st.tuples(st.sampled_from(_PLACES), st.booleans(), st.booleans()),
        max_size=4,
    ),
    later=st.integers(0, 10**15),
)
def test_pending_rows_from_the_index_are_pending_items(
    pending: list[tuple[str, bool, bool]], later: int
) -> None:
    """`status` and `pending` list from the index exactly what the pending store lists."""
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        store = PendingStore(base / "journal")
        assert listed(store.directory) == []
        for index, (place, rationale, damaged) in enumerate(pending):
            (base / place).mkdir(parents=True, exist_ok=True)
            parsed = parse_proposal(
                proposal_dict(problem=f"Problem number {index}"),
                workspace=str(base / place),
                session_id=f"s{index}",
                agent="cc",
            )
            stage = "rationale" if rationale else "choice"
            chosen = Selection("single-json") if rationale else Selection()
            decision = store.save(PendingDecision(parsed, stage, chosen)).decision_id
            if damaged:
                path = store.path(decision)
                data = json.loads(path.read_text())
                data["stage"] = 7
                path.write_text(json.dumps(data))
        store.refresh_index()
        entries = listed(store.directory)
        assert entries is not None
        now_ns = (entries[0].created_ns if entries else 0) + later
        assert pending_rows(entries, now_ns) == pending_items(store, now_ns=now_ns)
