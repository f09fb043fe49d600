"""The canonical decision record and the agent's proposal, in the reference's field order.

Field order here is the order on disk. Reading is strict (unknown fields and wrong JSON types
are errors); `to_go_dict` applies Go's omit-empty rules so that serialization is byte-compatible.
"""

from __future__ import annotations

import functools
from operator import attrgetter
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainSerializer,
    StrictBool,
    StrictInt,
    StrictStr,
    WithJsonSchema,
    model_validator,
)

from core.gocompat.gotime import GoTime
from core.record.shape import (
    RISK_LEVELS,
    SCHEMA_VERSION,
    SOURCES,
    STATUS_COMPLETED,
    STATUS_CORRECTED,
    STATUS_DELETED,
    STATUSES,
    is_deleted_status,
    option_label_of,
    selected_label_of,
)

__all__ = [
    "RISK_LEVELS",
    "SCHEMA_VERSION",
    "SOURCES",
    "STATUSES",
    "STATUS_COMPLETED",
    "STATUS_CORRECTED",
    "STATUS_DELETED",
]


# A record's updated_at usually repeats its created_at text (every first revision): a small
# cache parses it once. GoTime is immutable, so two fields may share one; errors are not cached.
_parse_text = functools.lru_cache(maxsize=64)(GoTime.parse)


def _timestamp_value(value: Any) -> GoTime:
    """A Timestamp field's input: a GoTime as it is, text through `GoTime.parse`."""
    if isinstance(value, GoTime):
        return value
    if isinstance(value, str):
        return _parse_text(value)
    raise ValueError("timestamp must be an RFC 3339 string")


def _parse_float(value: Any) -> float:
    """Go accepts any JSON number for a float64 field, but never a string or a bool."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError("must be a JSON number")
    return float(value)


Timestamp = Annotated[
    GoTime,
    BeforeValidator(_timestamp_value),
    PlainSerializer(lambda t: t.format(), return_type=str),
    WithJsonSchema({"type": "string", "format": "date-time"}),
]
GoFloat = Annotated[float, BeforeValidator(_parse_float)]


class _Strict(BaseModel):
    model_config = ConfigDict(
        extra="forbid", validate_assignment=False, arbitrary_types_allowed=True, frozen=False
    )

    @model_validator(mode="before")
    @classmethod
    def _drop_nulls(cls, data: Any) -> Any:
        """Go decodes a JSON null into the zero value; we read it the same way.

        Runs for every nested model of every record read, hence no helper call.
        """
        if isinstance(data, dict) and None in data.values():
            return {k: v for k, v in data.items() if v is not None}
        return data


# Lists default through default_factory, not `= []`: pydantic deep-copies a mutable default for
# every record read that leaves the field out.
class Option(_Strict):
    id: StrictStr = ""
    label: StrictStr = ""
    description: StrictStr = ""
    pros: list[StrictStr] = Field(default_factory=list)
    cons: list[StrictStr] = Field(default_factory=list)
    recommended: StrictBool = False
    order: StrictInt = 0
    source: StrictStr = ""

    def to_go_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "label": self.label}
        _put_all(out, _OPTION_OPTIONAL, _option_optional(self))
        return out


class RejectedReason(_Strict):
    option_id: StrictStr = ""
    reason: StrictStr = ""
    source: StrictStr = ""

    def to_go_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"option_id": self.option_id}
        _put_all(out, ("reason", "source"), (self.reason, self.source))
        return out


class Provenance(_Strict):
    options: StrictStr = ""
    selection: StrictStr = ""
    rationale: StrictStr = ""
    summary: StrictStr = ""

    def to_go_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        _put_all(out, _PROVENANCE_FIELDS, _provenance_values(self))
        return out


class Redaction(_Strict):
    redacted: StrictBool = False
    patterns: list[StrictStr] = Field(default_factory=list)

    def to_go_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        _put_all(out, ("redacted", "patterns"), (self.redacted, self.patterns))
        return out


class DecisionRecord(_Strict):
    """One revision of one decision; the JSON file under records/ or history/."""

    schema_version: StrictInt = 0
    id: StrictStr = ""
    revision: StrictInt = 0
    created_at: Timestamp | None = None
    updated_at: Timestamp | None = None
    session_id: StrictStr = ""
    feature_id: StrictStr = ""
    goal_id: StrictStr = ""
    edit_loop_id: StrictStr = ""
    project_id: StrictStr = ""
    project_alias: StrictStr = ""
    workspace: StrictStr = ""
    workspace_hash: StrictStr = ""
    domains: list[StrictStr] = Field(default_factory=list)
    languages: list[StrictStr] = Field(default_factory=list)
    decision_kind: StrictStr = ""
    risk_level: StrictStr = ""
    problem: StrictStr = ""
    task_fingerprint: StrictStr = ""
    evidence_fingerprint: StrictStr = ""
    options: list[Option] = Field(default_factory=list)
    recommended_option_id: StrictStr = ""
    selected_option_id: StrictStr = ""
    custom_selection: StrictStr = ""
    selection_reason_raw: StrictStr = ""
    rejected_reasons: list[RejectedReason] = Field(default_factory=list)
    summary_sentence: StrictStr = ""
    evidence_refs: list[StrictStr] = Field(default_factory=list)
    tags: list[StrictStr] = Field(default_factory=list)
    detector_confidence: GoFloat = 0.0
    status: StrictStr = ""
    provenance: Provenance = Provenance()
    redaction: Redaction = Redaction()
    deleted_at: Timestamp | None = None

    @property
    def is_deleted(self) -> bool:
        return is_deleted_status(self.status)

    def selected_label(self) -> str:
        return selected_label_of(self)

    def option_label(self, option_id: str) -> str:
        return option_label_of(self, option_id)

    def to_go_dict(self) -> dict[str, Any]:
        """The record as Go's encoding/json would emit it (field order and omit-empty rules)."""
        out: dict[str, Any] = {
            "schema_version": self.schema_version,
            "id": self.id,
            "revision": self.revision,
            "created_at": _time_text(self.created_at),
            "updated_at": _time_text(self.updated_at),
        }
        _put_all(out, _OPTIONAL_HEAD, _optional_head(self))
        out["problem"] = self.problem
        _put_all(
            out,
            ("task_fingerprint", "evidence_fingerprint"),
            (self.task_fingerprint, self.evidence_fingerprint),
        )
        out["options"] = [option.to_go_dict() for option in self.options]
        _put_all(out, _OPTIONAL_SELECTION, _optional_selection(self))
        if self.rejected_reasons:
            out["rejected_reasons"] = [r.to_go_dict() for r in self.rejected_reasons]
        _put_all(out, _OPTIONAL_TAIL, _optional_tail(self))
        out["status"] = self.status
        out["provenance"] = self.provenance.to_go_dict()
        out["redaction"] = self.redaction.to_go_dict()
        if self.deleted_at is not None:
            out["deleted_at"] = self.deleted_at.format()
        return out


