"""The capture state machine against the reference tool checklist, without any UI."""

from __future__ import annotations

import json
import os
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from core.capture.machine import (
    CANCELED_CHOICE,
    CANCELED_RATIONALE,
    CaptureService,
    CaptureTicket,
    NeedsHuman,
    Pending,
    RationaleQuestion,
    Recorded,
    outcome_to_result,
    pending_result_message,
    recorded_result_message,
)
from core.capture.pending import PendingStore
from core.capture.proposal import Selection
from core.errors import (
    AnswerInvalid,
    InvalidDecision,
    NotFound,
    PendingConflict,
    PendingDamaged,
    ProposalInvalid,
)
from core.ipc.methods import DecisionPresentResult
from core.record.models import DecisionRecord
from core.store.decisions import DecisionStore
from tests.factories import proposal_dict

SECRET = "sk-" + "A1b2C3d4E5f6G7h8I9j0K1l2"
WORKSPACE = "/srv/projects/kernforge"
REASON = "one document keeps the export trivial"
REJECTION = "thousands of small files are hard to back up"


class ProfileHook:
    """Stands in for the profile worker: counts calls, returns or raises what it is told."""

    def __init__(self, result: str | None = None, error: Exception | None = None) -> None:
        self.calls: list[DecisionRecord] = []
        self.result = result
        self.error = error

    def __call__(self, record: DecisionRecord) -> str | None:
        self.calls.append(record)
        if self.error is not None:
            raise self.error
        return self.result


class App:
    """One running app: a store, a pending store and a capture service over one journal."""

    def __init__(self, root: Path, hook: ProfileHook | None = None) -> None:
        self.store = DecisionStore(root)
        self.pending = PendingStore(root)
        self.hook = hook or ProfileHook()
        self.service = CaptureService(self.store, self.pending, on_recorded=self.hook)

    def begin(self, raw: Any, session_id: str = "session-1") -> NeedsHuman | Recorded:
        return self.service.begin(raw, workspace=WORKSPACE, session_id=session_id, agent="cc")

    def ticket(self, raw: Any, session_id: str = "session-1") -> CaptureTicket:
        outcome = self.begin(raw, session_id)
        assert isinstance(outcome, NeedsHuman), outcome
        return outcome.ticket

    def records(self) -> list[DecisionRecord]:
        return self.store.list()


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return tmp_path / "journal"


@pytest.fixture
def app(root: Path) -> App:
    return App(root)


def answer(ticket: CaptureTicket, reason: str = REASON, rejection: str = REJECTION) -> Recorded:
    rejections = {q.option_id: rejection for q in ticket.required_rationales() if q.option_id}
    return ticket.submit(reason, rejections)


def one_two() -> dict[str, Any]:
    return proposal_dict(
        options=[
            {"id": "opt-1", "label": "One", "description": "first", "recommended": True},
            {"id": "opt-2", "label": "Two", "description": "second", "recommended": False},
        ]
    )


def resume(decision_id: str) -> dict[str, Any]:
    return {"decision_id": decision_id}


# --- the happy path ----------------------------------------------------------------------------


def test_captures_choice_and_per_option_rationale(app: App) -> None:
    ticket = app.ticket(proposal_dict())
    assert (ticket.stage, ticket.selection) == ("choice", None)
    assert app.pending.exists(ticket.decision_id), "pending is saved before anyone is asked"
    assert [o.id for o in ticket.proposal.options] == ["per-record-json", "single-json"]

    ticket.choose(custom="Single JSON document")
    assert (ticket.stage, ticket.selection) == ("rationale", Selection(option_id="single-json"))
    assert ticket.required_rationales() == [
        RationaleQuestion(
            None, "Single JSON document", "Why did you choose 'Single JSON document'?"
        ),
        RationaleQuestion(
            "per-record-json", "Per-record JSON", "Why did you not choose 'Per-record JSON'?"
        ),
    ]
    recorded = ticket.submit(REASON, {"per-record-json": REJECTION})

    record = recorded.record
    assert (record.revision, record.selected_option_id) == (1, "single-json")
    assert [(r.option_id, r.reason, r.source) for r in record.rejected_reasons] == [
        ("per-record-json", REJECTION, "user")
    ]
    assert "이 사용자는" in record.summary_sentence
    assert "선택하지 않았다" in record.summary_sentence
    assert record.provenance.selection == "user" and record.provenance.summary == "runtime"
    assert recorded.profile_warning == ""
    assert not app.pending.exists(record.id)
    assert [r.id for r in app.records()] == [record.id]
    assert app.store.get(record.id) == record
    assert [r.id for r in app.hook.calls] == [record.id]


