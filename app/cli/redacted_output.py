"""The CLI's standard error, redacted: error lines, warnings, usage errors and tracebacks.

Error messages name the value that broke a rule (``got 'api_key=…'``), argparse repeats the
argument it refused, and a traceback prints the exception's text; any of them can quote a
credential the user typed. Standard output is not wrapped: what it prints comes from stored,
already redacted records, and the commands that echo their own input redact it there.
"""

from __future__ import annotations

import io
import sys
from typing import TextIO


class RedactingStream(io.TextIOBase):
    """A text stream that redacts each write before passing it on."""

    def __init__(self, inner: TextIO) -> None:
        super().__init__()
        self._inner = inner

    def write(self, text: str) -> int:
        # The patterns load with the first line written: a command that prints no error
        # (most runs) never pays for them.
        from core.record.redaction import redact_text

        self._inner.write(redact_text(text)[0])
        return len(text)

    def flush(self) -> None:
        self._inner.flush()

    def isatty(self) -> bool:
        return self._inner.isatty()

    def fileno(self) -> int:
        return self._inner.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self._inner.encoding


def redact_stderr() -> None:
    """Wraps `sys.stderr` once for the rest of the process."""
    if not isinstance(sys.stderr, RedactingStream):
        sys.stderr = RedactingStream(sys.stderr)
