"""Turning a frame body into a request the handler may see, and answering `hello`.

Why here: these run on the I/O and parse threads, never on the GUI thread, and never raise,
so a hostile body costs one error reply and nothing else.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from core.errors import ErrorCode, ProtocolError
from core.ipc.framing import encode_frame
from core.ipc.methods import PARAMS_MODELS, HelloParams
from core.ipc.protocol import (
    PROTOCOL_VERSION,
    Request,
    encode_error_frame,
    parse_params,
    parse_request,
    result_message,
)

log = logging.getLogger(__name__)


def parse_body(body: bytes) -> Request | ProtocolError:
    """The request in `body`, or the error that refuses it (never raises)."""
    try:
        request = parse_request(body)
        model = PARAMS_MODELS.get(request.method)
        if model is not None:
            parse_params(model, request)
    except ProtocolError as exc:
        return exc
    except Exception:
        log.exception("a request body could not be read")
        return ProtocolError(ErrorCode.INTERNAL_ERROR, "the request could not be read")
    return request


def hello_frame(request: Request, hello: Mapping[str, Any]) -> bytes:
    """The reply to `hello`: the result, or UNSUPPORTED_PROTOCOL for another version."""
    params = HelloParams.model_validate(request.params)
    if params.protocol is not None and params.protocol != PROTOCOL_VERSION:
        error = ProtocolError(
            ErrorCode.UNSUPPORTED_PROTOCOL,
            f"protocol {params.protocol} is not supported; this app speaks {PROTOCOL_VERSION}",
            "protocol",
            data={"supported": [PROTOCOL_VERSION]},
        )
        return encode_error_frame(request.id, error)
    return encode_frame(result_message(request.id, hello))
