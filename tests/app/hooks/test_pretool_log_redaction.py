"""A hook's warnings reach the agent's terminal redacted: they quote questions and errors."""

from __future__ import annotations

import io
import logging

from app.hooks.pretool import _redact_log_line


def test_a_warning_quoting_a_secret_is_redacted() -> None:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(_redact_log_line)
    logger = logging.getLogger("tests.hook-log-redaction")
    logger.addHandler(handler)
    try:
        logger.warning("could not journal the answer to %r: %s", "pw: Tiger23+Nimbus", "busy")
    finally:
        logger.removeHandler(handler)
    assert "Tiger23+Nimbus" not in stream.getvalue()
    assert "could not journal the answer to" in stream.getvalue()
