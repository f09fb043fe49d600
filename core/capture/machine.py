"""The capture state machine: proposal → pending → choice → rationale → record, with no UI.

Why UI-free: the tray window, the terminal prompt and the tests drive the same machine, so the
rules (one pending decision per agent session, the conflict check before the idempotency
shortcut, the record written before any answer returns, cancellation that never abandons a
decision) hold for every front end. A front end receives a `CaptureTicket` and calls `choose`,
`submit` or `cancel`; everything durable happens here.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from core.capture.drafts import Draft, DraftStore
from core.capture.pending import PendingDecision, PendingStore
from core.capture.proposal import (
    ParsedProposal,
    Rationales,
    Selection,
    is_resume_request,
    parse_proposal,
    parse_resume,
)
from core.errors import (
    AnswerInvalid,
    InvalidDecision,
    JournalError,
    NotFound,
    PendingConflict,
    Violation,
)
from core.gocompat.text import equal_fold, go_trim, utf8_len
from core.messages.wording import too_large
from core.record.fields import rule
from core.record.models import DecisionRecord, Stage
from core.record.origin import AUTOMATIC_TAG, is_automatic
from core.store.decisions import DecisionStore
from core.store.locking import locked
from core.store.safefs import ensure_private_dir

TOOL_NAME = "present_implementation_decision"
CANCELED_CHOICE = "the user canceled the approach selection"
CANCELED_RATIONALE = "the user canceled rationale capture"
WAITING = "waiting for the user to answer"
NO_INTERACTIVE_USER = "no interactive user is attached; the decision remains pending"
APP_CLOSED = "the Decision Journal app closed before the human finished answering"
"""Why a decision asked in the app stays pending when the app quits or dies mid-question: the
app's own reply on quit and a client's reading of the journal after a crash say the same."""

log = logging.getLogger(__name__)

ProfileHook = Callable[[DecisionRecord], str | None]
DECIDED_BY_PERSON = "person"
DECIDED_BY_PROFILE = "profile"


@dataclass(frozen=True, slots=True)
class AutoAnswer:
    """The profile's answer to a proposal of an automatic kind: the option and the rule."""

    option_id: str
    rule_id: str
    selection_reason: str
    rejection_reason: str


class DeciderHook(Protocol):
    """What capture asks the decider (`core.decider.service.Decider` implements it).

    `presented` runs once per new proposal, before anyone answers: it records the shadow
    prediction and returns an answer only when the proposal may be answered for the person.
    `recorded` runs after each record is written, with the answer when the profile gave it;
    a returned string becomes the result's warning.
    """

    def presented(self, proposal: ParsedProposal) -> AutoAnswer | None: ...

    def recorded(self, record: DecisionRecord, automatic: AutoAnswer | None) -> str: ...


@dataclass(frozen=True, slots=True)
class RationaleQuestion:
    """One required answer; `option_id` is None for "why did you choose", else the rejected id."""

    option_id: str | None
    label: str
    prompt: str


@dataclass(frozen=True, slots=True)
class Recorded:
    """Revision 1 is on disk; `profile_warning` says the derived profile could not be rebuilt."""

    record: DecisionRecord
    profile_warning: str = ""
    rule_id: str = ""
    """The rule that answered, when the profile answered in this call."""

    @property
    def decided_by(self) -> str:
        return DECIDED_BY_PROFILE if is_automatic(self.record) else DECIDED_BY_PERSON


@dataclass(frozen=True, slots=True)
class Pending:
    """The human stopped (or could not be asked); the decision stays pending at `stage`."""

    decision_id: str
    stage: Stage
    reason: str
    selection: Selection = field(default_factory=Selection)

    @property
    def message(self) -> str:
        return pending_result_message(self.decision_id, self.reason)


@dataclass(frozen=True, slots=True)
class NeedsHuman:
    """The pending state is saved; show `ticket` to the human."""

    ticket: CaptureTicket


CaptureOutcome = Recorded | NeedsHuman
CaptureResult = Recorded | NeedsHuman | Pending


LOCK_TIMEOUT = 30.0


class _JournalLocks:
    """One lock per key (a session, a decision), shared by every process using the journal.

    The app, `ask` in a terminal and the MCP server's fallback may capture at the same time; an
    in-process lock alone would let two of them create two pending decisions for one session.
    """

    def __init__(self, pending: PendingStore) -> None:
        self._pending = pending

    @contextlib.contextmanager
    def hold(self, key: str) -> Iterator[None]:
        directory = self._pending.directory
        ensure_private_dir(self._pending.root, directory)
        digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:24]
        with locked(self._pending.root, directory / f".capture-{digest}", timeout=LOCK_TIMEOUT):
            yield


