"""The CLI's standard output with control characters shown as escapes, never obeyed.

Why one wrapper: `list`, `show`, `pending`, `history`, `notes` and the rest print text that
agents, imports and other machines wrote; a stored ESC or bidi override must print as
`\\u001b` or `\\u202e` (`core.record.controls.visible_controls`), whichever command prints it and
however old the record. Written to the stream, the rule covers every command at once. Bytes
written to `sys.stdout.buffer` (the exports and `list --json`) pass unchanged: they are data
for a program, and their JSON already escapes C0 controls.
"""

from __future__ import annotations

import io
import sys
from typing import BinaryIO, TextIO

from core.record.controls import visible_controls


class VisibleStream(io.TextIOBase):
    """A text stream that escapes control characters in each write before passing it on."""

    def __init__(self, inner: TextIO) -> None:
        super().__init__()
        self._inner = inner

    def write(self, text: str) -> int:
        self._inner.write(visible_controls(text))
        return len(text)

    def flush(self) -> None:
        self._inner.flush()

    def isatty(self) -> bool:
        return self._inner.isatty()

    def fileno(self) -> int:
        return self._inner.fileno()

    @property
    def buffer(self) -> BinaryIO:
        return self._inner.buffer

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self._inner.encoding


def escape_stdout() -> None:
    """Wraps `sys.stdout` once for the rest of the process."""
    if not isinstance(sys.stdout, VisibleStream):
        sys.stdout = VisibleStream(sys.stdout)
