"""What code that only reads a record may rely on, whichever class holds the record.

Why: the strict read has two implementations of a stored record, the pydantic model that every
caller uses (`core.record.models.DecisionRecord`) and the C-decoded views of a bulk build
(`core.bulk.record_view`, plain or checked). Validation, the normal-form check, the profile's facts
and the index entry read the same fields of all, so they take this shape instead of a class.

Nested, time and listed-word members are read-only properties: the classes hold different (but
equal-shaped) element types, and the checked view narrows words to their listed values (a
`Literal`), which only a read-only member may accept.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from core.gocompat.gotime import GoTime

SCHEMA_VERSION = 1
STATUS_COMPLETED = "completed"
STATUS_CORRECTED = "corrected"
STATUS_DELETED = "deleted"
STATUSES = (STATUS_COMPLETED, STATUS_CORRECTED, STATUS_DELETED)
RISK_LEVELS = ("", "low", "medium", "high", "critical")
SOURCES = ("", "user", "model", "runtime", "imported")
"""The values a record's fields take, whichever class holds it (`core.record.models` uses them)."""


class OptionShape(Protocol):
    id: str
    label: str
    description: str
    pros: list[str]
    cons: list[str]
    recommended: bool
    order: int

    @property
    def source(self) -> str: ...


class RejectionShape(Protocol):
    option_id: str
    reason: str

    @property
    def source(self) -> str: ...


class ProvenanceShape(Protocol):
    @property
    def options(self) -> str: ...

    @property
    def selection(self) -> str: ...

    @property
    def rationale(self) -> str: ...

    @property
    def summary(self) -> str: ...


class RedactionShape(Protocol):
    redacted: bool
    patterns: list[str]


class RecordShape(Protocol):
    schema_version: int
    id: str
    revision: int
    session_id: str
    feature_id: str
    goal_id: str
    edit_loop_id: str
    project_id: str
    project_alias: str
    workspace: str
    workspace_hash: str
    domains: list[str]
    languages: list[str]
    decision_kind: str
    problem: str
    task_fingerprint: str
    evidence_fingerprint: str
    recommended_option_id: str
    selected_option_id: str
    custom_selection: str
    selection_reason_raw: str
    summary_sentence: str
    evidence_refs: list[str]
    tags: list[str]
    detector_confidence: float

    @property
    def risk_level(self) -> str: ...

    @property
    def status(self) -> str: ...

    @property
    def created_at(self) -> GoTime | None: ...

    @property
    def updated_at(self) -> GoTime | None: ...

    @property
    def deleted_at(self) -> GoTime | None: ...

    @property
    def options(self) -> Sequence[OptionShape]: ...

    @property
    def rejected_reasons(self) -> Sequence[RejectionShape]: ...

    @property
    def provenance(self) -> ProvenanceShape: ...

    @property
    def redaction(self) -> RedactionShape: ...

    @property
    def is_deleted(self) -> bool: ...

    def selected_label(self) -> str: ...


def selected_label_of(record: RecordShape) -> str:
    """The custom text, or the selected option's label; empty when nothing is selected."""
    if record.custom_selection.strip():
        return record.custom_selection.strip()
    for option in record.options:
        if option.id == record.selected_option_id:
            return option.label.strip()
    return ""


def option_label_of(record: RecordShape, option_id: str) -> str:
    """The label of the option with this id; empty when no option has it."""
    for option in record.options:
        if option.id == option_id:
            return option.label
    return ""


def is_deleted_status(status: str) -> bool:
    return status.strip().lower() == "deleted"


@dataclass(frozen=True, slots=True)
class StoredRead:
    """A record file as a bulk build reads it: the record and Go's compact JSON of it.

    The compact bytes are what the index stores and the profile's source hash digests; the
    fast read gets them from its C encoder, the strict read from `core.bulk.compact_json`.
    """

    record: RecordShape
    compact: bytes
    info: os.stat_result | None = None
    """The file's stat, taken when it was opened; None for a record not read from a file."""