class CaptureService:
    """Starts and resumes captures; safe to call from several agent connections at once.

    Args:
        store: where finished decisions are written.
        pending: where unfinished ones wait.
        on_recorded: asks for a profile rebuild after a record is written; a returned string
            or a raised exception becomes the result's `profile_warning`, never a lost decision.
        decider: predicts before the person answers, scores their answer, and answers a
            proposal of an automatic kind (`DeciderHook`); without one every proposal is asked.
    """

    def __init__(
        self,
        store: DecisionStore,
        pending: PendingStore,
        on_recorded: ProfileHook | None = None,
        decider: DeciderHook | None = None,
    ) -> None:
        self.store = store
        self.pending = pending
        self.drafts = DraftStore(pending.root)
        self._on_recorded = on_recorded
        self.decider = decider
        self._locks = _JournalLocks(pending)

    def begin(
        self, raw: object, *, workspace: str, session_id: str, agent: str = ""
    ) -> CaptureOutcome:
        """Handles a new proposal or a resume request (`{"decision_id": ...}` only).

        Raises:
            ProposalInvalid: the proposal or resume id is invalid; nothing was saved.
            PendingConflict: this session already has a different decision pending.
            NotFound: a resumed id is neither pending nor recorded.
            PendingDamaged: the pending file was tampered with; it is kept.
        """
        if is_resume_request(raw):
            return self._resume(parse_resume(raw), session_id)
        parsed = parse_proposal(raw, workspace=workspace, session_id=session_id, agent=agent)
        return self._present(parsed)

    def _present(self, parsed: ParsedProposal) -> CaptureOutcome:
        decision_id = parsed.decision_id
        with self._locks.hold(_session_key(parsed.session_id)):
            self._refuse_other_pending(parsed.session_id, decision_id, "present")
            recorded = self._already_recorded(decision_id)
            if recorded is not None:
                return recorded
            with self._decision_lock(decision_id):
                if self.pending.exists(decision_id):
                    state = self.pending.load(decision_id)
                else:
                    automatic = self._decide(parsed)
                    if automatic is not None:
                        record = automatic_record(parsed, automatic)
                        stored = self.store.put(record)
                        return self._recorded(stored, automatic)
                    state = self.pending.save(PendingDecision(parsed))
        return NeedsHuman(CaptureTicket(self, state))

    def _decide(self, parsed: ParsedProposal) -> AutoAnswer | None:
        """The decider's answer; a decider that fails leaves the question with the person."""
        if self.decider is None:
            return None
        try:
            return self.decider.presented(parsed)
        except Exception:  # fail closed: asking the person is always safe
            log.exception("the decider could not route %s; asking the person", parsed.decision_id)
            return None

    def _resume(self, decision_id: str, session_id: str) -> CaptureOutcome:
        with self._locks.hold(_session_key(session_id)):
            self._refuse_other_pending(session_id, decision_id, "resume")
            recorded = self._already_recorded(decision_id)
            if recorded is not None:
                return recorded
            with self._decision_lock(decision_id):
                if not self.pending.exists(decision_id):
                    raise NotFound(f"implementation decision {decision_id} is not pending")
                state = self.pending.load(decision_id)
        return NeedsHuman(CaptureTicket(self, state))

    def _refuse_other_pending(self, session_id: str, decision_id: str, verb: str) -> None:
        """Runs before the idempotency shortcut, so a recorded proposal cannot bypass it."""
        other = self.pending.for_session(session_id)
        if other is not None and other != decision_id:
            raise PendingConflict(
                f"implementation decision {other} is still pending in this session (one "
                f"decision may be pending per agent session); cannot {verb} {decision_id} "
                "until it is answered",
                pending_id=other,
            )

    def _already_recorded(self, decision_id: str) -> Recorded | None:
        """The decision ID is the idempotency key: a recorded one is returned, not asked again."""
        if not self.store.exists(decision_id):
            return None
        record = self.store.get(decision_id)
        with contextlib.suppress(JournalError, OSError):
            self.pending.remove(decision_id)
        with contextlib.suppress(JournalError, OSError):
            self.drafts.remove(decision_id)
        return Recorded(record)

    @contextlib.contextmanager
    def _decision_lock(self, decision_id: str) -> Iterator[None]:
        """Serializes every change to one decision's pending file and its record."""
        with self._locks.hold("decision:" + decision_id):
            yield

    def _finish(self, record: DecisionRecord) -> Recorded:
        """Writes revision 1, clears the pending file, then asks for the profile rebuild."""
        with self._decision_lock(record.id):
            stored = self.store.put(record)
            warning = self._clear_pending(stored.id)
        return self._recorded(stored, None, warning)

    def _recorded(
        self, stored: DecisionRecord, automatic: AutoAnswer | None, warning: str = ""
    ) -> Recorded:
        warnings = [warning, self._rebuild_profile(stored), self._tell_decider(stored, automatic)]
        rule_id = automatic.rule_id if automatic else ""
        return Recorded(stored, " ".join(w for w in warnings if w), rule_id)

    def _tell_decider(self, stored: DecisionRecord, automatic: AutoAnswer | None) -> str:
        if self.decider is None:
            return ""
        try:
            return self.decider.recorded(stored, automatic)
        except Exception as exc:  # noqa: BLE001  # the record is committed; report, never lose it
            return f"the decider could not score it: {type(exc).__name__}: {exc}"

    def _clear_pending(self, decision_id: str) -> str:
        """Removes the pending file and the person's draft; a failure is reported, not raised."""
        try:
            self.pending.remove(decision_id)
        except (JournalError, OSError) as exc:
            return f"The pending state could not be cleared ({exc}); it is cleared on resume."
        try:
            self.drafts.remove(decision_id)
        except (JournalError, OSError) as exc:
            return f"The draft could not be deleted ({exc}); it is deleted on resume."
        return ""

    def _rebuild_profile(self, record: DecisionRecord) -> str:
        if self._on_recorded is None:
            return ""
        try:
            return self._on_recorded(record) or ""
        except Exception as exc:  # noqa: BLE001  # the record is committed; report, never lose it
            return f"preference profile rebuild failed: {type(exc).__name__}: {exc}"


