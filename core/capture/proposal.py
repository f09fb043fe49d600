"""Parses and validates an agent's proposal at an implementation fork, and derives its identity.

Why every violation at once: an agent fixes a rejected proposal in one retry only if it learns
everything that is wrong, so parsing never stops at the first broken rule. The rules, their
order and the canonical values (trimming, lowercasing, list caps, case-insensitive dedupe) are
the reference's, so the derived decision ID matches KernForge's for the same fork.

This module is the entry points and the validated value; reading raw JSON into a draft is
`core.capture.proposal_draft`, the rules the draft must keep are `core.capture.proposal_rules`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from core.capture.proposal_draft import (
    ProposalDraft,
    Violations,
    key_name,
    read_proposal,
    redact,
)
from core.capture.proposal_rules import (
    check_new_options,
    find_caller_problems,
    find_decision_id_problems,
    find_identifier_problems,
    find_proposal_problems,
    find_redaction_problems,
)
from core.errors import ProposalInvalid
from core.gocompat.gojson import go_valid_text
from core.gocompat.text import go_trim, utf8_len
from core.record.fields import rule
from core.record.identity import (
    ProjectIdentity,
    evidence_fingerprint,
    project_identity,
    task_fingerprint,
)
from core.record.identity import decision_id as derive_decision_id
from core.record.models import (
    SCHEMA_VERSION,
    STATUS_COMPLETED,
    DecisionRecord,
    Option,
    ProposalOption,
    Provenance,
    RejectedReason,
)
from core.record.redact_record import free_text_updates, option_text_updates

DEFAULT_HEADER = "Implementation decision"
CALLER_FIELDS = ("workspace", "session_id", "agent")
"""Fields an adapter may send beside a resume id; it uses them itself, the proposal ignores them."""

_RESUME_KEYS = frozenset({"decision_id", *CALLER_FIELDS})


@dataclass(frozen=True, slots=True)
class Selection:
    """The human's choice: a listed option id or custom text, never both."""

    option_id: str = ""
    custom: str = ""

    @property
    def is_custom(self) -> bool:
        return bool(self.custom)


@dataclass(frozen=True, slots=True)
class Rationales:
    """Why the selection was made, and why each other listed option was not."""

    selection_reason: str
    rejections: Mapping[str, str]


