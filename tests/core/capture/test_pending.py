"""The pending-decision files: layout, privacy, repair rules and fail-closed reads."""

from __future__ import annotations

import json
import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from core.capture.pending import PendingDecision, PendingStore, normalize_stage
from core.capture.pending_index import INDEX_NAME
from core.capture.proposal import ParsedProposal, Selection, parse_proposal
from core.errors import (
    InvalidDecision,
    JournalDamaged,
    NotFound,
    OversizedFile,
    PendingDamaged,
    UnsafePath,
)
from core.journal import Journal
from tests.factories import proposal_dict

SECRET = "sk-" + "A1b2C3d4E5f6G7h8I9j0K1l2"
posix_only = pytest.mark.skipif(sys.platform == "win32", reason="POSIX modes and links")


@pytest.fixture
def store(tmp_path: Path) -> PendingStore:
    return PendingStore(tmp_path / "journal")


def proposal(session_id: str = "session-1", **overrides: Any) -> ParsedProposal:
    return parse_proposal(
        proposal_dict(**overrides), workspace="/srv/kernforge", session_id=session_id, agent="cc"
    )


def saved(store: PendingStore, **overrides: Any) -> PendingDecision:
    return store.save(PendingDecision(proposal(**overrides)))


def rewrite(store: PendingStore, decision_id: str, change: Any) -> Path:
    path = store.path(decision_id)
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))
    return path


def test_save_and_load_round_trip(store: PendingStore) -> None:
    pending = saved(store)
    loaded = store.load(pending.decision_id)
    assert loaded.proposal == replace(
        pending.proposal, identity=replace(pending.proposal.identity, canonical_path="")
    )
    assert (loaded.stage, loaded.selection) == ("choice", Selection())
    assert loaded.created_at == pending.created_at
    assert store.path(pending.decision_id) == store.root / "pending" / (
        pending.decision_id + ".json"
    )


def test_file_layout(store: PendingStore) -> None:
    pending = store.save(
        PendingDecision(proposal(), "rationale", Selection(option_id="single-json"))
    )
    data = json.loads(store.path(pending.decision_id).read_text())
    assert list(data) == [
        "schema_version",
        "decision_id",
        "stage",
        "session_id",
        "agent",
        "workspace",
        "project_id",
        "project_alias",
        "workspace_hash",
        "created_at",
        "updated_at",
        "proposal",
        "selected_option_id",
    ]
    assert (data["schema_version"], data["stage"], data["session_id"]) == (
        1,
        "rationale",
        "session-1",
    )
    assert data["proposal"]["options"][0]["id"] == "per-record-json"
    assert "header" in data["proposal"] and "decision_id" not in data["proposal"]


def test_created_at_is_kept_and_updated_at_moves(store: PendingStore) -> None:
    first = saved(store)
    second = store.save(first)
    assert second.created_at == first.created_at
    assert second.updated_at is not None and first.updated_at is not None
    assert second.updated_at >= first.updated_at


@posix_only
def test_modes_are_private(store: PendingStore) -> None:
    pending = saved(store)
    assert oct(os.stat(store.directory).st_mode & 0o777) == "0o700"
    assert oct(os.stat(store.path(pending.decision_id)).st_mode & 0o777) == "0o600"
    names = sorted(p.name for p in store.directory.iterdir())
    assert names == [INDEX_NAME, pending.decision_id + ".json"]
    assert oct(os.stat(store.directory / INDEX_NAME).st_mode & 0o777) == "0o600"


def test_secret_in_problem_is_redacted_on_disk_only(store: PendingStore) -> None:
    pending = saved(store, problem=f"Rotate the key {SECRET} safely")
    text = store.path(pending.decision_id).read_text()
    assert SECRET not in text
    assert "[REDACTED:openai_api_key]" in text
    assert SECRET in pending.proposal.problem
    assert store.load(pending.decision_id).decision_id == pending.decision_id


