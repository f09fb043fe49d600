"""Exit codes of the CLI contract, and the mapping from core errors to them."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TextIO

from core.errors import (
    InvalidDecision,
    JournalDamaged,
    JournalError,
    ModeRefused,
    NotFound,
    PendingConflict,
    RevisionConflict,
    describe,
    is_storage_failure,
    storage_failure,
)

OK = 0
UNEXPECTED = 1
INVALID = 2
PENDING = 3
CONFLICT = 4
NOT_FOUND = 5
DAMAGED = 6
WRONG_STATE = 7
"""The decision is not in the state the command needs: `restore` of one that is not deleted,
`delete` of one that already is. Nothing was changed."""

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


_CODES: tuple[tuple[type[BaseException], int], ...] = (
    (InvalidDecision, INVALID),
    (PendingConflict, PENDING),
    (ModeRefused, WRONG_STATE),
    (RevisionConflict, CONFLICT),
    (NotFound, NOT_FOUND),
    (JournalDamaged, DAMAGED),  # a StorageFailure too: full, read-only, denied
)


def exit_code_for(error: BaseException) -> int:
    return next((code for kind, code in _CODES if isinstance(error, kind)), UNEXPECTED)


def report_error(error: BaseException, stream: TextIO | None = None) -> int:
    """One clear line on stderr: the error as `describe` puts it (message, field and limit,
    runbook entry); an OS failure a user can fix is explained first, as a `StorageFailure`."""
    out = stream or sys.stderr
    if isinstance(error, OSError) and is_storage_failure(error):
        error = storage_failure(error, "use", error.filename or "the journal")
    print(f"decision-journal: error: {describe(error)}", file=out)
    return exit_code_for(error)


def guarded(run: Callable[[], int]) -> int:
    """Runs a command, turning core errors into their exit codes and one stderr line."""
    try:
        return run()
    except (JournalError, OSError) as exc:
        return report_error(exc)
