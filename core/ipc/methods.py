"""The socket's methods: each one's name, its params and its result, as clients and the app
agree on them (`docs/protocol.md` describes each)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictInt,
    StrictStr,
    model_validator,
)

from core.ipc.protocol import CrossFieldError, StrictModel
from core.limits import DECISION_ID_MAX, IDENTIFIER_MAX, WORKSPACE_MAX
from core.record.fields import id_rule
from core.record.validation import is_valid_decision_id

HELLO = "hello"
DECISION_PRESENT = "decision.present"
DECISION_PENDING = "decision.pending"
APP_SHOW = "app.show"
JOURNAL_CHANGED = "journal.changed"
"""Sent by another process that changed records, so the app catches up without a restart."""
PROGRESS = "progress"
"""The one notification the app sends while a long request waits for a human."""
CLIENT_NAME_MAX = 64
AGENT_MAX = 128


ClientName = Annotated[StrictStr, Field(max_length=CLIENT_NAME_MAX)]


def _decision_id(value: str) -> str:
    if not is_valid_decision_id(value):
        raise ValueError(f"must {id_rule('id')}, without '..'")
    return value


DecisionId = Annotated[
    StrictStr, Field(min_length=1, max_length=DECISION_ID_MAX), AfterValidator(_decision_id)
]
"""A decision's id as the record's rule writes it: a path or an escape sequence is refused
before any handler sees it."""


class HelloParams(StrictModel):
    """`hello`: the client's protocol version (checked when given) and a name for the log."""

    protocol: StrictInt | None = None
    client: ClientName = ""


class DecisionPresentParams(StrictModel):
    """`decision.present`: a new proposal, or the id of a pending decision to resume.

    The proposal object follows the proposal contract (`core.record.models.Proposal`); its contents
    are validated by the handler, which answers INVALID_PROPOSAL naming the field.
    """

    proposal: dict[str, Any] | None = None
    decision_id: DecisionId | None = None
    workspace: Annotated[StrictStr, Field(min_length=1, max_length=WORKSPACE_MAX)]
    session_id: Annotated[StrictStr, Field(min_length=1, max_length=IDENTIFIER_MAX)]
    agent: Annotated[StrictStr, Field(max_length=AGENT_MAX)] = ""

    @model_validator(mode="after")
    def _one_target(self) -> DecisionPresentParams:
        if (self.proposal is None) == (self.decision_id is None):
            raise CrossFieldError("give exactly one of proposal and decision_id", "proposal")
        return self


class DecisionPendingParams(StrictModel):
    """`decision.pending`: filters; neither given means every pending decision."""

    workspace: Annotated[StrictStr, Field(max_length=WORKSPACE_MAX)] | None = None
    session_id: Annotated[StrictStr, Field(max_length=IDENTIFIER_MAX)] | None = None


class AppShowParams(StrictModel):
    """`app.show`: which view to raise; `decision` needs the decision's id."""

    view: Literal["journal", "decision"] = "journal"
    decision_id: DecisionId | None = None

    @model_validator(mode="after")
    def _decision_needs_id(self) -> AppShowParams:
        if self.view == "decision" and self.decision_id is None:
            raise CrossFieldError("view decision needs a decision_id", "decision_id")
        return self


class JournalChangedParams(StrictModel):
    """`journal.changed`: no parameters; the app finds what changed by reconciling."""


PARAMS_MODELS: Mapping[str, type[BaseModel]] = {
    HELLO: HelloParams,
    DECISION_PRESENT: DecisionPresentParams,
    DECISION_PENDING: DecisionPendingParams,
    APP_SHOW: AppShowParams,
    JOURNAL_CHANGED: JournalChangedParams,
}
"""The params of each method this module defines, so a server can refuse bad params before
a request reaches its handler."""


class _Result(BaseModel):
    """Results tolerate unknown fields, so a newer app can add some without breaking clients."""

    model_config = ConfigDict(extra="ignore", strict=True, frozen=True)


class HelloResult(_Result):
    protocol: StrictInt
    app_version: StrictStr
    journal: StrictStr


class RejectedReasonResult(_Result):
    option_id: StrictStr
    reason: StrictStr


class DecisionPresentResult(_Result):
    """`recorded` when the human finished; `pending` when they left it for later."""

    status: Literal["recorded", "pending"]
    decision_id: StrictStr
    revision: StrictInt = 0
    selected_option_id: StrictStr = ""
    custom_selection: StrictStr = ""
    selection_reason: StrictStr = ""
    rejected_reasons: list[RejectedReasonResult] = Field(default_factory=list)
    summary_sentence: StrictStr = ""
    stage: Literal["choice", "rationale", ""] = ""
    message: StrictStr = ""
    profile_warning: StrictStr = ""
    decided_by: Literal["person", "profile", ""] = ""
    rule_id: StrictStr = ""


class PendingItem(_Result):
    decision_id: StrictStr
    stage: Literal["choice", "rationale"]
    problem: StrictStr
    project_alias: StrictStr = ""
    session_id: StrictStr = ""
    created_at: StrictStr = ""
