"""The hook's light same-place rules (`core.bulk.pending_lookup`) against the plain ones."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.bulk.pending_lookup import canonical_path, paths_overlap, project_id_of
from core.record.filters import workspace_matches
from core.record.identity import canonical_workspace_path, project_identity

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