def automatic_record(parsed: ParsedProposal, answer: AutoAnswer) -> DecisionRecord:
    """The record of an automatic answer: KernForge-valid, its origin kept in provenance and tag.

    `runtime` selection and rationale provenance keep it out of the profile's evidence, which
    counts only the person's own answers."""
    rejections = {o.id: answer.rejection_reason for o in parsed.options if o.id != answer.option_id}
    record = parsed.to_record(
        Selection(option_id=answer.option_id), Rationales(answer.selection_reason, rejections)
    )
    record.provenance.selection = "runtime"
    record.provenance.rationale = "runtime"
    record.tags = [AUTOMATIC_TAG]
    for rejected in record.rejected_reasons:
        rejected.source = "runtime"
    return record


def _session_key(session_id: str) -> str:
    return "session:" + go_trim(session_id)


class CaptureTicket:
    """One pending decision in front of the human; every answer is persisted before returning."""

    def __init__(self, service: CaptureService, state: PendingDecision) -> None:
        self._service = service
        self._state = state
        self._closed = False
        self._recorded: Recorded | None = None

    @property
    def decision_id(self) -> str:
        return self._state.decision_id

    @property
    def stage(self) -> Stage:
        return self._state.stage

    @property
    def proposal(self) -> ParsedProposal:
        return self._state.proposal

    @property
    def recorded(self) -> Recorded | None:
        """What `submit` wrote, once it returned (a front end may not have seen it yet)."""
        return self._recorded

    @property
    def selection(self) -> Selection | None:
        """The choice made before a pause (stage `rationale`), or None at stage `choice`."""
        return self._state.selection if self._state.stage == "rationale" else None

    def choose(self, selected_option_id: str = "", custom: str = "") -> Selection:
        """Records the human's choice and moves to the rationale stage.

        Raises:
            InvalidDecision: not exactly one of the two, an unknown id, or custom text too long.
        """
        selection = resolve_selection(self.proposal, selected_option_id, custom)
        self._persist("rationale", selection)
        return selection

    def required_rationales(self) -> list[RationaleQuestion]:
        """Why the selection, then why not each other listed option (all of them for custom)."""
        selection = self._require_selection()
        return rationale_questions(self.proposal, selection)

    def submit(self, selection_reason: str, rejections: Mapping[str, str]) -> Recorded:
        """Validates every answer, writes the record, clears the pending file.

        Raises:
            AnswerInvalid: every missing, blank or oversized answer, each naming its field.
        """
        selection = self._require_selection()
        reasons = check_answers(self.proposal, selection, selection_reason, rejections)
        record = self.proposal.to_record(selection, reasons)
        self._require_open()
        outcome = self._service._finish(record)
        self._closed = True
        self._recorded = outcome
        return outcome

    def cancel(self, stage: str | None = None) -> Pending:
        """Keeps the decision pending; the stage canceled at decides what resume asks again.

        Canceled while choosing: the choice is asked again. Canceled while answering why: the
        selection is kept and every rationale question is asked again.
        """
        at = stage if stage in ("choice", "rationale") else self.stage
        if at == "rationale" and self._state.stage == "rationale":
            self._persist("rationale", self._state.selection)
            return self._pending(CANCELED_RATIONALE)
        self._persist("choice", Selection())
        return self._pending(CANCELED_CHOICE)

    def draft(self) -> Draft | None:
        """What the person typed last time this decision was open, or None."""
        return self._service.drafts.load(self.decision_id)

    def save_draft(self, draft: Draft) -> Draft | None:
        """Keeps the person's unfinished text privately; never after the decision is recorded.

        Returns:
            The stored (redacted) draft, or None when it was empty or the decision is recorded.

        Raises:
            InvalidDecision: the draft belongs to another decision or a text is too long.
        """
        if draft.decision_id != self.decision_id:
            raise InvalidDecision(
                f"draft for {draft.decision_id[:80]!r} given to {self.decision_id}",
                field="decision_id",
            )
        if self._closed:
            return None
        with self._service._decision_lock(self.decision_id):
            if self._service.store.exists(self.decision_id):
                self._closed = True
                return None
            return self._service.drafts.save(draft)

    def defer(self, reason: str = NO_INTERACTIVE_USER) -> Pending:
        """Leaves the decision pending as saved, when no human can be asked now."""
        return self._pending(reason)

    def _pending(self, reason: str) -> Pending:
        return Pending(self.decision_id, self.stage, reason, self._state.selection)

    def _require_selection(self) -> Selection:
        selection = self.selection
        if selection is None:
            raise InvalidDecision(
                f"implementation decision {self.decision_id} has no selection yet: choose first",
                field="selected_option_id",
            )
        return selection

    def _require_open(self) -> None:
        if self._closed:
            raise InvalidDecision(
                f"implementation decision {self.decision_id} was already recorded",
                field="decision_id",
            )

    def _persist(self, stage: Stage, selection: Selection) -> None:
        """Saves the new stage, unless the decision was recorded meanwhile (a stale ticket)."""
        self._require_open()
        with self._service._decision_lock(self.decision_id):
            if self._service.store.exists(self.decision_id):
                self._closed = True
                self._require_open()
            candidate = PendingDecision(
                self._state.proposal,
                stage,
                selection,
                self._state.created_at,
                self._state.updated_at,
            )
            self._state = self._service.pending.save(candidate)


