"""The decider of one journal: what capture asks before and after the person answers.

`presented` turns a proposal into a `Question`, predicts with the profile, routes, and logs the
shadow prediction; it answers only when `route` lets the profile answer. `recorded` scores the
person's answer to a predicted decision, or logs an automatic answer, which is never scored.
`overrule` corrects an automatic answer as the person says and counts it toward demotion. Every
method takes the time from the clock it was given, so tests control it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path, PurePath
from typing import Any, Protocol

from core.capture.machine import AutoAnswer
from core.capture.proposal import ParsedProposal
from core.decider.fold import fold_name
from core.decider.ledger import DeciderLedger, Event, EventType, event_from_dict, time_text
from core.decider.modes import KindMode, ModeBook
from core.decider.policy import RoutingPolicy, load_policy
from core.decider.principles import PrincipleSources
from core.decider.route import (
    MODE_ASK,
    MODE_AUTO,
    AskedOption,
    Prediction,
    Question,
    Route,
    predict,
    route,
)
from core.decider.score import KindScore, classify, demotion_reason, score_kinds
from core.errors import InvalidDecision, JournalDamaged, JournalError, ModeRefused, NotFound
from core.journal import Journal
from core.profile.model import PreferenceProfile
from core.profile.query import EvidenceResult
from core.record.corrections import Correction, apply_correction, precheck
from core.record.models import DecisionRecord
from core.record.origin import is_automatic
from core.store.decisions import DecisionStore

log = logging.getLogger(__name__)

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    return datetime.now(UTC)


def question_of(proposal: ParsedProposal) -> Question:
    texts = [proposal.problem, proposal.header, proposal.decision_kind]
    for option in proposal.options:
        texts.extend([option.label, option.description, *option.pros, *option.cons])
    names = [proposal.project_id, proposal.project_alias]
    if proposal.workspace:
        names.append(PurePath(proposal.workspace).name)
    return Question(
        kind=proposal.decision_kind,
        options=tuple(AskedOption(o.id, o.label) for o in proposal.options),
        risk_level=proposal.risk_level,
        project_names=tuple(n for n in names if n),
        domains=tuple(proposal.domains),
        project_id=proposal.project_id,
        texts=tuple(t for t in texts if t),
    )


def _answer_label(record: DecisionRecord) -> tuple[str, bool]:
    if record.custom_selection:
        return record.custom_selection, True
    return record.selected_label(), False


USUAL_EXAMPLES = 3


@dataclass(frozen=True, slots=True)
class UsualChoice:
    """What the person usually chooses for a fork like this one: evidence for the window, never
    a preselection."""

    option_id: str
    option_label: str
    support: int
    total: int
    rule_id: str
    examples: tuple[str, ...] = ()
    """Problems of the newest supporting decisions, for the window's "examples" link."""

    @property
    def sentence(self) -> str:
        return (
            f"You chose {self.option_label} in {self.support} of {self.total} similar "
            f"decisions (rule {self.rule_id})"
        )


@dataclass(frozen=True, slots=True)
class Overruled:
    record: DecisionRecord
    demoted: bool
    kind_label: str


class ProfileSource(Protocol):
    """The profile as the decider reads it (`core.profile.store.ProfileStore`)."""

    def load(self) -> PreferenceProfile: ...

    def journal_source_hash(self) -> str: ...


def staleness(profile: PreferenceProfile, source: ProfileSource) -> str:
    """Why `profile` is out of date with the journal, or "" when it was built from the records
    as they are now (its source hash is the journal's). A journal whose hash cannot be read is
    never current."""
    if profile.revision == 0:
        return "the preference profile has not been built yet"
    try:
        journal_hash = source.journal_source_hash()
    except (JournalError, OSError) as exc:
        return f"the journal cannot be compared with the preference profile ({exc})"
    if profile.source_hash != journal_hash:
        return (
            "the preference profile is out of date with the journal (a change to the records "
            "is not folded in yet); asked until it is rebuilt"
        )
    return ""