def test_accepts_bounded_long_rationales(app: App) -> None:
    ticket = app.ticket(proposal_dict())
    ticket.choose("single-json")
    recorded = answer(ticket, "가" * 1365 + "a", "b" * 4096)
    summary = recorded.record.summary_sentence.encode()
    assert 8192 < len(summary) <= 24 * 1024


def test_overlong_blank_and_missing_answers_are_all_reported(app: App) -> None:
    ticket = app.ticket(proposal_dict())
    ticket.choose("single-json")
    with pytest.raises(AnswerInvalid) as caught:
        ticket.submit("x" * 4097, {"single-json": "selected", "ghost": "?"})
    assert [(v.field, v.limit) for v in caught.value.violations] == [
        ("selection_reason", 4096),
        ("rejections[single-json]", None),
        ("rejections[ghost]", None),
        ("rejections[per-record-json]", None),
    ]
    with pytest.raises(AnswerInvalid, match="rejections\\[per-record-json\\]: a rationale"):
        ticket.submit(REASON, {"per-record-json": "   "})
    assert app.records() == [] and app.pending.load(ticket.decision_id).stage == "rationale"


def test_custom_choice_needs_a_rejection_for_every_option(app: App) -> None:
    ticket = app.ticket(proposal_dict())
    ticket.choose(custom="  A SQLite database  ")
    questions = ticket.required_rationales()
    assert questions[0] == RationaleQuestion(
        None, "A SQLite database", "Why did you choose 'A SQLite database'?"
    )
    assert [q.option_id for q in questions[1:]] == ["per-record-json", "single-json"]
    record = answer(ticket).record
    assert (record.custom_selection, record.selected_option_id) == ("A SQLite database", "")
    assert len(record.rejected_reasons) == 2


# --- selection rules ----------------------------------------------------------------------------


def test_custom_text_matching_a_label_becomes_that_option(app: App) -> None:
    ticket = app.ticket(one_two())
    assert ticket.choose(custom="one") == Selection(option_id="opt-1")
    assert ticket.choose(custom="  TWO ") == Selection(option_id="opt-2")


def test_selection_rejects_ambiguous_or_unknown_answers(app: App) -> None:
    ticket = app.ticket(one_two())
    with pytest.raises(InvalidDecision, match="both a listed and custom"):
        ticket.choose("opt-1", "Something else")
    with pytest.raises(InvalidDecision, match="exactly one selected option"):
        ticket.choose()
    with pytest.raises(InvalidDecision, match="'opt-3' is not present"):
        ticket.choose("opt-3")
    with pytest.raises(InvalidDecision) as caught:
        ticket.choose(custom="c" * 1025)
    assert (caught.value.field, caught.value.limit) == ("custom_selection", 1024)
    assert "is 1,025 bytes; the limit is 1,024 bytes" in str(caught.value)
    assert ticket.stage == "choice"
    assert app.pending.load(ticket.decision_id).stage == "choice"


def test_submit_before_choosing_is_refused(app: App) -> None:
    ticket = app.ticket(proposal_dict())
    with pytest.raises(InvalidDecision, match="choose first"):
        ticket.submit(REASON, {})
    with pytest.raises(InvalidDecision, match="choose first"):
        ticket.required_rationales()


# --- pending, cancel, resume ----------------------------------------------------------------------


def test_persists_and_resumes_pending_choice_across_restart(root: Path) -> None:
    first = App(root)
    ticket = first.ticket(proposal_dict())
    deferred = ticket.defer()
    assert deferred.stage == "choice"
    assert "no interactive user is attached" in deferred.message

    restarted = App(root)
    again = restarted.ticket(proposal_dict())
    assert (again.decision_id, again.stage) == (ticket.decision_id, "choice")
    again.choose("per-record-json")
    answer(again)
    assert len(restarted.records()) == 1
    assert restarted.pending.list().items == []


def test_cancel_at_choice_keeps_choice(root: Path) -> None:
    ticket = App(root).ticket(proposal_dict())
    pending = ticket.cancel("choice")
    assert (pending.stage, pending.reason) == ("choice", CANCELED_CHOICE)
    resumed = App(root).ticket(resume(ticket.decision_id))
    assert (resumed.stage, resumed.selection) == ("choice", None)


