"""The wire protocol between the tray app and its local clients: JSON-RPC 2.0 envelopes and
the core's errors on the wire.

Why a package of its own: the app's socket server, the CLI, the MCP server and the hooks must
agree byte for byte, and none of the clients may import Qt. `docs/protocol.md` is the prose
version of `core.ipc`: this module (requests, responses, notifications, error replies), the
frames and strict JSON under it (`core.ipc.framing`) and each method's params and result
(`core.ipc.methods`); they change together.

Parsing is strict on purpose. The socket accepts input from any process of this user, so an
unknown field or a wrong type is an error naming the field, never a guess: a client bug
surfaces as a clear error instead of as a silently different decision.
"""

from __future__ import annotations

from collections.abc import Mapping
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
    JournalError,
    ProtocolError,
    RemoteError,
    ViolationsError,
    describe,
)
from core.ipc.framing import decode_json, encode_frame

PROTOCOL_VERSION = 1
MAX_LISTED_VIOLATIONS = 16
"""Violations an error reply lists before it says "and N more", so every error fits a frame."""
ID_TEXT_MAX = 128
METHOD_MAX = 128
JSON_SAFE_INT = 2**53 - 1
"""Integer ids beyond this lose precision in JavaScript clients, so they are refused."""


RequestIdType = int | str


# --- envelopes ---------------------------------------------------------------------------


class CrossFieldError(ValueError):
    """Raised inside a model validator to name the field a cross-field rule blames (the
    methods' params use it too)."""

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


class StrictModel(BaseModel):
    """A message part that refuses unknown fields and loose types."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class Request(StrictModel):
    """A client's call. Every request carries an id: the app accepts no client notifications."""

    jsonrpc: Literal["2.0"]
    id: RequestId
    method: MethodName
    params: dict[str, Any] = Field(default_factory=dict)


class Notification(StrictModel):
    """A message from the app that needs no answer, e.g. `progress` during a long call."""

    jsonrpc: Literal["2.0"]
    method: MethodName
    params: dict[str, Any] = Field(default_factory=dict)


class ErrorObject(StrictModel):
    """The `error` member of a response; `data` is open so codes can add details."""

    code: StrictInt
    message: StrictStr
    data: dict[str, Any] | None = None


class Response(StrictModel):
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
            raise CrossFieldError("a response carries exactly one of result and error", "result")
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
    if isinstance(cause, CrossFieldError):
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
