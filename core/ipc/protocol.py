"""The wire protocol between the tray app and its local clients: framing, JSON-RPC 2.0, errors.

Why a module of its own: the app's socket server, the CLI, the MCP server and the hooks must
agree byte for byte, and none of the clients may import Qt. `docs/protocol.md` is the prose
version of this module; the two change together.

Parsing is strict on purpose. The socket accepts input from any process of this user, so an
unknown field, a duplicate key, a NaN or trailing bytes are errors, never guesses: a client bug
surfaces as a clear error naming the field instead of as a silently different decision.
"""

from __future__ import annotations

import json
import math
import re
import struct
from collections.abc import Iterator, Mapping
from typing import Annotated, Any, Literal, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PlainValidator,
    StrictInt,
    StrictStr,
    ValidationError,
    model_validator,
)

from core.errors import (
    MESSAGE_MAX,
    ErrorCode,
    FrameTooLarge,
    JournalError,
    ProtocolError,
    RemoteError,
    ViolationsError,
    describe,
)
from core.limits import DECISION_ID_MAX, IDENTIFIER_MAX, WORKSPACE_MAX

PROTOCOL_VERSION = 1
MAX_FRAME = 4 * 1024 * 1024
HEADER_SIZE = 4
MAX_DEPTH = 64
"""Deepest JSON nesting accepted; real messages nest five levels, hostile ones thousands."""
MAX_VALUES = 16_384
"""JSON values one frame may hold. A full proposal holds a small fraction of this; a hostile
frame of tiny values holds far more, and building them would hold the interpreter for long."""
MAX_LISTED_VIOLATIONS = 16
"""Violations an error reply lists before it says "and N more", so every error fits a frame."""
ID_TEXT_MAX = 128
METHOD_MAX = 128
CLIENT_NAME_MAX = 64
AGENT_MAX = 128
JSON_SAFE_INT = 2**53 - 1
"""Integer ids beyond this lose precision in JavaScript clients, so they are refused."""

HELLO = "hello"
DECISION_PRESENT = "decision.present"
DECISION_PENDING = "decision.pending"
APP_SHOW = "app.show"
JOURNAL_CHANGED = "journal.changed"
"""Sent by another process that changed records, so the app catches up without a restart."""
PROGRESS = "progress"
"""The one notification the app sends while a long request waits for a human."""

_HEADER = struct.Struct(">I")
_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
"""Strict UTF-8 cannot carry a surrogate, so only a `\\uD800`-`\\uDFFF` escape can make one."""
_TOKEN = re.compile(rb'"(?:[^"\\]++|\\.)*+"|[,\[{]')
"""A whole string, or a character that adds a value: a separator or an opened container."""
_SHOWN_TEXT_MAX = 64

RequestIdType = int | str


def _shown(text: str) -> str:
    """Quotes client-supplied text in a message without letting it grow the message."""
    if len(text) > _SHOWN_TEXT_MAX:
        text = text[:_SHOWN_TEXT_MAX] + "..."
    return json.dumps(text)


# --- framing -----------------------------------------------------------------------------


