"""Exit codes of the CLI contract by name, and the one way a command reports a failure.

Each core error class declares its exit code and when it applies (`core.errors`); this module
prints it, and lists the codes for `--help` from those declarations."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from typing import TextIO

from core.errors import (
    ExitCode,
    JournalError,
    describe,
    error_classes,
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

COMMAND_OUTCOMES: dict[int, str] = {
    WRONG_STATE: "restore of a decision that is not deleted, delete of one that already is",
}
"""Exit codes the journal commands return without an error class (they print the reason)."""
RUNBOOK_TAIL = "each failure names its runbook entry (`decision-journal help runbook`)"


def exit_codes_help(
    outcomes: Mapping[int, str],
    *,
    family: type[JournalError] = JournalError,
    title: str = "exit codes",
) -> str:
    """The exit codes as `--help` lists them, read from the error classes' own declarations.

    Each code reads its meaning, then in parentheses the cases that exit with it: the
    command's own `outcomes` first, then every class of `family` that states an `exit_case`,
    under the code it declares; a class that changes its code moves in the help with it.

    Args:
        outcomes: codes the commands return without raising, each with when they do (a
            code outside `ExitCode`, such as a closed pipe's, reads its outcome alone).
        family: the error classes the commands can end with (`SyncError` for `sync`).
        title: the line's first words.
    """
    cases: dict[int, list[str]] = {ExitCode.OK: [], ExitCode.UNEXPECTED: []}
    for code, outcome in outcomes.items():
        cases.setdefault(code, []).append(outcome)
    for kind in error_classes():
        if issubclass(kind, family) and "exit_case" in vars(kind) and kind.exit_case:
            cases.setdefault(kind.exit_code, []).append(kind.exit_case)
    listing = ", ".join(_code_help(code, cases[code]) for code in sorted(cases))
    return f"{title}: {listing}; {RUNBOOK_TAIL}"


def _code_help(code: int, cases: list[str]) -> str:
    """One code: its meaning and its cases, or its cases alone for a code without a name."""
    if code not in {int(known) for known in ExitCode}:
        return f"{code} {'; '.join(cases)}"
    listed = f" ({'; '.join(cases)})" if cases else ""
    return f"{code} {ExitCode(code).meaning}{listed}"


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
