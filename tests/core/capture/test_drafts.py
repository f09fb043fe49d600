"""Private drafts of typed reasons: layout, privacy, redaction, fail-safe reads, and their end."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pytest

from core.capture.drafts import DRAFT_TEXT_MAX, Draft, DraftStore
from core.capture.machine import CaptureService, CaptureTicket, NeedsHuman
from core.capture.pending import PendingStore, pending_items
from core.errors import InvalidDecision
from core.store.decisions import DecisionStore
from tests.factories import proposal_dict

SECRET = "sk-" + "A1b2C3d4E5f6G7h8I9j0K1l2"
DECISION = "decision-44c0f9b71bf8194908f3a91c41e937ee"
posix_only = pytest.mark.skipif(sys.platform == "win32", reason="POSIX modes")


@pytest.fixture
def drafts(tmp_path: Path) -> DraftStore:
    return DraftStore(tmp_path / "journal")


def typed(**changes: object) -> Draft:
    values: dict[str, object] = {
        "decision_id": DECISION,
        "selected_option_id": "opt-2",
        "selection_reason": "one file is simpler to back up",
        "rejections": {"opt-1": "too many small files"},
    }
    values.update(changes)
    return Draft(**values)  # type: ignore[arg-type]


def test_round_trip_keeps_every_field(drafts: DraftStore) -> None:
    saved = drafts.save(typed(custom_selection="half typed", other_chosen=False))
    assert saved is not None and saved.updated_at
    loaded = drafts.load(DECISION)
    assert loaded == saved
    assert loaded.selection_reason == "one file is simpler to back up"
    assert loaded.rejections == {"opt-1": "too many small files"}
    assert loaded.custom_selection == "half typed"


@posix_only
def test_file_is_private_beside_pending(drafts: DraftStore) -> None:
    drafts.save(typed())
    path = drafts.path(DECISION)
    assert path == drafts.root / "drafts" / f"{DECISION}.json"
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(path.parent).st_mode) == 0o700
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temp file left behind


def test_secrets_are_redacted_before_they_reach_disk(drafts: DraftStore) -> None:
    drafts.save(typed(selection_reason=f"the key is {SECRET}", custom_selection=SECRET))
    raw = drafts.path(DECISION).read_text()
    assert SECRET not in raw
    loaded = drafts.load(DECISION)
    assert loaded is not None and "[REDACTED:" in loaded.selection_reason


def test_an_empty_draft_removes_the_file(drafts: DraftStore) -> None:
    drafts.save(typed())
    assert drafts.save(Draft(DECISION, selection_reason="   ", rejections={"opt-1": "\n"})) is None
    assert not drafts.path(DECISION).exists()
    assert drafts.load(DECISION) is None


def test_a_marked_choice_alone_is_worth_keeping() -> None:
    assert not Draft(DECISION, selected_option_id="opt-1").is_empty()
    assert not Draft(DECISION, other_chosen=True).is_empty()
    assert Draft(DECISION).is_empty()


def test_an_oversized_text_is_refused_naming_the_field(drafts: DraftStore) -> None:
    huge = "x" * (DRAFT_TEXT_MAX + 1)
    with pytest.raises(InvalidDecision, match=r"rejections\.opt-1: 16385 bytes, at most 16384"):
        drafts.save(typed(rejections={"opt-1": huge}))
    assert drafts.load(DECISION) is None


def test_an_invalid_id_is_refused(drafts: DraftStore) -> None:
    with pytest.raises(InvalidDecision, match="invalid draft decision id"):
        drafts.path("../escape")


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: "not json",
        lambda data: json.dumps({**data, "format": 9}),
        lambda data: json.dumps({**data, "decision_id": "decision-other"}),
        lambda data: json.dumps({**data, "selection_reason": 7}),
        lambda data: json.dumps({**data, "surprise": True}),
    ],
)
def test_a_damaged_draft_is_set_aside_not_trusted(drafts: DraftStore, damage: object) -> None:
    drafts.save(typed())
    path = drafts.path(DECISION)
    path.write_text(damage(json.loads(path.read_text())))  # type: ignore[operator]
    assert drafts.load(DECISION) is None
    assert not path.exists()
    assert path.with_name(path.name + ".damaged").exists()
    assert drafts.save(typed()) is not None


# --- through the capture service ---------------------------------------------------------------


def begin(root: Path) -> tuple[CaptureService, CaptureTicket]:
    service = CaptureService(DecisionStore(root), PendingStore(root))
    outcome = service.begin(proposal_dict(), workspace="/srv/kf", session_id="s-1", agent="cc")
    assert isinstance(outcome, NeedsHuman)
    return service, outcome.ticket


def draft_for(ticket: CaptureTicket, reason: str) -> Draft:
    others = [q.option_id for q in ticket.required_rationales() if q.option_id]
    return Draft(
        ticket.decision_id,
        selected_option_id=ticket.selection.option_id if ticket.selection else "",
        selection_reason=reason,
        rejections=dict.fromkeys(others, "rejected for now"),
    )


def test_a_draft_survives_cancel_and_resume_and_agents_never_see_it(tmp_path: Path) -> None:
    root = tmp_path / "journal"
    service, ticket = begin(root)
    ticket.choose(ticket.proposal.options[1].id)
    ticket.save_draft(draft_for(ticket, "half of my reason"))
    ticket.cancel("rationale")
    resumed = service.begin(
        {"decision_id": ticket.decision_id}, workspace="/srv/kf", session_id="s-1"
    )
    assert isinstance(resumed, NeedsHuman)
    kept = resumed.ticket.draft()
    assert kept is not None and kept.selection_reason == "half of my reason"
    pending_file = (root / "pending" / f"{ticket.decision_id}.json").read_text()
    assert "half of my reason" not in pending_file
    assert "half of my reason" not in json.dumps(pending_items(service.pending))


def test_recording_deletes_the_draft_and_later_saves_are_ignored(tmp_path: Path) -> None:
    _service, ticket = begin(tmp_path / "journal")
    ticket.choose(ticket.proposal.options[0].id)
    ticket.save_draft(draft_for(ticket, "almost done"))
    rejections = {q.option_id: "no" for q in ticket.required_rationales() if q.option_id}
    ticket.submit("done", rejections)
    assert ticket.draft() is None
    assert ticket.save_draft(draft_for(ticket, "a late keystroke")) is None
    assert not (tmp_path / "journal" / "drafts" / f"{ticket.decision_id}.json").exists()


def test_a_stale_ticket_does_not_write_a_draft_after_another_recorded(tmp_path: Path) -> None:
    root = tmp_path / "journal"
    service, first = begin(root)
    second = service.begin(
        {"decision_id": first.decision_id}, workspace="/srv/kf", session_id="s-1"
    )
    assert isinstance(second, NeedsHuman)
    first.choose(first.proposal.options[0].id)
    rejections = {q.option_id: "no" for q in first.required_rationales() if q.option_id}
    first.submit("done", rejections)
    assert second.ticket.save_draft(Draft(first.decision_id, selection_reason="late")) is None
    assert not service.drafts.path(first.decision_id).exists()


def test_a_draft_for_another_decision_is_refused(tmp_path: Path) -> None:
    _service, ticket = begin(tmp_path / "journal")
    with pytest.raises(InvalidDecision, match="draft for 'decision-other'"):
        ticket.save_draft(Draft("decision-other", selection_reason="x"))
