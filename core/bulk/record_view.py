"""The stored record as msgspec decodes it: a plain view, and a checked view whose types carry the
format's limits, read from the field table (`core.record.fields`) when this module loads.

Why two: decoding into the checked view tests, in C, most rules the strict read tests in Python
(sizes, counts, listed words, identifier patterns), so the rules left to test in Python are few.
Its limits are sufficient, not exact (a text limit in bytes becomes a quarter of it in
characters, as no character takes more than 4 bytes in UTF-8), so a valid record may fail it;
the plain view then decodes the same bytes and the full checks decide (`core.bulk.fast_read`).

The checked classes only narrow field types: field order, names and defaults are those of the
plain ones, so both encode a record to the same bytes.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from core.bulk.canonical_time import parse_canonical
from core.gocompat.gotime import GoTime
from core.record.fields import ID_CHARACTERS, rule
from core.record.shape import is_deleted_status, selected_label_of
from core.record.validation import CUSTOM_OPTION_ID

canonical_time = functools.lru_cache(maxsize=4096)(parse_canonical)
"""Cached: a record's updated_at usually repeats its created_at, and each is asked for again
by whatever reads the view."""


def time_of(text: str | None) -> GoTime | None:
    return None if text is None else canonical_time(text)


class OptionView(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    """`models.Option`, field for field and in the same order (the order on disk)."""

    id: str = ""
    label: str = ""
    description: str = ""
    pros: list[str] = msgspec.field(default_factory=list)
    cons: list[str] = msgspec.field(default_factory=list)
    recommended: bool = False
    order: int = 0
    source: str = ""


class RejectionView(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    option_id: str = ""
    reason: str = ""
    source: str = ""


class ProvenanceView(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    options: str = ""
    selection: str = ""
    rationale: str = ""
    summary: str = ""


class RedactionView(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    redacted: bool = False
    patterns: list[str] = msgspec.field(default_factory=list)


class RecordView(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    """`models.DecisionRecord` as msgspec decodes it; timestamps stay text until asked for.

    Omitting defaults is Go's omit-empty exactly where the record is valid: every field Go
    always writes is non-empty in a valid record, except provenance and redaction, which
    msgspec writes even when empty, as Go does.
    """

    schema_version: int = 0
    id: str = ""
    revision: int = 0
    created_text: str | None = msgspec.field(default=None, name="created_at")
    updated_text: str | None = msgspec.field(default=None, name="updated_at")
    session_id: str = ""
    feature_id: str = ""
    goal_id: str = ""
    edit_loop_id: str = ""
    project_id: str = ""
    project_alias: str = ""
    workspace: str = ""
    workspace_hash: str = ""
    domains: list[str] = msgspec.field(default_factory=list)
    languages: list[str] = msgspec.field(default_factory=list)
    decision_kind: str = ""
    risk_level: str = ""
    problem: str = ""
    task_fingerprint: str = ""
    evidence_fingerprint: str = ""
    options: Sequence[OptionView] = msgspec.field(default_factory=list)
    recommended_option_id: str = ""
    selected_option_id: str = ""
    custom_selection: str = ""
    selection_reason_raw: str = ""
    rejected_reasons: Sequence[RejectionView] = msgspec.field(default_factory=list)
    summary_sentence: str = ""
    evidence_refs: list[str] = msgspec.field(default_factory=list)
    tags: list[str] = msgspec.field(default_factory=list)
    detector_confidence: float = 0.0
    status: str = ""
    provenance: ProvenanceView = msgspec.field(default_factory=ProvenanceView)
    redaction: RedactionView = msgspec.field(default_factory=RedactionView)
    deleted_text: str | None = msgspec.field(default=None, name="deleted_at")

    @property
    def created_at(self) -> GoTime | None:
        return time_of(self.created_text)

    @property
    def updated_at(self) -> GoTime | None:
        return time_of(self.updated_text)

    @property
    def deleted_at(self) -> GoTime | None:
        return time_of(self.deleted_text)

    @property
    def is_deleted(self) -> bool:
        return is_deleted_status(self.status)

    def selected_label(self) -> str:
        return selected_label_of(self)


# checked views ---------------------------------------------------------------------------------

_UTF8_MAX = 4
"""Bytes a character may take in UTF-8: a text of at most limit/4 characters fits any limit."""


def _characters(name: str) -> int:
    """The characters a text of the field `name` may hold in the checked view: a quarter of
    its byte limit in the field table."""
    return rule(name).most // _UTF8_MAX


Source = Literal["", "user", "model", "runtime", "imported"]
"""`models.SOURCES`, spelled out for the type checker; a test keeps the two equal."""
RiskLevel = Literal["", "low", "medium", "high", "critical"]
"""`models.RISK_LEVELS`, likewise."""
Status = Literal["", "completed", "corrected", "deleted"]
"""`models.STATUSES` and the empty status, which the normal-form check refuses."""

_PLAIN_DECODER = msgspec.json.Decoder(RecordView)


def plain_view(data: bytes) -> RecordView:
    """A record's JSON in the plain view: typed and free of unknown fields, nothing more.

    Raises msgspec.DecodeError. Enough alone only for JSON this program wrote from a record
    it had validated (the index's cached records); any other input needs the checks of
    `core.bulk.fast_read`.
    """
    return _PLAIN_DECODER.decode(data)


_OptionId = Annotated[
    str,
    Meta(pattern=rf"\A(?!{CUSTOM_OPTION_ID}\Z)[{ID_CHARACTERS}]{{1,{rule('option.id').most}}}\Z"),
]
"""`validation.is_valid_option_id` as one pattern."""
_DecisionId = Annotated[
    str,
    Meta(pattern=rf"\A(?!\.\.?\Z)(?!.*\.\.)[{ID_CHARACTERS}]{{1,{rule('id').most}}}\Z"),
]
"""`validation.is_valid_decision_id` as one pattern."""
_Identifier = Annotated[str, Meta(max_length=_characters("identifier"))]
_Label = Annotated[str, Meta(min_length=1, max_length=rule("option.label").most)]
"""Exact in characters only: labels often pass a quarter of the limit, so the byte size of a
long label is checked in Python."""
_Description = Annotated[str, Meta(max_length=_characters("option.description"))]
_Detail = Annotated[str, Meta(min_length=1, max_length=_characters("option.detail"))]
_Details = Annotated[list[_Detail], Meta(max_length=rule("option.details").most)]
_Reason = Annotated[str, Meta(min_length=1, max_length=_characters("rejection_reason"))]
_SelectionReason = Annotated[
    str, Meta(min_length=1, max_length=_characters("selection_reason_raw"))
]
_ListItem = Annotated[str, Meta(min_length=1, max_length=_characters("list_item"))]
_EvidenceRef = Annotated[str, Meta(min_length=1, max_length=_characters("evidence_ref"))]
_Pattern = Annotated[str, Meta(max_length=_characters("redaction.pattern"))]


class CheckedOptionView(OptionView):
    id: _OptionId = ""
    label: _Label = ""
    description: _Description = ""
    pros: _Details = msgspec.field(default_factory=list)
    cons: _Details = msgspec.field(default_factory=list)
    order: Annotated[int, Meta(ge=1)] = 0
    source: Source = ""


class CheckedRejectionView(RejectionView):
    reason: _Reason = ""
    source: Source = ""


class CheckedProvenanceView(ProvenanceView):
    options: Source = ""
    selection: Source = ""
    rationale: Source = ""
    summary: Source = ""


class CheckedRedactionView(RedactionView):
    patterns: Annotated[list[_Pattern], Meta(max_length=rule("redaction.patterns").most)] = (
        msgspec.field(default_factory=list)
    )


class CheckedRecordView(RecordView):
    """A record that meets every size, count and word rule of validation and normal form."""

    schema_version: Annotated[int, Meta(ge=1, le=1)] = 0
    id: _DecisionId = ""
    revision: Annotated[int, Meta(ge=1)] = 0
    session_id: _Identifier = ""
    feature_id: _Identifier = ""
    goal_id: _Identifier = ""
    edit_loop_id: _Identifier = ""
    project_id: _Identifier = ""
    project_alias: _Identifier = ""
    workspace: Annotated[str, Meta(max_length=_characters("workspace"))] = ""
    workspace_hash: _Identifier = ""
    domains: Annotated[list[_ListItem], Meta(max_length=rule("domains").most)] = msgspec.field(
        default_factory=list
    )
    languages: Annotated[list[_ListItem], Meta(max_length=rule("languages").most)] = msgspec.field(
        default_factory=list
    )
    decision_kind: Annotated[str, Meta(min_length=1, max_length=_characters("decision_kind"))] = ""
    risk_level: RiskLevel = ""
    problem: Annotated[str, Meta(min_length=1, max_length=_characters("problem"))] = ""
    task_fingerprint: _Identifier = ""
    evidence_fingerprint: _Identifier = ""
    options: Annotated[
        Sequence[CheckedOptionView],
        Meta(min_length=rule("options").least, max_length=rule("options").most),
    ] = msgspec.field(default_factory=list)
    custom_selection: Annotated[str, Meta(max_length=_characters("custom_selection"))] = ""
    selection_reason_raw: _SelectionReason = ""
    rejected_reasons: Annotated[
        Sequence[CheckedRejectionView], Meta(max_length=rule("options").most - 1)
    ] = msgspec.field(default_factory=list)
    summary_sentence: Annotated[
        str, Meta(min_length=1, max_length=_characters("summary_sentence"))
    ] = ""
    evidence_refs: Annotated[list[_EvidenceRef], Meta(max_length=rule("evidence_refs").most)] = (
        msgspec.field(default_factory=list)
    )
    tags: Annotated[list[_ListItem], Meta(max_length=rule("tags").most)] = msgspec.field(
        default_factory=list
    )
    detector_confidence: Annotated[float, Meta(ge=0.0, le=1.0)] = 0.0
    status: Status = ""
    provenance: CheckedProvenanceView = msgspec.field(default_factory=CheckedProvenanceView)
    redaction: CheckedRedactionView = msgspec.field(default_factory=CheckedRedactionView)