class Decider:
    """Implements `core.capture.machine.DeciderHook` over one journal's files."""

    def __init__(
        self,
        journal_root: Path,
        profile: ProfileSource,
        *,
        clock: Clock = utc_now,
    ) -> None:
        self.root = Path(journal_root)
        self.ledger = DeciderLedger(self.root)
        self.modes = ModeBook(self.root, self.ledger)
        self._profile = profile
        self._clock = clock

    def _load_profile(self) -> PreferenceProfile:
        return self._profile.load()

    def policy(self) -> RoutingPolicy:
        return load_policy(self.root)

    def _log(self, event_type: EventType, decision_id: str, kind_label: str, **fields: Any) -> None:
        """One ledger line at the clock's time; `kind` is folded from the label."""
        self.ledger.append(
            [
                Event(
                    type=event_type,
                    at=time_text(self._clock()),
                    decision_id=decision_id,
                    kind=fold_name(kind_label),
                    kind_label=kind_label,
                    **fields,
                )
            ]
        )

    # --- capture's hook -----------------------------------------------------------------------

    def route_of(self, question: Question) -> Route:
        """Where the question goes. The profile's freshness is checked only when everything
        else would let it answer, because it looks at every record file's stat."""
        policy = self.policy()
        profile = self._load_profile()
        prediction = predict(profile, question)
        mode = self.modes.mode_of(question.kind)
        if mode == MODE_AUTO and self._demote_if_due(question.kind):
            mode = MODE_ASK  # overrules made on two machines, met here after a sync
        routed = route(question, mode=mode, prediction=prediction, policy=policy)
        if routed.to != "profile":
            return routed
        stale = staleness(profile, self._profile)
        if not stale:
            return routed
        log.debug("asking the person about %r: %s", question.kind, stale)
        return route(question, mode=mode, prediction=prediction, policy=policy, stale=stale)

    def presented(self, proposal: ParsedProposal) -> AutoAnswer | None:
        question = question_of(proposal)
        routed = self.route_of(question)
        prediction = routed.prediction
        if routed.to == "profile" and prediction is not None:
            return AutoAnswer(
                option_id=prediction.option_id,
                rule_id=prediction.rule_id,
                selection_reason=(
                    f"it is the usual choice, {prediction.support} of "
                    f"{prediction.support + prediction.contradictions} similar decisions (rule "
                    f"{prediction.rule_id}), answered without asking"
                ),
                rejection_reason=f"it is not the usual choice (rule {prediction.rule_id})",
            )
        if routed.shadow and prediction is not None:
            self._log_prediction(proposal.decision_id, question, prediction)
        return None

    def _log_prediction(self, decision_id: str, question: Question, prediction: Prediction) -> None:
        if any(e.type == "prediction" for e in self.ledger.of_decision(decision_id)):
            return
        self._log(
            "prediction",
            decision_id,
            question.kind,
            rule_id=prediction.rule_id,
            option_id=prediction.option_id,
            option_label=prediction.option_label,
            strength=round(prediction.strength, 4),
            support=prediction.support,
            contradictions=prediction.contradictions,
        )

    def recorded(self, record: DecisionRecord, automatic: AutoAnswer | None) -> str:
        if automatic is not None or is_automatic(record):
            self._log(
                "automatic",
                record.id,
                record.decision_kind,
                rule_id=automatic.rule_id if automatic else "",
                option_id=record.selected_option_id,
                option_label=record.selected_label(),
            )
            return ""
        events = self.ledger.of_decision(record.id)
        prediction = next((e for e in events if e.type == "prediction"), None)
        if prediction is None or any(e.type == "scored" for e in events):
            return ""
        answer, custom = _answer_label(record)
        outcome = classify(prediction.option_label, answer, custom)
        self._log(
            "scored",
            record.id,
            record.decision_kind,
            rule_id=prediction.rule_id,
            option_id=record.selected_option_id,
            option_label=answer,
            outcome=outcome,
        )
        if outcome == "overrule":
            return self._demote_if_due(record.decision_kind)
        return ""

    def usual_choice(
        self, proposal: ParsedProposal, lookup: Callable[[str], DecisionRecord | None]
    ) -> UsualChoice | None:
        """The rule that would predict this proposal, as a sentence and its examples."""
        prediction = predict(self._load_profile(), question_of(proposal))
        if prediction is None:
            return None
        records = [r for r in map(lookup, prediction.support_ids) if r is not None]
        records.sort(key=lambda r: r.updated_at.unix_ns if r.updated_at else 0, reverse=True)
        return UsualChoice(
            option_id=prediction.option_id,
            option_label=prediction.option_label,
            support=prediction.support,
            total=prediction.support + prediction.contradictions,
            rule_id=prediction.rule_id,
            examples=tuple(r.problem for r in records[:USUAL_EXAMPLES]),
        )

    # --- modes --------------------------------------------------------------------------------

    def scores(
        self,
        *,
        kinds: list[tuple[str, str]] | None = None,
        events: list[Event] | None = None,
        modes: dict[str, KindMode] | None = None,
    ) -> list[KindScore]:
        """Every kind the profile, the log or the modes know, with its score; `events` and
        `modes` (default: the whole log's) are what is scored."""
        profile = self._load_profile()
        known = list(kinds or [])  # as typed, unless the journal spells the kind itself
        known.extend((fold_name(r.criterion), r.criterion) for r in profile.rules)
        if events is None or modes is None:
            entries = self.ledger.log.read().entries  # read once for both
            if events is None:
                events = [e for e in map(event_from_dict, entries) if e is not None]
            if modes is None:
                modes = self.modes.read(entries)
        return score_kinds(
            events,
            modes,
            self.policy(),
            now=self._clock(),
            kinds=known,
        )

    def score_of(self, kind: str) -> KindScore | None:
        """One kind's score, from that kind's ledger lines only."""
        wanted = fold_name(kind)
        entry = self.modes.entry_of(wanted)
        scores = self.scores(
            kinds=[(wanted, kind)],
            events=self.ledger.of_kind(wanted),
            modes={wanted: entry} if entry else {},
        )
        return next((s for s in scores if s.kind == wanted), None)

    def set_mode(self, kind: str, mode: str) -> KindMode:
        """`ask` always; `auto` only when recommended, else ModeRefused with the reason."""
        if mode not in (MODE_ASK, MODE_AUTO):
            raise InvalidDecision("mode must be ask or auto", field="mode")
        if not fold_name(kind):
            raise InvalidDecision("a decision kind is required", field="kind")
        score = self.score_of(kind)
        label = score.kind_label if score else kind.strip()
        if mode == MODE_AUTO:
            if score is None or not score.recommended:
                reason = score.reason if score else "no scored predictions"
                raise ModeRefused(f"auto is not recommended for {label!r}: {reason}")
            return self.modes.set(
                label, mode, reason="set to auto: " + score.reason, now=self._clock()
            )
        return self.modes.set(label, mode, reason="set to ask", now=self._clock())

    def _demote_if_due(self, label: str) -> str:
        score = self.score_of(label)
        if score is None or not score.demote:
            return ""
        self.modes.set(
            label, MODE_ASK, reason=demotion_reason(score.recent_overrules), now=self._clock()
        )
        return (
            f"{score.recent_overrules} overrules within seven days: {label!r} is asked again "
            "(mode ask)"
        )

    def record_committed(self, record: DecisionRecord) -> None:
        """`CommitListener`: a correction that makes an automatic answer the person's own choice
        (the journal window's correction, `edit`) is an overrule. Never raises: the revision is
        committed whatever the ledger says."""
        if record.revision < 2 or is_automatic(record):
            return
        try:
            self._note_overrule(record)
        except (JournalError, OSError):
            log.exception("overrule of %s not counted", record.id)

    def _note_overrule(self, record: DecisionRecord) -> str:
        """Logs the overrule of a once-automatic record (once) and demotes when it is due."""
        events = self.ledger.of_decision(record.id)
        automatic = next((e for e in events if e.type == "automatic"), None)
        if automatic is None or any(e.type == "overruled" for e in events):
            return ""
        self._log(
            "overruled",
            record.id,
            record.decision_kind,
            rule_id=automatic.rule_id,
            option_id=record.selected_option_id,
            option_label=record.selected_label() or record.custom_selection,
        )
        return self._demote_if_due(record.decision_kind)

    # --- overrule ---------------------------------------------------------------------------

    def overrule(
        self, store: DecisionStore, decision_id: str, option: str, reason: str = ""
    ) -> Overruled:
        """Corrects an automatic answer to `option` (an option id or its label) as the person's
        own choice, logs it, and demotes the kind when this is its second overrule in 7 days."""
        record = store.get(decision_id)
        if not is_automatic(record):
            raise ModeRefused(
                f"decision {decision_id} was answered by the person, not the profile; "
                "correct it with edit"
            )
        chosen = next(
            (
                o
                for o in record.options
                if o.id == option.strip() or fold_name(o.label) == fold_name(option)
            ),
            None,
        )
        if chosen is None:
            raise NotFound(f"decision {decision_id} has no option {option[:80]!r}")
        if chosen.id == record.selected_option_id:
            raise InvalidDecision(
                f"option {chosen.id!r} is the profile's answer already; choose another",
                field="select",
            )
        previous = record.selected_option_id
        correction = Correction(
            selected_option_id=chosen.id,
            selection_reason=reason.strip()
            or f"Overruled the profile's automatic answer ({record.selected_label()}).",
            rejected_reasons={previous: "The profile's answer, overruled by me."},
            tags=[],
        )
        precheck(correction)
        was = self.modes.mode_of(record.decision_kind)
        revised = store.revise(
            decision_id, record.revision, lambda r: apply_correction(r, correction)
        )
        self._note_overrule(revised)  # once: a listener of this store may have counted it
        demoted = was == MODE_AUTO and self.modes.mode_of(record.decision_kind) == MODE_ASK
        return Overruled(revised, demoted, record.decision_kind)