def encode_frame(obj: Any) -> bytes:
    """One frame: a 4-byte big-endian length, then the compact UTF-8 JSON body.

    Raises:
        FrameTooLarge: the body would exceed `MAX_FRAME`.
        ValueError: the value holds NaN, Infinity or a lone surrogate.
        TypeError: the value is not JSON-serializable.
    """
    text = json.dumps(obj, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    body = text.encode("utf-8")
    if len(body) > MAX_FRAME:
        raise FrameTooLarge(len(body), MAX_FRAME)
    return _HEADER.pack(len(body)) + body


class FrameDecoder:
    """Splits a byte stream into frame bodies, refusing an oversized frame from its header.

    Why incremental: sockets deliver arbitrary slices, and a hostile header announcing 4 GiB
    must be refused after 4 bytes, not after buffering what it promises. A decoder that raised
    `FrameTooLarge` stays failed: the stream has lost its framing and cannot be trusted.
    """

    def __init__(self, max_frame: int = MAX_FRAME) -> None:
        self._buffer = bytearray()
        self._offset = 0
        self._max_frame = max_frame
        self._failed_size: int | None = None

    @property
    def buffered(self) -> int:
        """Bytes held for a frame that has not completed yet."""
        return len(self._buffer) - self._offset

    def feed(self, data: bytes | bytearray | memoryview) -> Iterator[bytes]:
        """Appends `data` now and yields each complete body, oldest first.

        The bytes are buffered even if the caller stops iterating; unyielded bodies come out
        of the next call.

        Raises:
            FrameTooLarge: (while iterating) a header announced more than `max_frame` bytes.
        """
        if self._failed_size is not None:
            raise FrameTooLarge(self._failed_size, self._max_frame)
        if self._offset:
            del self._buffer[: self._offset]
            self._offset = 0
        self._buffer += data
        return self._drain()

    def _drain(self) -> Iterator[bytes]:
        buffer = self._buffer
        while len(buffer) - self._offset >= HEADER_SIZE:
            (size,) = _HEADER.unpack_from(buffer, self._offset)
            if size > self._max_frame:
                self._failed_size = size
                buffer.clear()
                self._offset = 0
                raise FrameTooLarge(size, self._max_frame)
            start = self._offset + HEADER_SIZE
            end = start + size
            if len(buffer) < end:
                return
            with memoryview(buffer) as view:
                body = bytes(view[start:end])
            self._offset = end
            yield body


# --- strict JSON -------------------------------------------------------------------------


class _DuplicateKeyError(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _finite_float(text: str) -> float:
    """Python reads 1e999 as infinity without consulting parse_constant; we refuse it."""
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"number {text[:_SHOWN_TEXT_MAX]} is out of range")
    return value


def _unique_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKeyError(key)
            seen.add(key)
    return obj


def _check_value_count(body: bytes) -> None:
    """Refuses a body of more than `MAX_VALUES` values before anything is built from it.

    Counting separators and opened containers bounds the values from above. The byte counts
    run in C and settle every ordinary frame; only a frame over the bound is walked token by
    token (strings skipped whole), and the walk stops at the limit.
    """
    bound = body.count(b",") + body.count(b"[") + body.count(b"{") + 1
    if bound <= MAX_VALUES:
        return
    values = tokens = 1
    for match in _TOKEN.finditer(body):
        tokens += 1
        if body[match.start()] != 0x22:
            values += 1
        if values > MAX_VALUES or tokens > 3 * MAX_VALUES:
            raise ProtocolError(
                ErrorCode.PARSE_ERROR,
                f"JSON holds more than {MAX_VALUES} values",
                data={"limit": MAX_VALUES},
            )


def _check_tree(value: Any, *, strings: bool) -> None:
    """Refuses deep nesting and, when `strings` is set, lone surrogates (they cannot be
    written back as UTF-8)."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            if not strings:
                continue
            if _SURROGATE.search(item):
                raise ProtocolError(ErrorCode.PARSE_ERROR, "JSON string holds a lone surrogate")
        elif isinstance(item, dict | list):
            if depth >= MAX_DEPTH:
                raise ProtocolError(
                    ErrorCode.PARSE_ERROR, f"JSON nests deeper than {MAX_DEPTH} levels"
                )
            children = [*item.keys(), *item.values()] if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)


def decode_json(body: bytes) -> Any:
    """Parses one JSON value strictly: UTF-8 only, no NaN/Infinity, no duplicate keys,
    nothing after the value, at most `MAX_VALUES` values.

    Raises:
        ProtocolError: code PARSE_ERROR, naming the duplicate key as the field.
    """
    _check_value_count(body)
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ProtocolError(
            ErrorCode.PARSE_ERROR, f"body is not valid UTF-8 (byte {exc.start})"
        ) from None
    try:
        value = json.loads(
            text,
            object_pairs_hook=_unique_object,
            parse_constant=_reject_constant,
            parse_float=_finite_float,
        )
    except json.JSONDecodeError as exc:
        if exc.msg == "Extra data":
            message = f"trailing data after the JSON value at character {exc.pos}"
        else:
            message = f"invalid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        raise ProtocolError(ErrorCode.PARSE_ERROR, message) from None
    except _DuplicateKeyError as exc:
        key = exc.key[:_SHOWN_TEXT_MAX]
        raise ProtocolError(
            ErrorCode.PARSE_ERROR, f"duplicate key {_shown(exc.key)}", field=key
        ) from None
    except RecursionError:
        raise ProtocolError(
            ErrorCode.PARSE_ERROR, f"JSON nests deeper than {MAX_DEPTH} levels"
        ) from None
    except ValueError as exc:
        raise ProtocolError(ErrorCode.PARSE_ERROR, f"invalid JSON: {exc}") from None
    _check_tree(value, strings=_SURROGATE_ESCAPE.search(body) is not None)
    return value


# --- envelopes ---------------------------------------------------------------------------


class _FieldValueError(ValueError):
    """Raised inside a model validator to name the field a cross-field rule blames."""

    def __init__(self, message: str, field: str) -> None:
        super().__init__(message)
        self.field = field


def _validate_id(value: Any) -> RequestIdType:
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise ValueError("must be an integer or a string")
    if isinstance(value, int) and abs(value) > JSON_SAFE_INT:
        raise ValueError(f"integer id must lie within +/-{JSON_SAFE_INT}")
    if isinstance(value, str) and not 1 <= len(value) <= ID_TEXT_MAX:
        raise ValueError(f"text id is {len(value)} characters; it must be 1 to {ID_TEXT_MAX}")
    return value


RequestId = Annotated[RequestIdType, PlainValidator(_validate_id)]
MethodName = Annotated[StrictStr, Field(min_length=1, max_length=METHOD_MAX)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class Request(_Strict):
    """A client's call. Every request carries an id: the app accepts no client notifications."""

    jsonrpc: Literal["2.0"]
    id: RequestId
    method: MethodName
    params: dict[str, Any] = Field(default_factory=dict)


class Notification(_Strict):
    """A message from the app that needs no answer, e.g. `progress` during a long call."""

    jsonrpc: Literal["2.0"]
    method: MethodName
    params: dict[str, Any] = Field(default_factory=dict)


class ErrorObject(_Strict):
    """The `error` member of a response; `data` is open so codes can add details."""

    code: StrictInt
    message: StrictStr
    data: dict[str, Any] | None = None


class Response(_Strict):
    """The app's answer: exactly one of `result` and `error`; `id` is null only when the
    request was too broken to read its id."""

    jsonrpc: Literal["2.0"]
    id: RequestId | None
    result: dict[str, Any] | None = None
    error: ErrorObject | None = None

    @model_validator(mode="before")
    @classmethod
    def _result_xor_error(cls, data: Any) -> Any:
        if isinstance(data, dict) and ("result" in data) == ("error" in data):
            raise _FieldValueError("a response carries exactly one of result and error", "result")
        return data


_MESSAGES = {
    "missing": "is required",
    "extra_forbidden": "is not a known field",
    "dict_type": "must be an object",
    "model_type": "must be an object",
    "string_type": "must be a string",
    "int_type": "must be an integer",
    "bool_type": "must be true or false",
    "list_type": "must be an array",
}


def _describe(error: Mapping[str, Any]) -> str:
    kind = str(error["type"])
    ctx = error.get("ctx") or {}
    if kind in _MESSAGES:
        return _MESSAGES[kind]
    if kind == "literal_error":
        return f"must be {ctx.get('expected', 'one of the documented values')}"
    if kind == "string_too_long":
        size = len(error["input"]) if isinstance(error.get("input"), str) else "?"
        return f"is {size} characters; the limit is {ctx.get('max_length')}"
    if kind == "string_too_short":
        return "must not be empty"
    if kind == "value_error" and "error" in ctx:
        return str(ctx["error"])
    return str(error["msg"])


def _from_validation(
    exc: ValidationError, code: ErrorCode, request_id: RequestIdType | None, what: str
) -> ProtocolError:
    """Turns pydantic's first complaint into one error that names the offending field."""
    first = exc.errors()[0]
    ctx = first.get("ctx") or {}
    cause = ctx.get("error")
    if isinstance(cause, _FieldValueError):
        field: str | None = cause.field
        message = f"{what}: {cause}"
    else:
        field = ".".join(str(part) for part in first["loc"]) or None
        reason = _describe(first)
        message = f"{what}: {field} {reason}" if field else f"{what}: {reason}"
    return ProtocolError(code, message, field=field, request_id=request_id)


def _salvage_id(value: Mapping[str, Any]) -> RequestIdType | None:
    """The id of a broken request, so its error reply still reaches the right caller."""
    try:
        return _validate_id(value.get("id"))
    except ValueError:
        return None


def parse_request(body: bytes) -> Request:
    """Reads one client frame body as a request.

    Raises:
        ProtocolError: PARSE_ERROR for bad JSON, INVALID_REQUEST for a bad envelope; the
            error's `request_id` is set when the id itself was readable.
    """
    value = decode_json(body)
    if isinstance(value, list):
        raise ProtocolError(
            ErrorCode.INVALID_REQUEST, "batches are not supported; send one request per frame"
        )
    if not isinstance(value, dict):
        raise ProtocolError(ErrorCode.INVALID_REQUEST, "a request must be a JSON object")
    request_id = _salvage_id(value)
    try:
        return Request.model_validate(value)
    except ValidationError as exc:
        raise _from_validation(
            exc, ErrorCode.INVALID_REQUEST, request_id, "invalid request"
        ) from None


def parse_server_message(body: bytes) -> Response | Notification:
    """Reads one app frame body on the client side: a response, or a notification.

    Raises:
        ProtocolError: the app sent something that is not a valid response or notification.
    """
    value = decode_json(body)
    if not isinstance(value, dict):
        raise ProtocolError(ErrorCode.INVALID_REQUEST, "a message must be a JSON object")
    model: type[Response | Notification] = (
        Notification if "method" in value and "id" not in value else Response
    )
    try:
        return model.model_validate(value)
    except ValidationError as exc:
        raise _from_validation(exc, ErrorCode.INVALID_REQUEST, None, "invalid message") from None


def request_message(
    request_id: RequestIdType, method: str, params: Mapping[str, Any]
) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": dict(params)}


def result_message(request_id: RequestIdType, result: Mapping[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "result": dict(result)}


def error_message(request_id: RequestIdType | None, error: ProtocolError) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": error.to_error_object()}


def notification_message(method: str, params: Mapping[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": method, "params": dict(params)}


# --- method parameters and results -------------------------------------------------------

ParamsT = TypeVar("ParamsT", bound=BaseModel)


def parse_params(model: type[ParamsT], request: Request) -> ParamsT:
    """Validates a request's params against a method's model.

    Raises:
        ProtocolError: INVALID_PARAMS naming the field, with the request's id.
    """
    try:
        return model.model_validate(request.params)
    except ValidationError as exc:
        raise _from_validation(
            exc, ErrorCode.INVALID_PARAMS, request.id, "invalid params"
        ) from None


ClientName = Annotated[StrictStr, Field(max_length=CLIENT_NAME_MAX)]
DecisionId = Annotated[StrictStr, Field(min_length=1, max_length=DECISION_ID_MAX)]


class HelloParams(_Strict):
    """`hello`: the client's protocol version (checked when given) and a name for the log."""

    protocol: StrictInt | None = None
    client: ClientName = ""


class DecisionPresentParams(_Strict):
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
            raise _FieldValueError("give exactly one of proposal and decision_id", "proposal")
        return self


class DecisionPendingParams(_Strict):
    """`decision.pending`: filters; neither given means every pending decision."""

    workspace: Annotated[StrictStr, Field(max_length=WORKSPACE_MAX)] | None = None
    session_id: Annotated[StrictStr, Field(max_length=IDENTIFIER_MAX)] | None = None


class AppShowParams(_Strict):
    """`app.show`: which view to raise; `decision` needs the decision's id."""

    view: Literal["journal", "decision"] = "journal"
    decision_id: DecisionId | None = None

    @model_validator(mode="after")
    def _decision_needs_id(self) -> AppShowParams:
        if self.view == "decision" and self.decision_id is None:
            raise _FieldValueError("view decision needs a decision_id", "decision_id")
        return self


class JournalChangedParams(_Strict):
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


# --- core errors on the wire ---------------------------------------------------------------


def _listed(exc: ViolationsError, data: dict[str, Any]) -> str:
    """Adds the first violations to `data`; the message the error itself words for them."""
    listed = exc.violations[:MAX_LISTED_VIOLATIONS]
    data["violations"] = [
        {"field": v.field, "message": v.message, "limit": v.limit} for v in listed
    ]
    if len(exc.violations) > len(listed):
        data["violations_omitted"] = len(exc.violations) - len(listed)
    return exc.listing(MAX_LISTED_VIOLATIONS)


def encode_error_frame(request_id: RequestIdType | None, error: ProtocolError) -> bytes:
    """The frame of an error reply, which always fits `MAX_FRAME`.

    The message is already bounded; when the details still make the frame too large (or
    unencodable), they shrink to the field, limit and size, which always fit.
    """
    try:
        return encode_frame(error_message(request_id, error))
    except (ValueError, TypeError):
        kept = {k: v for k, v in error.data.items() if k in _SCALAR_DETAILS and _scalar(v)}
        small = ProtocolError(error.code, error.message, error.field, data=kept)
        return encode_frame(error_message(request_id, small))


_SCALAR_DETAILS = frozenset({"limit", "size", "pending_id", "current_revision", "runbook"})


def _scalar(value: Any) -> bool:
    if isinstance(value, str):
        return len(value) <= MESSAGE_MAX
    return isinstance(value, int) and not isinstance(value, bool)


def error_from_exception(exc: BaseException) -> ProtocolError:
    """The wire error of any exception: the code, details and runbook entry its class
    declares (`core.errors`), the message and field as `describe` gives them.

    An error whose class declares no wire code, and anything outside the family, becomes
    INTERNAL_ERROR without its text: an unexpected exception is a bug to log in the app, not
    a message for the agent.
    """
    if isinstance(exc, ProtocolError):
        return exc
    if isinstance(exc, RemoteError):  # relayed as the app that raised it sent it
        return ProtocolError(exc.code, exc.message, exc.field, data=exc.data)
    if not isinstance(exc, JournalError) or exc.wire_code == ErrorCode.INTERNAL_ERROR:
        return ProtocolError(ErrorCode.INTERNAL_ERROR, f"internal error ({type(exc).__name__})")
    described = describe(exc)
    data = exc.details()
    if described.runbook_path:
        data["runbook"] = described.runbook_path
    message = _listed(exc, data) if isinstance(exc, ViolationsError) else described.message
    return ProtocolError(exc.wire_code, message, described.field, data=data)


SHUTTING_DOWN = "shutting_down"
"""The `data` flag of the BUSY error that answers requests the app leaves unanswered as it quits."""


def shutting_down_error() -> ProtocolError:
    """What a request gets that the app will not answer because it quits.

    Clients tell it from a refusal by `data.shutting_down`: the app went away, as if it had
    died, so a client asking for a decision reads where it stands from the journal.
    """
    return ProtocolError(ErrorCode.BUSY, "the app is shutting down", data={SHUTTING_DOWN: True})


def is_shutting_down(error: RemoteError) -> bool:
    """True for `shutting_down_error` as a client receives it."""
    return error.code == ErrorCode.BUSY and error.data.get(SHUTTING_DOWN) is True
