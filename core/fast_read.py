"""The strict read of a bulk build, decoded in C by msgspec, with the pydantic path as the judge.

Why: a first index or profile build reads every record, and the pydantic read (parse, model
validation, the Go encoder for the digest) costs several times reading and parsing the file.
msgspec decodes the bytes straight into typed structs that refuse unknown fields and wrong
types, and encodes them back in field order, both in C.

A record is accepted here only when the strict path (`codec.decode_stored_record`) would accept
it unchanged and give the same compact bytes: the same lifecycle checks, timestamps that format
back to their own text, the normal-form check and the same validation, run on the view.
Anything unusual (a null, a lone surrogate, an integral or tiny float, a record that is not
normal or not valid) returns None, and the caller reads that file the strict way, which then
decides and words any error. `tests/core/test_fast_read.py` holds the two paths equal.
"""

from __future__ import annotations

import functools

import msgspec

from core.codec import check_lifecycle
from core.errors import InvalidDecision, JournalDamaged
from core.gojson import go_html_escaped, shortest_float_is_go
from core.gotime import GoTime, parse_canonical
from core.normalize import is_normal
from core.record_shape import StoredRead, is_deleted_status, selected_label_of
from core.validation import validate_record


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
    options: list[OptionView] = msgspec.field(default_factory=list)
    recommended_option_id: str = ""
    selected_option_id: str = ""
    custom_selection: str = ""
    selection_reason_raw: str = ""
    rejected_reasons: list[RejectionView] = msgspec.field(default_factory=list)
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
        return _time_of(self.created_text)

    @property
    def updated_at(self) -> GoTime | None:
        return _time_of(self.updated_text)

    @property
    def deleted_at(self) -> GoTime | None:
        return _time_of(self.deleted_text)

    @property
    def is_deleted(self) -> bool:
        return is_deleted_status(self.status)

    def selected_label(self) -> str:
        return selected_label_of(self)


_DECODER = msgspec.json.Decoder(RecordView)
_ENCODER = msgspec.json.Encoder()
_ONE_AS_GO = b'"detector_confidence":1,'


_canonical_time = functools.lru_cache(maxsize=4096)(parse_canonical)
"""Cached: a record's updated_at usually repeats its created_at, and each is asked for again
by whatever reads the view."""


def _time_of(text: str | None) -> GoTime | None:
    return None if text is None else _canonical_time(text)


def _times_canonical(view: RecordView) -> bool:
    return all(
        text is None or _canonical_time(text) is not None
        for text in (view.created_text, view.updated_text, view.deleted_text)
    )


def _compact(view: RecordView) -> bytes | None:
    """Go's compact JSON of the record (`codec.compact_record`), or None when it may differ.

    msgspec leaves out a default only when it is the very default object, so a decoded zero
    confidence is written and is taken out here, as Go's omit-empty does; 1.0 is written as
    Go's 1. Other values are kept only where both write the same digits.
    """
    value = view.detector_confidence
    data = _ENCODER.encode(view)
    if value == 0:
        data = data.replace(_confidence_text(value), b"", 1)
    elif value == 1.0:
        data = data.replace(_confidence_text(value), _ONE_AS_GO, 1)
    elif not shortest_float_is_go(value):
        return None
    return go_html_escaped(data)


def _confidence_text(value: float) -> bytes:
    return b'"detector_confidence":' + _ENCODER.encode(value) + b","


def _accepted(view: RecordView, expected_id: str) -> bool:
    try:
        check_lifecycle(view, expected_id)
    except JournalDamaged:
        return False
    if not (_times_canonical(view) and is_normal(view)):
        return False
    try:
        validate_record(view, legacy_lenient=True)
    except InvalidDecision:
        return False
    return True


def fast_read(data: bytes, expected_id: str) -> StoredRead | None:
    """The record in `data` with its compact bytes, or None: then read it the strict way."""
    try:
        view = _DECODER.decode(data)
    except msgspec.DecodeError:
        return None
    if not _accepted(view, expected_id):
        return None
    compact = _compact(view)
    return None if compact is None else StoredRead(view, compact)