@dataclass(frozen=True, slots=True)
class ParsedProposal:
    """A validated proposal in canonical form, with its identity filled in.

    It is everything needed to ask the human and, with their answers, to build the record;
    `header` is shown in the prompt only and never reaches the record.
    """

    decision_id: str
    problem: str
    decision_kind: str
    risk_level: str
    header: str
    options: tuple[ProposalOption, ...]
    recommended_option_id: str
    detector_confidence: float
    domains: tuple[str, ...]
    languages: tuple[str, ...]
    evidence_refs: tuple[str, ...]
    task_fingerprint: str
    evidence_fingerprint: str
    session_id: str
    agent: str
    identity: ProjectIdentity

    @property
    def header_text(self) -> str:
        return self.header or DEFAULT_HEADER

    @property
    def project_id(self) -> str:
        return self.identity.project_id

    @property
    def project_alias(self) -> str:
        return self.identity.alias

    @property
    def workspace(self) -> str:
        return self.identity.workspace

    @property
    def option_ids(self) -> tuple[str, ...]:
        return tuple(option.id for option in self.options)

    def label_of(self, option_id: str) -> str:
        for option in self.options:
            if option.id == option_id:
                return option.label
        return ""

    def accepts(self, selection: Selection) -> bool:
        """Whether a stored selection can still be used: exactly one kind, within limits."""
        if bool(selection.option_id) == bool(selection.custom):
            return False
        if selection.custom:
            return rule("custom_selection").fits(utf8_len(selection.custom))
        return selection.option_id in self.option_ids

    def proposal_fields(self) -> dict[str, Any]:
        """The canonical proposal as JSON values; parsing it again yields the same proposal."""
        return {
            "problem": self.problem,
            "decision_kind": self.decision_kind,
            "risk_level": self.risk_level,
            "header": self.header,
            "domains": list(self.domains),
            "languages": list(self.languages),
            "evidence_refs": list(self.evidence_refs),
            "detector_confidence": self.detector_confidence,
            "options": [_option_fields(option) for option in self.options],
            "recommended_option_id": self.recommended_option_id,
            "task_fingerprint": self.task_fingerprint,
            "evidence_fingerprint": self.evidence_fingerprint,
        }

    def redacted(self) -> ParsedProposal:
        """A copy with secrets replaced in every free-text field, for files outside the store.

        Identifiers (kind, fingerprints, option ids, session) were refused when secret-looking,
        so they need no rewriting; the decision ID stays the one derived from the original.
        """
        return replace(
            self,
            **free_text_updates(self, redact),
            options=tuple(_redact_option(option) for option in self.options),
            agent=redact(self.agent),
            identity=replace(
                self.identity,
                alias=redact(self.identity.alias),
                workspace=redact(self.identity.workspace),
            ),
        )

    def to_record(self, selection: Selection, reasons: Rationales) -> DecisionRecord:
        """The record to store: options from the model, selection and rationale from the user."""
        options = [
            Option(
                id=option.id,
                label=option.label,
                description=option.description,
                pros=list(option.pros),
                cons=list(option.cons),
                recommended=option.recommended,
                order=position,
                source="model",
            )
            for position, option in enumerate(self.options, start=1)
        ]
        check_new_options(options)
        rejected = [
            RejectedReason(
                option_id=option.id,
                reason=go_trim(reasons.rejections.get(option.id, "")),
                source="user",
            )
            for option in self.options
            if option.id != selection.option_id
        ]
        return DecisionRecord(
            schema_version=SCHEMA_VERSION,
            id=self.decision_id,
            session_id=self.session_id,
            project_id=self.identity.project_id,
            project_alias=self.identity.alias,
            workspace=self.identity.workspace,
            workspace_hash=self.identity.workspace_hash,
            domains=list(self.domains),
            languages=list(self.languages),
            decision_kind=self.decision_kind,
            risk_level=self.risk_level,
            problem=self.problem,
            task_fingerprint=self.task_fingerprint,
            evidence_fingerprint=self.evidence_fingerprint,
            options=options,
            recommended_option_id=self.recommended_option_id,
            selected_option_id=selection.option_id,
            custom_selection=selection.custom,
            selection_reason_raw=go_trim(reasons.selection_reason),
            rejected_reasons=rejected,
            evidence_refs=list(self.evidence_refs),
            detector_confidence=self.detector_confidence,
            status=STATUS_COMPLETED,
            provenance=Provenance(
                options="model", selection="user", rationale="user", summary="runtime"
            ),
        )


def _option_fields(option: ProposalOption) -> dict[str, Any]:
    return {
        "id": option.id,
        "label": option.label,
        "description": option.description,
        "pros": list(option.pros),
        "cons": list(option.cons),
        "recommended": option.recommended,
    }


def _redact_option(option: ProposalOption) -> ProposalOption:
    return option.model_copy(update=option_text_updates(option, redact))


# --- entry points ----------------------------------------------------------------------------


def is_resume_request(raw: object) -> bool:
    """`{"decision_id": ...}` alone (plus caller fields) resumes; anything else is a proposal."""
    return isinstance(raw, dict) and "decision_id" in raw and set(raw) <= _RESUME_KEYS


def parse_resume(raw: object) -> str:
    """The decision id of a resume request; caller fields (workspace, session) are ignored.

    Raises:
        ProposalInvalid: not an object, unknown fields, or an invalid or secret-looking id.
    """
    found = Violations()
    if not isinstance(raw, dict):
        found.wrong_type("proposal", "a JSON object", raw)
        raise ProposalInvalid(found.items)
    for key in raw:
        if key not in _RESUME_KEYS:
            found.add(key_name(key), "unknown field; a resume request carries only decision_id")
    value = raw.get("decision_id")
    if not isinstance(value, str):
        found.wrong_type("decision_id", "a string", value)
    else:
        find_decision_id_problems(go_trim(value), found, what="pending implementation decision id")
    found.raise_if_any(ProposalInvalid)
    return go_trim(str(value))


def parse_proposal(
    raw: object,
    *,
    workspace: str,
    session_id: str,
    agent: str = "",
) -> ParsedProposal:
    """Parses and validates a new proposal, fills its fingerprints and derives its decision ID.

    Args:
        raw: the tool arguments as decoded JSON.
        workspace: the agent's project root; project identity is derived from it.
        session_id: the agent session; it is part of the generated task fingerprint.
        agent: a display name for the asking agent; not part of the identity.

    Raises:
        ProposalInvalid: every violation found, each naming its field.
    """
    session_id, workspace, agent = (go_valid_text(t) for t in (session_id, workspace, agent))
    found = Violations()
    draft = read_proposal(raw, found)
    find_proposal_problems(draft, found)
    find_caller_problems(found, session_id=session_id, workspace=workspace, agent=agent)
    found.raise_if_any(ProposalInvalid)
    identity = project_identity(workspace)
    derived = _derive_id(draft, identity, session_id)
    if draft.decision_id and draft.decision_id != derived:
        found.add("decision_id", f"does not match the id derived from the proposal ({derived})")
    find_redaction_problems(draft, found)
    found.raise_if_any(ProposalInvalid)
    return _build(draft, derived, identity, session_id=session_id, agent=agent)