def decider_for(journal: Journal, *, clock: Clock = utc_now) -> Decider:
    """The decider of an open journal, reading its profile as it is on disk."""
    return Decider(journal.root, journal.profile, clock=clock)


def principle_sources(journal: Journal) -> PrincipleSources:
    """What the principle docs of this journal are written from, read now."""
    return PrincipleSources.of(
        journal.profile.load(), record_lookup(journal.store), decider_for(journal).scores()
    )


def record_lookup(store: DecisionStore) -> Callable[[str], DecisionRecord | None]:
    def lookup(decision_id: str) -> DecisionRecord | None:
        try:
            return store.get(decision_id)
        except (NotFound, InvalidDecision):
            return None

    return lookup


def with_modes(result: EvidenceResult, decider: Decider) -> dict[str, Any]:
    """The evidence query's answer with each rule's kind's mode and agreement beside it.

    A modes file that cannot be read says `ask` with the reason, as routing then asks."""
    data = result.to_dict()
    criteria = {fold_name(m["criterion"]): m["criterion"] for m in data["matches"]}
    try:  # each kind from its own ledger lines, not the whole ledger
        scores = {k: s for k, label in criteria.items() if (s := decider.score_of(label))}
    except JournalDamaged as exc:
        scores, problem = {}, str(exc)
    else:
        problem = ""
    for match in data["matches"]:
        score = scores.get(fold_name(match["criterion"]))
        match["mode"] = score.mode if score else MODE_ASK
        match["scored_predictions"] = score.scored if score else 0
        match["agreement"] = round(score.agreement, 4) if score else 0.0
        match["auto_recommended"] = bool(score and score.recommended)
        if problem:
            match["mode_problem"] = problem
    return data