def test_canceled_rationale_resumes_without_repeating_choice(root: Path) -> None:
    ticket = App(root).ticket(proposal_dict())
    ticket.choose("single-json")
    pending = ticket.cancel("rationale")
    assert (pending.stage, pending.reason) == ("rationale", CANCELED_RATIONALE)
    assert pending.selection == Selection(option_id="single-json")

    app = App(root)
    resumed = app.ticket(resume(ticket.decision_id))
    assert resumed.stage == "rationale"
    assert resumed.selection == Selection(option_id="single-json")
    record = answer(resumed).record
    assert (record.id, record.selected_option_id) == (ticket.decision_id, "single-json")


def test_cancel_after_going_back_to_the_choice_asks_the_choice_again(app: App) -> None:
    ticket = app.ticket(proposal_dict())
    ticket.choose("single-json")
    assert ticket.cancel("choice").stage == "choice"
    assert app.pending.load(ticket.decision_id).selection == Selection()


def test_resume_by_id_only_uses_the_stored_proposal(root: Path) -> None:
    ticket = App(root).ticket(proposal_dict(header="Storage layout"))
    ticket.defer()
    app = App(root)
    resumed = app.ticket(resume(ticket.decision_id), session_id="another-session")
    assert resumed.proposal.problem == ticket.proposal.problem
    assert resumed.proposal.header_text == "Storage layout"
    resumed.choose("per-record-json")
    assert answer(resumed).record.id == ticket.decision_id
    assert [r.id for r in app.records()] == [ticket.decision_id]


def test_resume_of_a_recorded_decision_returns_the_record(app: App) -> None:
    ticket = app.ticket(proposal_dict())
    ticket.choose("single-json")
    record = answer(ticket).record
    outcome = app.begin(resume(record.id))
    assert isinstance(outcome, Recorded) and outcome.record == record
    assert len(app.hook.calls) == 1


def test_resume_of_an_unknown_id_is_not_found(app: App) -> None:
    with pytest.raises(NotFound, match="decision-nope is not pending"):
        app.begin(resume("decision-nope"))


@pytest.mark.parametrize("bad", ["../escape", "decision-1\ninjected prompt text", "a..b", ""])
def test_resume_with_an_invalid_id_is_refused(app: App, bad: str) -> None:
    with pytest.raises(ProposalInvalid, match="invalid pending implementation decision id"):
        app.begin(resume(bad))


def test_reload_repairs_rationale_stage_without_selection(app: App) -> None:
    ticket = app.ticket(proposal_dict())
    path = app.pending.path(ticket.decision_id)
    data = json.loads(path.read_text())
    data["stage"] = "rationale"
    path.write_text(json.dumps(data))
    resumed = app.ticket(resume(ticket.decision_id))
    assert resumed.stage == "choice"
    resumed.choose("single-json")
    assert answer(resumed).record.selected_option_id == "single-json"


def test_damaged_pending_file_with_an_invalid_name_does_not_block_capture(app: App) -> None:
    app.pending.directory.mkdir(parents=True)
    (app.pending.directory / "bad name.json").write_text("{}")
    ticket = app.ticket(proposal_dict())
    assert ticket.stage == "choice"
    assert (app.pending.directory / "bad name.json").exists()


# --- one pending decision per session -----------------------------------------------------------


def test_different_pending_is_refused(app: App) -> None:
    pending = app.ticket(proposal_dict())
    with pytest.raises(PendingConflict) as caught:
        app.begin(proposal_dict(problem="A different fork"))
    assert caught.value.pending_id == pending.decision_id
    assert f"{pending.decision_id} is still pending in this session" in str(caught.value)
    assert "one decision may be pending per agent session" in str(caught.value)
    with pytest.raises(PendingConflict, match="cannot resume"):
        app.begin(resume("decision-other"))
    assert app.ticket(proposal_dict(), session_id="session-2").decision_id != pending.decision_id
    assert app.pending.exists(pending.decision_id)


def test_does_not_bypass_different_pending_with_recorded_proposal(app: App) -> None:
    done = app.ticket(proposal_dict(problem="An earlier fork"))
    done.choose("single-json")
    answer(done)
    waiting = app.ticket(proposal_dict())
    with pytest.raises(PendingConflict) as caught:
        app.begin(proposal_dict(problem="An earlier fork"))
    assert caught.value.pending_id == waiting.decision_id
    with pytest.raises(PendingConflict):
        app.begin(resume(done.decision_id))
    assert app.pending.exists(waiting.decision_id)