def test_custom_selection_is_redacted_on_disk(store: PendingStore) -> None:
    pending = store.save(
        PendingDecision(proposal(), "rationale", Selection(custom=f"use {SECRET}"))
    )
    assert SECRET not in store.path(pending.decision_id).read_text()
    assert store.load(pending.decision_id).selection.custom.startswith("use [REDACTED")


# --- normalization (reference section 7) ------------------------------------------------------


@pytest.mark.parametrize(
    ("stage", "selection", "expected"),
    [
        ("choice", Selection(option_id="single-json"), ("choice", Selection())),
        ("bogus", Selection(option_id="single-json"), ("choice", Selection())),
        ("rationale", Selection(), ("choice", Selection())),
        ("rationale", Selection("single-json", "other"), ("choice", Selection())),
        ("rationale", Selection(option_id="missing"), ("choice", Selection())),
        ("rationale", Selection(custom="x" * 1025), ("choice", Selection())),
        (
            " RATIONALE ",
            Selection(option_id=" single-json "),
            ("rationale", Selection("single-json")),
        ),
        ("rationale", Selection(custom=" mine "), ("rationale", Selection(custom="mine"))),
    ],
)
def test_normalize_stage(stage: str, selection: Selection, expected: tuple[str, Selection]) -> None:
    assert normalize_stage(stage, selection, proposal()) == expected


def test_rationale_stage_without_selection_is_repaired_on_load(store: PendingStore) -> None:
    pending = saved(store)
    rewrite(store, pending.decision_id, lambda d: d.update(stage="rationale"))
    assert store.load(pending.decision_id).stage == "choice"
    rewrite(store, pending.decision_id, lambda d: d.update(stage="weird"))
    assert store.load(pending.decision_id).stage == "choice"


def test_choice_stage_clears_a_stored_selection(store: PendingStore) -> None:
    pending = saved(store)
    rewrite(store, pending.decision_id, lambda d: d.update(selected_option_id="single-json"))
    assert store.load(pending.decision_id).selection == Selection()


# --- fail closed on damage ---------------------------------------------------------------------


def drop_option(data: dict[str, Any]) -> None:
    data["proposal"]["options"] = data["proposal"]["options"][:1]


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (drop_option, "2 to 4 options"),
        (lambda d: d.update(extra=1), "extra"),
        (lambda d: d.update(stage=3), "stage"),
        (lambda d: d.update(schema_version=2), "schema_version 2"),
        (lambda d: d.update(decision_id="decision-other"), "decision-other"),
        (lambda d: d.update(created_at="yesterday"), "yesterday"),
        (lambda d: d["proposal"].update(decision_kind=SECRET), "sensitive"),
        (lambda d: d["proposal"].update(detector_confidence=0.1), "below 0.65"),
    ],
)
def test_tampered_file_raises_and_is_kept(store: PendingStore, change: Any, expected: str) -> None:
    pending = saved(store)
    path = rewrite(store, pending.decision_id, change)
    before = path.read_bytes()
    with pytest.raises(PendingDamaged, match=expected) as caught:
        store.load(pending.decision_id)
    assert caught.value.decision_id == pending.decision_id
    assert f"pending implementation decision {pending.decision_id} is invalid" in str(caught.value)
    assert path.read_bytes() == before


def test_trailing_data_and_bad_json_are_damage(store: PendingStore) -> None:
    pending = saved(store)
    path = store.path(pending.decision_id)
    path.write_bytes(path.read_bytes() + b"{}")
    with pytest.raises(PendingDamaged, match="trailing data"):
        store.load(pending.decision_id)
    path.write_bytes(b"{not json")
    with pytest.raises(PendingDamaged):
        store.load(pending.decision_id)


def test_oversized_file_is_refused_before_decoding(store: PendingStore) -> None:
    pending = saved(store)
    store.path(pending.decision_id).write_bytes(b" " * (2 * 1024 * 1024 + 1))
    with pytest.raises(OversizedFile):
        store.load(pending.decision_id)


