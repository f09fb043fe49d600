"""The pending index the hook reads before any journal code: kept current by the store,
trusted only when it provably matches the directory, and deciding exactly as gating does."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from core.bulk.pending_lookup import blocks
from core.capture.pending import PendingDecision, PendingStore
from core.capture.pending_index import (
    INDEX_NAME,
    PendingBlocker,
    encode,
    listed,
    read_current,
)
from core.capture.proposal import parse_proposal
from core.record.identity import canonical_workspace_path, project_identity
from tests.factories import proposal_dict


def pend(store: PendingStore, workspace: Path, session: str, problem: str = "") -> str:
    fields = {"problem": problem} if problem else {}
    parsed = parse_proposal(
        proposal_dict(**fields), workspace=str(workspace), session_id=session, agent="cc"
    )
    return store.save(PendingDecision(parsed)).decision_id


@pytest.fixture
def store(tmp_path: Path) -> PendingStore:
    return PendingStore(tmp_path / "journal")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "repo"
    (path / "src").mkdir(parents=True)
    return path


def test_the_store_keeps_the_index_current(store: PendingStore, repo: Path) -> None:
    first = pend(store, repo, "s-1")
    second = pend(store, repo.parent, "s-2", problem="Pick a cache invalidation strategy")
    entries = read_current(store.directory)
    assert entries is not None
    assert {e.decision_id: e.session_id for e in entries} == {first: "s-1", second: "s-2"}
    assert {e.project_id for e in entries} == {
        project_identity(str(repo)).project_id,
        project_identity(str(repo.parent)).project_id,
    }
    store.remove(second)
    assert [e.decision_id for e in read_current(store.directory) or []] == [first]
    store.remove(first)
    assert not (store.directory / INDEX_NAME).exists()


@pytest.mark.parametrize(
    ("session", "where", "blocked"),
    [
        ("s-1", "elsewhere", True),
        ("other", "repo", True),
        ("other", "repo/src", True),
        ("other", ".", True),
        ("other", "elsewhere", False),
        ("", "elsewhere", False),
    ],
)
def test_blocks_the_session_the_project_and_paths_inside_each_other(
    store: PendingStore, repo: Path, session: str, where: str, blocked: bool
) -> None:
    (repo.parent / "elsewhere").mkdir()
    pend(store, repo, "s-1")
    entries = read_current(store.directory)
    assert entries is not None
    assert blocks(entries, session_id=session, workspace=str(repo.parent / where)) is blocked


def test_same_project_through_a_link_is_blocked(store: PendingStore, repo: Path) -> None:
    link = repo.parent / "link"
    link.symlink_to(repo)
    pend(store, repo, "s-1")
    entries = read_current(store.directory) or []
    assert blocks(entries, session_id="x", workspace=str(link))


def test_an_unreadable_file_is_a_damaged_entry_that_blocks_everyone(
    store: PendingStore, repo: Path
) -> None:
    decision = pend(store, repo, "s-1")
    path = store.path(decision)
    path.write_text("{not json")
    store.refresh_index()
    (entry,) = read_current(store.directory) or []
    assert (entry.decision_id, entry.damaged, entry.workspace) == (decision, True, "")
    assert blocks([entry], session_id="anyone", workspace="/anywhere")


def test_a_damaged_file_that_is_readably_someone_elses_blocks_only_them(
    store: PendingStore, repo: Path
) -> None:
    decision = pend(store, repo, "s-1")
    path = store.path(decision)
    data = json.loads(path.read_text())
    data["proposal"]["options"] = []
    path.write_text(json.dumps(data))
    store.refresh_index()
    (entry,) = read_current(store.directory) or []
    assert (entry.damaged, entry.session_id, entry.workspace) == (True, "s-1", str(repo))
    assert blocks([entry], session_id="s-1", workspace="/anywhere")
    assert blocks([entry], session_id="other", workspace=str(repo / "src"))
    assert not blocks([entry], session_id="other", workspace="/anywhere")


def test_no_index_or_a_broken_one_is_doubt(store: PendingStore, repo: Path) -> None:
    pend(store, repo, "s-1")
    index = store.directory / INDEX_NAME
    for text in ("", "[]", "{not json", '{"version": 99, "entries": []}', '{"version": 1}'):
        index.write_text(text)
        assert read_current(store.directory) is None, text
    index.unlink()
    assert read_current(store.directory) is None


@pytest.mark.parametrize(
    "entry",
    [
        {"decision_id": "", "session_id": "", "workspace": "", "project_id": "", "damaged": False},
        {"decision_id": "d", "session_id": 1, "workspace": "", "project_id": "", "damaged": False},
        {"decision_id": "d", "session_id": "", "workspace": "", "project_id": "", "damaged": 0},
        {"decision_id": "d", "session_id": "", "workspace": "", "project_id": ""},
        {
            "decision_id": "d",
            "session_id": "",
            "workspace": "",
            "project_id": "",
            "damaged": False,
            "extra": 1,
        },
    ],
)
def test_an_entry_of_the_wrong_shape_is_doubt(tmp_path: Path, entry: dict[str, object]) -> None:
    (tmp_path / "d.json").write_text("{}")
    (tmp_path / INDEX_NAME).write_text(json.dumps({"version": 1, "entries": [entry]}))
    assert read_current(tmp_path) is None


def test_a_file_the_index_does_not_know_is_doubt(store: PendingStore, repo: Path) -> None:
    pend(store, repo, "s-1")
    (store.directory / "decision-written-by-someone-else.json").write_text("{}")
    assert read_current(store.directory) is None


def test_an_entry_without_its_file_is_doubt(store: PendingStore, repo: Path) -> None:
    decision = pend(store, repo, "s-1")
    os.unlink(store.path(decision))
    (store.directory / "other.json").write_text("{}")
    assert read_current(store.directory) is None


def test_a_file_changed_after_the_index_was_written_is_doubt(
    store: PendingStore, repo: Path
) -> None:
    decision = pend(store, repo, "s-1")
    index_time = os.stat(store.directory / INDEX_NAME).st_mtime_ns
    os.utime(store.path(decision), ns=(index_time + 10**9, index_time + 10**9))
    assert read_current(store.directory) is None


def test_an_index_that_is_a_link_is_doubt(tmp_path: Path) -> None:
    (tmp_path / "d.json").write_text("{}")
    real = tmp_path / "real-index"
    real.write_bytes(encode([PendingBlocker("d")]))
    (tmp_path / INDEX_NAME).symlink_to(real)
    assert read_current(tmp_path) is None
    os.unlink(tmp_path / INDEX_NAME)
    os.replace(real, tmp_path / INDEX_NAME)
    assert read_current(tmp_path) == [PendingBlocker("d")]


def test_an_unwritable_index_is_removed_and_never_fails_the_save(
    store: PendingStore, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pend(store, repo, "s-1")
    import core.capture.pending as module

    def refuse(*_args: object, **_kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(module, "encode", lambda _entries: refuse())
    second = pend(store, repo, "s-2", problem="Pick a cache invalidation strategy")
    assert store.exists(second)
    assert not (store.directory / INDEX_NAME).exists()


def test_entries_carry_the_project_path_only_when_it_is_the_project_ids(
    store: PendingStore, repo: Path
) -> None:
    """The hook may compare paths instead of hashing only where the id is that path's hash."""
    pend(store, repo, "session-a")
    (entry,) = read_current(store.directory) or []
    assert entry.project_path == canonical_workspace_path(str(repo))
    stranger = PendingBlocker(
        "decision-x", session_id="s", workspace=str(repo), project_id="project-0123456789abcdef"
    )
    assert blocks([stranger], session_id="other", workspace="/elsewhere") is False
    assert (
        blocks(
            [PendingBlocker("decision-x", session_id="s", project_id="project-0123456789abcdef")],
            session_id="o",
            workspace=str(repo),
        )
        is False
    )


def test_a_link_to_the_project_is_blocked_by_path_without_hashing(
    store: PendingStore, repo: Path, tmp_path: Path
) -> None:
    pend(store, repo, "session-a")
    link = tmp_path / "link-to-repo"
    link.symlink_to(repo)
    entries = read_current(store.directory) or []
    assert entries and all(entry.project_path for entry in entries)
    assert blocks(entries, session_id="session-b", workspace=str(link))


def test_listing_from_the_index_leaves_a_linked_or_odd_pending_folder_to_the_store(
    tmp_path: Path,
) -> None:
    assert listed(tmp_path / "none") == []
    (tmp_path / "empty").mkdir()
    assert listed(tmp_path / "empty") == []
    (tmp_path / "file").write_text("")
    assert listed(tmp_path / "file") is None
    (tmp_path / "link").symlink_to(tmp_path / "empty")
    assert listed(tmp_path / "link") is None
