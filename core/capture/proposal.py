"""Parses and validates an agent's proposal at an implementation fork, and derives its identity.

Why every violation at once: an agent fixes a rejected proposal in one retry only if it learns
everything that is wrong, so parsing never stops at the first broken rule. The rules, their
order and the canonical values (trimming, lowercasing, list caps, case-insensitive dedupe) are
the reference's, so the derived decision ID matches KernForge's for the same fork.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from core.errors import ProposalInvalid, Violation, ViolationsError
from core.gocompat.gojson import go_valid_text
from core.gocompat.text import go_lower, go_trim, utf8_len
from core.messages.wording import too_large
from core.record.fields import FieldRule, id_rule, item_rule, number_rule, risk_problem, rule
from core.record.identity import (
    ProjectIdentity,
    evidence_fingerprint,
    project_identity,
    task_fingerprint,
)
from core.record.identity import decision_id as derive_decision_id
from core.record.models import (
    RISK_LEVELS,
    SCHEMA_VERSION,
    STATUS_COMPLETED,
    DecisionRecord,
    Option,
    ProposalOption,
    Provenance,
    RejectedReason,
)
from core.record.normalize import dedupe_fold
from core.record.redact_record import free_text_updates, option_text_updates
from core.record.redaction import looks_sensitive, redact_text
from core.record.validation import is_valid_decision_id, is_valid_option_id

DEFAULT_HEADER = "Implementation decision"
PROPOSAL_FIELDS = (
    "decision_id",
    "problem",
    "header",
    "decision_kind",
    "risk_level",
    "options",
    "domains",
    "languages",
    "evidence_refs",
    "detector_confidence",
    "task_fingerprint",
    "evidence_fingerprint",
    "recommended_option_id",
)
OPTION_FIELDS = ("id", "label", "description", "pros", "cons", "recommended")
CALLER_FIELDS = ("workspace", "session_id", "agent")
"""Fields an adapter may send beside a resume id; it uses them itself, the proposal ignores them."""

_STRING_FIELDS = (
    "decision_id",
    "problem",
    "header",
    "decision_kind",
    "risk_level",
    "task_fingerprint",
    "evidence_fingerprint",
    "recommended_option_id",
)
_LOWERCASED = ("decision_kind", "risk_level")
_LISTS = ("domains", "languages", "evidence_refs")
"""The proposal's string lists, each capped and its items limited by its rule in `fields`."""
_RESUME_KEYS = frozenset({"decision_id", *CALLER_FIELDS})
_SENSITIVE = (
    "must not contain sensitive material (it looks like a secret; identifiers are refused, "
    "never rewritten)"
)


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
            **free_text_updates(self, _redact),
            options=tuple(_redact_option(option) for option in self.options),
            agent=_redact(self.agent),
            identity=replace(
                self.identity,
                alias=_redact(self.identity.alias),
                workspace=_redact(self.identity.workspace),
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


def _redact(text: str) -> str:
    return redact_text(text)[0]


def _redact_option(option: ProposalOption) -> ProposalOption:
    return option.model_copy(update=option_text_updates(option, _redact))


# --- entry points ----------------------------------------------------------------------------


def is_resume_request(raw: object) -> bool:
    """`{"decision_id": ...}` alone (plus caller fields) resumes; anything else is a proposal."""
    return isinstance(raw, dict) and "decision_id" in raw and set(raw) <= _RESUME_KEYS


def parse_resume(raw: object) -> str:
    """The decision id of a resume request; caller fields (workspace, session) are ignored.

    Raises:
        ProposalInvalid: not an object, unknown fields, or an invalid or secret-looking id.
    """
    found = _Violations()
    if not isinstance(raw, dict):
        found.wrong_type("proposal", "a JSON object", raw)
        raise ProposalInvalid(found.items)
    for key in raw:
        if key not in _RESUME_KEYS:
            found.add(_key_name(key), "unknown field; a resume request carries only decision_id")
    value = raw.get("decision_id")
    if not isinstance(value, str):
        found.wrong_type("decision_id", "a string", value)
    else:
        _check_decision_id(go_trim(value), found, what="pending implementation decision id")
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
    found = _Violations()
    draft = _read_proposal(raw, found)
    _check_rules(draft, found)
    _check_caller(found, session_id=session_id, workspace=workspace, agent=agent)
    found.raise_if_any(ProposalInvalid)
    identity = project_identity(workspace)
    derived = _derive_id(draft, identity, session_id)
    if draft.decision_id and draft.decision_id != derived:
        found.add("decision_id", f"does not match the id derived from the proposal ({derived})")
    _check_redacted(draft, found)
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
    found = _Violations()
    draft = _read_proposal(raw, found)
    _check_rules(draft, found)
    _check_caller(found, session_id=session_id, workspace=identity.workspace, agent=agent)
    for name, value in (
        ("project_id", identity.project_id),
        ("workspace_hash", identity.workspace_hash),
    ):
        _check_identifier(name, value, found)
    _check_decision_id(decision_id, found, what="pending implementation decision id")
    found.raise_if_any(ProposalInvalid)
    draft.task_fingerprint = draft.task_fingerprint or task_fingerprint(session_id, draft.problem)
    draft.evidence_fingerprint = draft.evidence_fingerprint or _evidence_fp(draft)
    return _build(draft, decision_id, identity, session_id=session_id, agent=agent)


# --- reading raw JSON into a draft -------------------------------------------------------------


class _Violations:
    """Collects violations; a field with a wrong JSON type gets no further rule violations."""

    def __init__(self) -> None:
        self.items: list[Violation] = []
        self._mistyped: set[str] = set()

    def add(self, where: str, message: str, limit: int | None = None) -> None:
        if where not in self._mistyped:
            self.items.append(Violation(where, message, limit))

    def wrong_type(self, where: str, expected: str, value: object) -> None:
        self.items.append(Violation(where, f"must be {expected} (got {_json_type(value)})"))
        self._mistyped.add(where)

    def size(self, where: str, value: str, limit: FieldRule) -> None:
        size = utf8_len(value)
        if size > limit.most:
            self.add(where, too_large(size, limit.most), limit.most)

    def raise_if_any(self, error: type[ViolationsError]) -> None:
        if self.items:
            raise error(self.items)


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


@dataclass(slots=True)
class _DraftOption:
    index: int
    id: str = ""
    label: str = ""
    description: str = ""
    pros: list[str] = field(default_factory=list)
    cons: list[str] = field(default_factory=list)
    recommended: bool = False
    recommended_mistyped: bool = False

    @property
    def where(self) -> str:
        return f"options[{self.index}]"


@dataclass(slots=True)
class _Draft:
    decision_id: str = ""
    problem: str = ""
    header: str = ""
    decision_kind: str = ""
    risk_level: str = ""
    task_fingerprint: str = ""
    evidence_fingerprint: str = ""
    recommended_option_id: str = ""
    domains: list[str] = field(default_factory=list)
    languages: list[str] = field(default_factory=list)
    evidence_refs: list[str] = field(default_factory=list)
    options: list[_DraftOption] = field(default_factory=list)
    option_count: int | None = None
    confidence: int | float | None = None
    present: set[str] = field(default_factory=set)
    recommended_mistyped: bool = False


def _read_proposal(raw: object, found: _Violations) -> _Draft:
    """Canonical values from raw JSON; wrong types and unknown fields become violations.

    A JSON null reads as an absent field, as Go decodes null into the zero value. Anything but
    an object is refused at once: no field rule means anything then.
    """
    draft = _Draft()
    if not isinstance(raw, dict):
        found.wrong_type("proposal", "a JSON object", raw)
        found.raise_if_any(ProposalInvalid)
        return draft
    for key, value in raw.items():
        if value is None:
            continue
        draft.present.add(key)
        if key in _STRING_FIELDS:
            _read_string_field(draft, key, value, found)
        elif key in _LISTS:
            setattr(draft, key, _read_string_list(key, value, rule(key).most, found))
        elif key == "options":
            _read_options(draft, value, found)
        elif key == "detector_confidence":
            draft.confidence = _read_number(key, value, found)
        else:
            found.add(
                _key_name(key),
                f"unknown field; a proposal accepts only {', '.join(PROPOSAL_FIELDS)}",
            )
    return draft


def _key_name(key: object) -> str:
    """An unknown key as a field name; quoted when it would not read as one (empty, spaces)."""
    text = str(key)
    return text if text and text.isprintable() and text.strip() == text else repr(text)


def _read_string_field(draft: _Draft, key: str, value: object, found: _Violations) -> None:
    if not isinstance(value, str):
        found.wrong_type(key, "a string", value)
        return
    text = go_trim(go_valid_text(value))
    setattr(draft, key, go_lower(text) if key in _LOWERCASED else text)


def _read_string_list(where: str, value: object, cap: int, found: _Violations) -> list[str]:
    """Trimmed non-empty strings up to `cap`, then case-insensitive dedupe (first spelling wins)."""
    if not isinstance(value, list):
        found.wrong_type(where, "an array of strings", value)
        return []
    kept: list[str] = []
    for index, item in enumerate(value):
        if len(kept) >= cap:
            break
        if not isinstance(item, str):
            found.wrong_type(f"{where}[{index}]", "a string", item)
            continue
        text = go_trim(go_valid_text(item))
        if text:
            kept.append(text)
    return dedupe_fold(kept)


def _read_number(where: str, value: object, found: _Violations) -> int | float | None:
    """Only a JSON number counts; a numeric string or a bool is a type error, as in Go."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        found.wrong_type(where, "a JSON number", value)
        return None
    return value


def _read_options(draft: _Draft, value: object, found: _Violations) -> None:
    if not isinstance(value, list):
        found.wrong_type("options", "an array of objects", value)
        return
    draft.option_count = len(value)
    for index, item in enumerate(value):
        if not isinstance(item, dict):
            found.wrong_type(f"options[{index}]", "an object", item)
            continue
        option = _read_option(index, item, found)
        draft.recommended_mistyped |= option.recommended_mistyped
        draft.options.append(option)


def _read_option(index: int, item: dict[Any, Any], found: _Violations) -> _DraftOption:
    option = _DraftOption(index=index)
    for key, value in item.items():
        where = f"{option.where}.{_key_name(key)}"
        if value is None:
            continue
        if key not in OPTION_FIELDS:
            found.add(where, f"unknown field; an option accepts only {', '.join(OPTION_FIELDS)}")
        elif key == "recommended":
            if isinstance(value, bool):
                option.recommended = value
            else:
                found.wrong_type(where, "a boolean", value)
                option.recommended_mistyped = True
        elif key in ("pros", "cons"):
            items = _read_string_list(where, value, rule("option.details").most, found)
            setattr(option, key, items)
        elif isinstance(value, str):
            setattr(option, key, go_trim(go_valid_text(value)))
        else:
            found.wrong_type(where, "a string", value)
    return option


def order_violations(orders: Sequence[int]) -> list[Violation]:
    """The rule for the options of a decision that is new: no two share a position.

    Positions are read as every write normalizes them (`order` 0 or less becomes the option's
    1-based place in the list), so `[0, 1]` repeats position 1. The window, the exports and
    the history show options by position, and two at one place read as if one were missing.
    Stored records are not held to it (`core.record.validation` leaves `order` alone), so a record
    some older tool wrote with repeated orders stays readable.
    """
    found: list[Violation] = []
    first: dict[int, int] = {}
    for index, order in enumerate(orders):
        position = order if order > 0 else index + 1
        if position in first:
            found.append(
                Violation(
                    f"options[{index}].order",
                    f"position {position} is already options[{first[position]}]'s; "
                    "each option needs its own",
                )
            )
        first.setdefault(position, index)
    return found


def check_new_options(options: Sequence[Option]) -> None:
    """Refuses a new decision's options when two share a position.

    For every path that writes a decision for the first time: capture (`to_record`),
    imports and generated data.

    Raises:
        ProposalInvalid: one violation per option at a position an earlier one holds.
    """
    violations = order_violations([option.order for option in options])
    if violations:
        raise ProposalInvalid(violations)


# --- rules, in the reference's order -----------------------------------------------------------


def _check_rules(draft: _Draft, found: _Violations) -> None:
    _check_required(draft, found)
    for name in ("problem", "decision_kind", "header"):
        found.size(name, getattr(draft, name), rule(name))
    if draft.risk_level not in RISK_LEVELS:
        found.add("risk_level", risk_problem(draft.risk_level))
    _check_confidence(draft, found)
    _check_option_count(draft, found)
    for name in _LISTS:
        each = item_rule(name)
        for index, item in enumerate(getattr(draft, name)):
            found.size(f"{name}[{index}]", item, each)
    for name in ("decision_kind", "task_fingerprint", "evidence_fingerprint"):
        _check_identifier(name, getattr(draft, name), found)
    _check_options(draft, found)
    _check_recommendation(draft, found)


def _check_required(draft: _Draft, found: _Violations) -> None:
    for name in ("problem", "decision_kind"):
        if not getattr(draft, name):
            verb = "must not be blank" if name in draft.present else "is required"
            found.add(name, verb)


def _check_confidence(draft: _Draft, found: _Violations) -> None:
    value, limit = draft.confidence, number_rule("detector_confidence")
    if value is None:
        if "detector_confidence" not in draft.present:
            found.add("detector_confidence", f"is required: a number from {limit.span()}")
        return
    if not _in_unit_range(value):
        found.add("detector_confidence", f"must be a finite number from 0 to 1 (got {value})")
    elif value < limit.least:
        found.add(
            "detector_confidence",
            f"is below {limit.least} (got {float(value):.2f}): the decision "
            "tool is reserved for material forks",
        )


def _in_unit_range(value: int | float) -> bool:
    """0 <= value <= 1 without converting huge ints to float (which would overflow)."""
    if isinstance(value, int):
        return 0 <= value <= 1
    return math.isfinite(value) and 0.0 <= value <= 1.0


def _check_option_count(draft: _Draft, found: _Violations) -> None:
    count, limit = draft.option_count, rule("options")
    if count is None:
        if "options" not in draft.present:
            found.add("options", f"is required: give {limit.span()}")
        return
    if not limit.least <= count <= limit.most:
        found.add("options", f"must have {limit.span()} (got {count})", limit.most)


def _check_identifier(name: str, value: str, found: _Violations) -> None:
    found.size(name, value, rule("identifier"))
    if value and looks_sensitive(value):
        found.add(name, _SENSITIVE)


def _check_options(draft: _Draft, found: _Violations) -> None:
    ids: dict[str, int] = {}
    labels: dict[str, int] = {}
    for option in draft.options:
        _check_option_sizes(option, found)
        _check_option_content(option, found)
        where = option.where
        if option.id:
            if option.id in ids:
                found.add(f"{where}.id", f"duplicates options[{ids[option.id]}].id")
            ids.setdefault(option.id, option.index)
        key = go_lower(option.label)
        if key:
            if key in labels:
                found.add(
                    f"{where}.label",
                    f"duplicates options[{labels[key]}].label (labels compare case-insensitively)",
                )
            labels.setdefault(key, option.index)


def _check_option_sizes(option: _DraftOption, found: _Violations) -> None:
    where = option.where
    for name in ("id", "label", "description"):
        found.size(f"{where}.{name}", getattr(option, name), rule(f"option.{name}"))
    for name in ("pros", "cons"):
        for index, item in enumerate(getattr(option, name)):
            found.size(f"{where}.{name}[{index}]", item, item_rule("option.details"))


def _check_option_content(option: _DraftOption, found: _Violations) -> None:
    where = option.where
    if not option.id:
        found.add(f"{where}.id", "is required")
    elif rule("option.id").fits(utf8_len(option.id)) and not is_valid_option_id(option.id):
        found.add(
            f"{where}.id",
            f"is not a valid option id ({id_rule('option.id')}; not __custom__): {option.id!r}",
        )
    elif looks_sensitive(option.id):
        found.add(f"{where}.id", _SENSITIVE)
    if not option.label:
        found.add(f"{where}.label", "is required")
    if not option.description:
        found.add(f"{where}.description", "is required: describe the approach objectively")


def _check_recommendation(draft: _Draft, found: _Violations) -> None:
    """Skipped when a flag had the wrong type: its type violation already says what to fix."""
    if draft.option_count is None or draft.recommended_mistyped:
        return
    flagged = [option for option in draft.options if option.recommended]
    if len(flagged) != 1:
        found.add("options", f"exactly one option must be recommended (got {len(flagged)})")
        return
    wanted = draft.recommended_option_id
    if wanted and wanted != flagged[0].id:
        found.add(
            "recommended_option_id",
            f"must name the option flagged as recommended ({flagged[0].id!r}), got {wanted!r}",
        )


def _check_caller(found: _Violations, *, session_id: str, workspace: str, agent: str) -> None:
    """Session and workspace end up in the record: refuse bad ones now, not after the answers."""
    if not go_trim(session_id):
        found.add("session_id", "is required")
    _check_identifier("session_id", go_trim(session_id), found)
    found.size("workspace", go_trim(workspace), rule("workspace"))
    if "\x00" in workspace:
        found.add("workspace", "must not contain a NUL character")
    found.size("agent", agent, rule("identifier"))


def _check_decision_id(value: str, found: _Violations, *, what: str) -> None:
    if not is_valid_decision_id(value):
        found.add("decision_id", f"invalid {what} {value[:80]!r}: {id_rule('id')}, without '..'")
    elif looks_sensitive(value):
        found.add("decision_id", _SENSITIVE)


def _check_redacted(draft: _Draft, found: _Violations) -> None:
    """The pending file keeps redacted text; it must still validate, or resuming never could."""
    redacted = _redacted_draft(draft)
    if redacted == draft:
        return
    after = _Violations()
    _check_rules(redacted, after)
    for violation in after.items:
        found.add(violation.field, f"after secret redaction, {violation.message}", violation.limit)


def _redacted_draft(draft: _Draft) -> _Draft:
    options = [replace(option, **option_text_updates(option, _redact)) for option in draft.options]
    return replace(draft, **free_text_updates(draft, _redact), options=options)


# --- identity and the final value ------------------------------------------------------------


def _evidence_fp(draft: _Draft) -> str:
    return evidence_fingerprint(list(_proposal_options(draft)), draft.evidence_refs)


def _derive_id(draft: _Draft, identity: ProjectIdentity, session_id: str) -> str:
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


def _proposal_options(draft: _Draft) -> list[ProposalOption]:
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
    draft: _Draft, decision_id: str, identity: ProjectIdentity, *, session_id: str, agent: str
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