# --- answers ----------------------------------------------------------------------------------


def resolve_selection(proposal: ParsedProposal, selected_option_id: str, custom: str) -> Selection:
    """Exactly one of a listed id or custom text; custom equal to a label becomes that option.

    Raises:
        InvalidDecision: both or neither given, custom text over its limit, or an unknown id.
    """
    selected, text = go_trim(selected_option_id), go_trim(custom)
    if selected and text:
        raise InvalidDecision(
            "implementation decision selection cannot contain both a listed and custom selection",
            field="custom_selection",
        )
    if text:
        return _custom_selection(proposal, text)
    if not selected:
        raise InvalidDecision(
            "implementation decision requires exactly one selected option",
            field="selected_option_id",
        )
    if selected not in proposal.option_ids:
        raise InvalidDecision(
            f"selected implementation decision option {selected!r} is not present",
            field="selected_option_id",
        )
    return Selection(option_id=selected)


def _custom_selection(proposal: ParsedProposal, text: str) -> Selection:
    size, limit = utf8_len(text), rule("custom_selection")
    if not limit.fits(size):
        raise InvalidDecision(
            f"custom_selection {too_large(size, limit.most)}",
            field="custom_selection",
            limit=limit.most,
        )
    for option in proposal.options:
        if equal_fold(text, go_trim(option.label)):
            return Selection(option_id=option.id)
    return Selection(custom=text)


def _chosen_label(proposal: ParsedProposal, selection: Selection) -> str:
    return selection.custom or proposal.label_of(selection.option_id)