@posix_only
def test_links_are_refused(store: PendingStore, tmp_path: Path) -> None:
    pending = saved(store)
    path = store.path(pending.decision_id)
    target = tmp_path / "elsewhere.json"
    target.write_bytes(path.read_bytes())
    path.unlink()
    path.symlink_to(target)
    with pytest.raises(UnsafePath):
        store.load(pending.decision_id)
    with pytest.raises(UnsafePath):
        store.save(pending)


@posix_only
def test_symlinked_pending_directory_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "journal"
    root.mkdir()
    (tmp_path / "real").mkdir()
    (root / "pending").symlink_to(tmp_path / "real")
    with pytest.raises(UnsafePath):
        PendingStore(root).save(PendingDecision(proposal()))
    assert list((tmp_path / "real").iterdir()) == []


def test_missing_and_invalid_ids(store: PendingStore) -> None:
    with pytest.raises(NotFound):
        store.load("decision-missing")
    for bad in ("../escape", "a..b", "has space", "decision-1\ninjected prompt text"):
        with pytest.raises(InvalidDecision, match="invalid pending implementation decision id"):
            store.load(bad)


# --- listing -----------------------------------------------------------------------------------


def test_list_returns_healthy_ones_and_issues(store: PendingStore) -> None:
    healthy = saved(store)
    damaged = saved(store, session_id="session-2")
    rewrite(store, damaged.decision_id, drop_option)
    (store.directory / "not a valid id.json").write_text("{}")
    (store.directory / ".tmp-ignored.json").write_text("junk")
    (store.directory / "notes.txt").write_text("ignored")
    listing = store.list()
    assert [p.decision_id for p in listing.items] == [healthy.decision_id]
    by_name = {Path(i.path).name: i for i in listing.issues}
    assert set(by_name) == {damaged.decision_id + ".json", "not a valid id.json"}
    assert "invalid pending implementation decision id" in by_name["not a valid id.json"].error
    assert by_name[damaged.decision_id + ".json"].session_id == "session-2"
    assert (store.directory / "not a valid id.json").exists()


def test_list_filters_by_session_and_workspace(store: PendingStore) -> None:
    one = saved(store)
    two = saved(store, session_id="session-2")
    assert [p.decision_id for p in store.list(session_id="session-2").items] == [two.decision_id]
    assert {p.decision_id for p in store.list(workspace="/srv/kernforge").items} == {
        one.decision_id,
        two.decision_id,
    }
    assert store.list(workspace="/srv/other").items == []


def test_list_orders_oldest_first(store: PendingStore) -> None:
    first = saved(store)
    second = saved(store, session_id="session-2")
    assert [p.decision_id for p in store.list().items] == [first.decision_id, second.decision_id]


def test_for_session_sees_healthy_and_damaged(store: PendingStore) -> None:
    assert store.for_session("session-1") is None
    pending = saved(store)
    assert store.for_session("session-1") == pending.decision_id
    assert store.for_session("session-2") is None
    rewrite(store, pending.decision_id, drop_option)
    assert store.for_session("session-1") == pending.decision_id


def test_list_of_an_empty_journal(store: PendingStore) -> None:
    listing = store.list()
    assert (listing.items, listing.issues) == ([], [])


def test_remove(store: PendingStore) -> None:
    pending = saved(store)
    assert store.remove(pending.decision_id) is True
    assert store.remove(pending.decision_id) is False
    assert not store.exists(pending.decision_id)


def test_journal_exposes_the_pending_store(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "journal")
    assert journal.pending.root == journal.store.root
    with pytest.raises(JournalDamaged):
        rewrite_target = journal.pending.save(PendingDecision(proposal()))
        rewrite(journal.pending, rewrite_target.decision_id, drop_option)
        journal.pending.load(rewrite_target.decision_id)