_OPTIONAL_HEAD = (
    "session_id",
    "feature_id",
    "goal_id",
    "edit_loop_id",
    "project_id",
    "project_alias",
    "workspace",
    "workspace_hash",
    "domains",
    "languages",
    "decision_kind",
    "risk_level",
)
_OPTIONAL_SELECTION = (
    "recommended_option_id",
    "selected_option_id",
    "custom_selection",
    "selection_reason_raw",
)
_OPTIONAL_TAIL = ("summary_sentence", "evidence_refs", "tags", "detector_confidence")
_OPTION_OPTIONAL = ("description", "pros", "cons", "recommended", "order", "source")
_PROVENANCE_FIELDS = ("options", "selection", "rationale", "summary")
# One C call reads each group of fields: serialization runs for every record of a rebuild.
_optional_head = attrgetter(*_OPTIONAL_HEAD)
_optional_selection = attrgetter(*_OPTIONAL_SELECTION)
_optional_tail = attrgetter(*_OPTIONAL_TAIL)
_option_optional = attrgetter(*_OPTION_OPTIONAL)
_provenance_values = attrgetter(*_PROVENANCE_FIELDS)
_ZERO_TIME = "0001-01-01T00:00:00Z"


def _time_text(value: GoTime | None) -> str:
    return _ZERO_TIME if value is None else value.format()


def _put_all(out: dict[str, Any], names: tuple[str, ...], values: tuple[Any, ...]) -> None:
    """Go's omitempty: false, 0, "" and empty lists are left out; lists are copied."""
    for name, value in zip(names, values, strict=True):
        if value:
            out[name] = list(value) if isinstance(value, list) else value


class ProposalOption(_Strict):
    """One approach as the agent proposes it."""

    id: StrictStr
    label: StrictStr
    description: StrictStr
    pros: list[StrictStr] = Field(default_factory=list)
    cons: list[StrictStr] = Field(default_factory=list)
    recommended: StrictBool = False


class Proposal(_Strict):
    """What an agent sends at a fork: the capture path of present_implementation_decision."""

    problem: StrictStr
    decision_kind: StrictStr
    options: list[ProposalOption]
    detector_confidence: GoFloat
    header: StrictStr = ""
    risk_level: StrictStr = ""
    domains: list[StrictStr] = Field(default_factory=list)
    languages: list[StrictStr] = Field(default_factory=list)
    evidence_refs: list[StrictStr] = Field(default_factory=list)
    recommended_option_id: StrictStr = ""
    task_fingerprint: StrictStr = ""
    evidence_fingerprint: StrictStr = ""
    decision_id: StrictStr = ""


Stage = Literal["choice", "rationale"]
