"""The CLI's standard error redacts what it prints: usage errors and tracebacks quote input."""

from __future__ import annotations

import io
import sys

from app.cli.redacted_output import RedactingStream, redact_stderr
from app.ipc.connection import _redacted_error
from core.errors import ErrorCode, ProtocolError

SECRET = "Tiger23+Nimbus"


def test_each_write_is_redacted_and_counted_as_given() -> None:
    inner = io.StringIO()
    stream = RedactingStream(inner)
    text = f"error: expected OPTION_ID=TEXT, got 'password={SECRET}'\n"
    assert stream.write(text) == len(text)
    assert SECRET not in inner.getvalue()
    assert inner.getvalue().startswith("error: expected OPTION_ID=TEXT, got 'password=[REDACTED")


def test_stderr_is_wrapped_once() -> None:
    original = sys.stderr
    try:
        redact_stderr()
        wrapped = sys.stderr
        redact_stderr()
        assert sys.stderr is wrapped and isinstance(wrapped, RedactingStream)
    finally:
        sys.stderr = original


def test_a_wire_error_reply_is_redacted() -> None:
    error = ProtocolError(
        ErrorCode.INVALID_PROPOSAL,
        f"options.0.label: too long ('pw: {SECRET}')",
        "options.0.label",
        data={"limit": 120, "got": f"token={SECRET}"},
        request_id=7,
    )
    sent = _redacted_error(error).to_error_object()
    assert SECRET not in str(sent)
    assert sent["code"] == ErrorCode.INVALID_PROPOSAL and "options.0.label" in str(sent)
