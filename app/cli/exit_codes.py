"""Exit codes of the CLI contract by name, and the one way a command reports a failure.

Each core error class declares its exit code (`core.errors`); this module prints it."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TextIO

from core.errors import (
    ExitCode,
    JournalError,
    describe,
    exit_code_of,
    is_storage_failure,
    storage_failure,
)

OK = ExitCode.OK
UNEXPECTED = ExitCode.UNEXPECTED
INVALID = ExitCode.INVALID
PENDING = ExitCode.PENDING
CONFLICT = ExitCode.CONFLICT
NOT_FOUND = ExitCode.NOT_FOUND
DAMAGED = ExitCode.DAMAGED
WRONG_STATE = ExitCode.WRONG_STATE
"""The codes by the names commands use; each error class declares its own (`core.errors`)."""
ERROR_PREFIX = "decision-journal: error: "

EXIT_CODES_HELP = (
    "exit codes: 0 ok, 1 unexpected error, 2 invalid input or usage, 3 decision pending, "
    "4 revision conflict, 5 not found, 6 journal damaged or not writable (fail-closed: a "
    "damaged record or history, a full disk, a read-only file system, permission denied; "
    "see `decision-journal help runbook`), 7 the decision is not in the state the command "
    "needs (restore of one that is not deleted, delete of one that already is, or a change "
    "to a decision waiting for a choice of version after a sync, auto for a kind it is not "
    "recommended for, or an overrule of a decision the profile did not answer), 141 the "
    "output was closed (| head)"
)


def print_error(message: object, stream: TextIO | None = None) -> None:
    """The one way a command says it failed: `decision-journal: error: ` and the message."""
    print(f"{ERROR_PREFIX}{message}", file=stream or sys.stderr)


def report_error(error: BaseException, stream: TextIO | None = None) -> int:
    """One clear line on stderr: the error as `describe` puts it (message, field and limit,
    runbook entry); an OS failure a user can fix is explained first, as a `StorageFailure`."""
    if isinstance(error, OSError) and is_storage_failure(error):
        error = storage_failure(error, "use", error.filename or "the journal")
    print_error(describe(error), stream)
    return exit_code_of(error)


def guarded(run: Callable[[], int]) -> int:
    """Runs a command, turning core errors into their exit codes and one stderr line."""
    try:
        return run()
    except (JournalError, OSError) as exc:
        return report_error(exc)