def parse_stored_proposal(
    raw: object,
    *,
    decision_id: str,
    identity: ProjectIdentity,
    session_id: str,
    agent: str = "",
) -> ParsedProposal:
    """Re-validates a proposal saved earlier (a pending decision) under its recorded identity.

    The ID is not derived again: the saved text is redacted, and the ID was derived from the
    original. Every rule of a new proposal still applies, so a tampered file is refused.

    Raises:
        ProposalInvalid: every violation found.
    """
    found = Violations()
    draft = read_proposal(raw, found)
    find_proposal_problems(draft, found)
    find_caller_problems(found, session_id=session_id, workspace=identity.workspace, agent=agent)
    for name, value in (
        ("project_id", identity.project_id),
        ("workspace_hash", identity.workspace_hash),
    ):
        find_identifier_problems(name, value, found)
    find_decision_id_problems(decision_id, found, what="pending implementation decision id")
    found.raise_if_any(ProposalInvalid)
    draft.task_fingerprint = draft.task_fingerprint or task_fingerprint(session_id, draft.problem)
    draft.evidence_fingerprint = draft.evidence_fingerprint or _evidence_fp(draft)
    return _build(draft, decision_id, identity, session_id=session_id, agent=agent)


# --- identity and the final value ------------------------------------------------------------


def _evidence_fp(draft: ProposalDraft) -> str:
    return evidence_fingerprint(list(_proposal_options(draft)), draft.evidence_refs)


def _derive_id(draft: ProposalDraft, identity: ProjectIdentity, session_id: str) -> str:
    """Fills missing fingerprints, then hashes them with the problem and options (reference)."""
    draft.task_fingerprint = draft.task_fingerprint or task_fingerprint(session_id, draft.problem)
    draft.evidence_fingerprint = draft.evidence_fingerprint or _evidence_fp(draft)
    return derive_decision_id(
        project_id=identity.project_id,
        task_fp=draft.task_fingerprint,
        evidence_fp=draft.evidence_fingerprint,
        problem=draft.problem,
        options=list(_proposal_options(draft)),
    )


def _proposal_options(draft: ProposalDraft) -> list[ProposalOption]:
    return [
        ProposalOption.model_construct(
            id=o.id,
            label=o.label,
            description=o.description,
            pros=list(o.pros),
            cons=list(o.cons),
            recommended=o.recommended,
        )
        for o in draft.options
    ]


def _build(
    draft: ProposalDraft,
    decision_id: str,
    identity: ProjectIdentity,
    *,
    session_id: str,
    agent: str,
) -> ParsedProposal:
    options = tuple(_proposal_options(draft))
    recommended = next(o.id for o in options if o.recommended)
    confidence = float(draft.confidence) if draft.confidence is not None else 0.0
    return ParsedProposal(
        decision_id=decision_id,
        problem=draft.problem,
        decision_kind=draft.decision_kind,
        risk_level=draft.risk_level,
        header=draft.header,
        options=options,
        recommended_option_id=recommended,
        detector_confidence=confidence,
        domains=tuple(draft.domains),
        languages=tuple(draft.languages),
        evidence_refs=tuple(draft.evidence_refs),
        task_fingerprint=draft.task_fingerprint,
        evidence_fingerprint=draft.evidence_fingerprint,
        session_id=go_trim(session_id),
        agent=go_trim(agent),
        identity=identity,
    )


def stored_identity(
    *, project_id: str, workspace_hash: str, alias: str, workspace: str
) -> ProjectIdentity:
    """The project identity recorded when the decision was first presented.

    Why not derive it again: the workspace path may resolve differently now (a moved symlink),
    and the decision must keep the project it was asked in.
    """
    return ProjectIdentity(
        project_id=project_id,
        workspace_hash=workspace_hash,
        alias=alias,
        workspace=workspace,
        canonical_path="",
    )