def test_same_proposal_again_reuses_the_pending_decision(app: App) -> None:
    first = app.ticket(proposal_dict())
    first.choose("single-json")
    second = app.ticket(proposal_dict())
    assert second.decision_id == first.decision_id
    assert second.selection == Selection(option_id="single-json")
    assert len(app.pending.list().items) == 1


def test_concurrent_proposals_of_one_session_leave_exactly_one_pending(app: App) -> None:
    outcomes: list[object] = []
    barrier = threading.Barrier(8)

    def present(index: int) -> None:
        barrier.wait()
        try:
            outcomes.append(app.begin(proposal_dict(problem=f"Fork number {index}")))
        except PendingConflict as exc:
            outcomes.append(exc)

    threads = [threading.Thread(target=present, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sum(isinstance(o, NeedsHuman) for o in outcomes) == 1
    assert sum(isinstance(o, PendingConflict) for o in outcomes) == 7
    assert len(app.pending.list().items) == 1


def test_sessions_are_independent_under_concurrency(app: App) -> None:
    outcomes: list[object] = []

    def present(index: int) -> None:
        outcomes.append(app.begin(proposal_dict(), session_id=f"session-{index}"))

    threads = [threading.Thread(target=present, args=(i,)) for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(isinstance(o, NeedsHuman) for o in outcomes)
    assert len(app.pending.list().items) == 6


# --- tampering, idempotency, hooks ---------------------------------------------------------------


def test_rejects_tampered_pending_proposal_and_keeps_it(app: App) -> None:
    ticket = app.ticket(proposal_dict())
    path = app.pending.path(ticket.decision_id)
    data = json.loads(path.read_text())
    data["proposal"]["options"] = data["proposal"]["options"][:1]
    path.write_text(json.dumps(data))
    tampered = path.read_bytes()
    with pytest.raises(PendingDamaged, match="2 to 4 options"):
        app.begin(resume(ticket.decision_id))
    with pytest.raises(PendingDamaged):
        app.begin(proposal_dict())
    with pytest.raises(PendingConflict):
        app.begin(proposal_dict(problem="Something else entirely"))
    assert path.read_bytes() == tampered


def test_idempotent_recapture_returns_the_recorded_decision(app: App) -> None:
    ticket = app.ticket(proposal_dict())
    ticket.choose("single-json")
    record = answer(ticket).record
    again = app.begin(proposal_dict())
    assert isinstance(again, Recorded) and again.record == record
    assert len(app.records()) == 1
    assert not app.pending.exists(record.id)
    assert len(app.hook.calls) == 1


def test_pending_left_after_a_failed_clear_is_cleared_later(app: App, monkeypatch: Any) -> None:
    ticket = app.ticket(proposal_dict())
    ticket.choose("single-json")

    def broken_remove(decision_id: str) -> bool:
        raise OSError("read-only directory")

    with monkeypatch.context() as patch:
        patch.setattr(app.pending, "remove", broken_remove)
        recorded = answer(ticket)
    assert "could not be cleared" in recorded.profile_warning
    assert app.store.exists(recorded.record.id) and app.pending.exists(recorded.record.id)
    outcome = app.begin(resume(recorded.record.id))
    assert isinstance(outcome, Recorded) and outcome.record == recorded.record
    assert not app.pending.exists(recorded.record.id)


def test_stale_ticket_cannot_resurrect_a_recorded_decision(app: App) -> None:
    first = app.ticket(proposal_dict())
    second = app.ticket(proposal_dict())
    first.choose("single-json")
    answer(first)
    with pytest.raises(InvalidDecision, match="already recorded"):
        second.choose("per-record-json")
    assert not app.pending.exists(first.decision_id)
    assert app.begin(proposal_dict(problem="The next fork"))


def test_profile_hook_failure_becomes_a_warning(root: Path) -> None:
    app = App(root, ProfileHook(error=RuntimeError("profile.json is corrupt")))
    ticket = app.ticket(proposal_dict())
    ticket.choose("single-json")
    recorded = answer(ticket)
    assert "profile.json is corrupt" in recorded.profile_warning
    assert app.store.exists(recorded.record.id)
    assert not app.pending.exists(recorded.record.id)
    assert "Preference profile rebuild warning" in outcome_to_result(recorded)["message"]


def test_profile_hook_warning_is_passed_on(root: Path) -> None:
    app = App(root, ProfileHook(result="profile is stale"))
    ticket = app.ticket(proposal_dict())
    ticket.choose("single-json")
    assert answer(ticket).profile_warning == "profile is stale"


def test_failed_write_keeps_the_pending_decision(app: App, monkeypatch: Any) -> None:
    ticket = app.ticket(proposal_dict())
    ticket.choose("single-json")

    def broken_put(record: DecisionRecord) -> DecisionRecord:
        raise OSError("disk full")

    monkeypatch.setattr(app.store, "put", broken_put)
    with pytest.raises(OSError, match="disk full"):
        answer(ticket)
    assert app.pending.load(ticket.decision_id).stage == "rationale"
    assert app.hook.calls == []


# --- privacy of the pending file ------------------------------------------------------------------


def test_invalid_proposal_writes_nothing(app: App) -> None:
    for raw in (
        proposal_dict(problem="x" * 4097),
        proposal_dict(decision_kind=SECRET),
        proposal_dict(task_fingerprint=SECRET),
        proposal_dict(evidence_fingerprint=SECRET),
        proposal_dict(detector_confidence=float("nan")),
    ):
        with pytest.raises(ProposalInvalid):
            app.begin(raw)
    assert not app.pending.directory.exists()
    assert not app.store.root.exists() or app.records() == []


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX modes")
def test_pending_file_is_private_and_holds_no_rationale(app: App) -> None:
    ticket = app.ticket(proposal_dict())
    ticket.choose("single-json")
    with pytest.raises(AnswerInvalid):
        ticket.submit("my secret reasoning", {"per-record-json": ""})
    ticket.cancel("rationale")
    path = app.pending.path(ticket.decision_id)
    assert oct(os.stat(path).st_mode & 0o777) == "0o600"
    text = path.read_text()
    assert "my secret reasoning" not in text
    assert "selection_reason" not in text and "rejected" not in text


def test_secret_in_problem_is_redacted_in_pending_file(app: App) -> None:
    ticket = app.ticket(proposal_dict(problem=f"Rotate {SECRET} without downtime"))
    text = app.pending.path(ticket.decision_id).read_text()
    assert SECRET not in text and "[REDACTED:openai_api_key]" in text
    ticket.choose("single-json")
    record = answer(ticket).record
    assert SECRET not in record.problem and record.redaction.redacted


# --- results for agents --------------------------------------------------------------------------


def test_recorded_result_shape_and_message(app: App) -> None:
    ticket = app.ticket(proposal_dict())
    ticket.choose("single-json")
    recorded = answer(ticket)
    result = outcome_to_result(recorded)
    record = recorded.record
    assert result["status"] == "recorded" and result["revision"] == 1
    assert (result["selected_option_id"], result["custom_selection"]) == ("single-json", "")
    assert result["selection_reason"] == REASON
    assert result["rejected_reasons"] == [
        {"option_id": "per-record-json", "label": "Per-record JSON", "reason": REJECTION}
    ]
    assert result["message"] == (
        f"Implementation decision recorded: Single JSON document (id={record.id}). Continue "
        "implementation using this choice. Do not ask the same decision again. Rationale: "
        f"{record.summary_sentence}"
    )
    assert "stage" not in result
    DecisionPresentResult.model_validate(result)


def test_pending_result_shape_and_message(app: App) -> None:
    ticket = app.ticket(proposal_dict())
    ticket.choose("single-json")
    result = outcome_to_result(ticket.cancel("rationale"))
    decision_id = ticket.decision_id
    assert result["status"] == "pending" and result["stage"] == "rationale"
    assert result["selected_option_id"] == "single-json"
    assert result["message"] == (
        f"Implementation decision {decision_id} remains pending: the user canceled rationale "
        "capture. Do not edit files; call present_implementation_decision again with only "
        f'{{"decision_id": "{decision_id}"}} to resume.'
    )
    DecisionPresentResult.model_validate(result)
    waiting = outcome_to_result(NeedsHuman(ticket))
    assert waiting["status"] == "pending" and waiting["stage"] == "rationale"
    DecisionPresentResult.model_validate(waiting)


def test_message_helpers() -> None:
    assert pending_result_message("decision-1", "gone.") == (
        "Implementation decision decision-1 remains pending: gone. Do not edit files; call "
        'present_implementation_decision again with only {"decision_id": "decision-1"} to '
        "resume."
    )
    record = DecisionRecord(id="decision-1", custom_selection="Mine", summary_sentence="S")
    assert recorded_result_message(record, "stale").startswith(
        "Implementation decision recorded: Mine (id=decision-1). Preference profile rebuild "
        "warning: stale. Continue"
    )
    assert Pending("decision-1", "choice", "x").message.endswith("to resume.")