def rationale_questions(proposal: ParsedProposal, selection: Selection) -> list[RationaleQuestion]:
    chosen = _chosen_label(proposal, selection)
    questions = [RationaleQuestion(None, chosen, f"Why did you choose {chosen!r}?")]
    questions.extend(
        RationaleQuestion(option.id, option.label, f"Why did you not choose {option.label!r}?")
        for option in proposal.options
        if option.id != selection.option_id
    )
    return questions


def check_answers(
    proposal: ParsedProposal,
    selection: Selection,
    selection_reason: str,
    rejections: Mapping[str, str],
) -> Rationales:
    """Every answer required, non-blank and within its limit; all violations at once.

    Raises:
        AnswerInvalid: each violation names `selection_reason` or `rejections[<option id>]`.
    """
    found: list[Violation] = []
    _check_answer("selection_reason", selection_reason, found)
    required = [o.id for o in proposal.options if o.id != selection.option_id]
    for option_id in rejections:
        if option_id not in required:
            found.append(
                Violation(f"rejections[{option_id}]", "is not an option that needs a rejection")
            )
    for option_id in required:
        _check_answer(f"rejections[{option_id}]", rejections.get(option_id, ""), found)
    if found:
        raise AnswerInvalid(found)
    return Rationales(go_trim(selection_reason), {k: go_trim(rejections[k]) for k in required})


def _check_answer(where: str, value: object, found: list[Violation]) -> None:
    if not isinstance(value, str):
        found.append(Violation(where, f"must be a string (got {type(value).__name__})"))
        return
    text = go_trim(value)
    if not text:
        found.append(Violation(where, "a rationale answer is required"))
        return
    limit = rule("rejection_reason" if where.startswith("rejections") else "selection_reason_raw")
    size = utf8_len(text)
    if not limit.fits(size):
        found.append(Violation(where, too_large(size, limit.most), limit.most))


# --- results for agents -----------------------------------------------------------------------


def pending_result_message(decision_id: str, reason: str) -> str:
    reason = go_trim(reason).rstrip(".")
    return (
        f"Implementation decision {decision_id} remains pending: {reason}. Do not edit files; "
        f'call {TOOL_NAME} again with only {{"decision_id": "{decision_id}"}} to resume.'
    )


def recorded_result_message(record: DecisionRecord, profile_warning: str = "") -> str:
    text = f"Implementation decision recorded: {record.selected_label()} (id={record.id})."
    if is_automatic(record):
        text = (
            f"Implementation decision answered from the user's preference profile, without "
            f"asking: {record.selected_label()} (id={record.id}). The user sees it and may "
            f"overrule it."
        )
    if profile_warning:
        text += f" Preference profile rebuild warning: {go_trim(profile_warning).rstrip('.')}."
    return (
        f"{text} Continue implementation using this choice. Do not ask the same decision "
        f"again. Rationale: {record.summary_sentence}"
    )


def outcome_to_result(outcome: CaptureResult) -> dict[str, Any]:
    """The protocol's `decision.present` result (`core.ipc.methods.DecisionPresentResult`)."""
    if isinstance(outcome, Recorded):
        return _recorded_result(outcome)
    if isinstance(outcome, NeedsHuman):
        ticket = outcome.ticket
        outcome = Pending(
            ticket.decision_id, ticket.stage, WAITING, ticket.selection or Selection()
        )
    return _pending_result(outcome)


def _recorded_result(outcome: Recorded) -> dict[str, Any]:
    record = outcome.record
    return {
        "status": "recorded",
        "decision_id": record.id,
        "revision": record.revision,
        "selected_option_id": record.selected_option_id,
        "custom_selection": record.custom_selection,
        "selection_reason": record.selection_reason_raw,
        "rejected_reasons": [
            {
                "option_id": r.option_id,
                "label": record.option_label(r.option_id),
                "reason": r.reason,
            }
            for r in record.rejected_reasons
        ],
        "summary_sentence": record.summary_sentence,
        "message": recorded_result_message(record, outcome.profile_warning),
        "profile_warning": outcome.profile_warning,
        "decided_by": outcome.decided_by,
        "rule_id": outcome.rule_id,
    }


def _pending_result(outcome: Pending) -> dict[str, Any]:
    return {
        "status": "pending",
        "decision_id": outcome.decision_id,
        "revision": 0,
        "selected_option_id": outcome.selection.option_id,
        "custom_selection": outcome.selection.custom,
        "selection_reason": "",
        "rejected_reasons": [],
        "summary_sentence": "",
        "stage": outcome.stage,
        "message": outcome.message,
        "profile_warning": "",
    }
