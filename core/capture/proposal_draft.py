"""An agent's proposal read from raw JSON into a draft: canonical values, every wrong type
and unknown field collected as a violation.

Why apart from the rules (`core.capture.proposal_rules`): reading decides what each field
holds (trimmed, lowercased, capped, deduplicated as the reference does), the rules decide
whether that is allowed; `core.capture.proposal` runs one, then the other.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from core.errors import ProposalInvalid, Violation, ViolationsError
from core.gocompat.gojson import go_valid_text
from core.gocompat.text import go_lower, go_trim, utf8_len
from core.messages.wording import too_large
from core.record.fields import FieldRule, rule
from core.record.normalize import dedupe_fold
from core.record.redact_record import free_text_updates, option_text_updates
from core.record.redaction import redact_text

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
LISTS = ("domains", "languages", "evidence_refs")
"""The proposal's string lists, each capped and its items limited by its rule in `fields`."""


class Violations:
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
class DraftOption:
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
class ProposalDraft:
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
    options: list[DraftOption] = field(default_factory=list)
    option_count: int | None = None
    confidence: int | float | None = None
    present: set[str] = field(default_factory=set)
    recommended_mistyped: bool = False


def read_proposal(raw: object, found: Violations) -> ProposalDraft:
    """Canonical values from raw JSON; wrong types and unknown fields become violations.

    A JSON null reads as an absent field, as Go decodes null into the zero value. Anything but
    an object is refused at once: no field rule means anything then.
    """
    draft = ProposalDraft()
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
        elif key in LISTS:
            setattr(draft, key, _read_string_list(key, value, rule(key).most, found))
        elif key == "options":
            _read_options(draft, value, found)
        elif key == "detector_confidence":
            draft.confidence = _read_number(key, value, found)
        else:
            found.add(
                key_name(key),
                f"unknown field; a proposal accepts only {', '.join(PROPOSAL_FIELDS)}",
            )
    return draft


def key_name(key: object) -> str:
    """An unknown key as a field name; quoted when it would not read as one (empty, spaces)."""
    text = str(key)
    return text if text and text.isprintable() and text.strip() == text else repr(text)


def _read_string_field(draft: ProposalDraft, key: str, value: object, found: Violations) -> None:
    if not isinstance(value, str):
        found.wrong_type(key, "a string", value)
        return
    text = go_trim(go_valid_text(value))
    setattr(draft, key, go_lower(text) if key in _LOWERCASED else text)


def _read_string_list(where: str, value: object, cap: int, found: Violations) -> list[str]:
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


def _read_number(where: str, value: object, found: Violations) -> int | float | None:
    """Only a JSON number counts; a numeric string or a bool is a type error, as in Go."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        found.wrong_type(where, "a JSON number", value)
        return None
    return value


def _read_options(draft: ProposalDraft, value: object, found: Violations) -> None:
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


def _read_option(index: int, item: dict[Any, Any], found: Violations) -> DraftOption:
    option = DraftOption(index=index)
    for key, value in item.items():
        where = f"{option.where}.{key_name(key)}"
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


def redacted_draft(draft: ProposalDraft) -> ProposalDraft:
    options = [replace(option, **option_text_updates(option, redact)) for option in draft.options]
    return replace(draft, **free_text_updates(draft, redact), options=options)


def redact(text: str) -> str:
    """Text with its secrets replaced, as the pending file keeps it."""
    return redact_text(text)[0]
