"""The small typed family of errors every adapter maps to messages and exit codes."""

from __future__ import annotations

import errno as errno_codes

from core.messages import runbook

RUNBOOK = runbook.RUNBOOK
"""The runbook's source path for machine-readable references (`core.ipc.protocol` reads it here)."""


class JournalError(Exception):
    """Base of every error the core raises on purpose."""

    runbook_anchor: str | None = None

    def runbook_hint(self) -> str:
        """Points the reader at the runbook entry that explains this state, if any."""
        if self.runbook_anchor is None:
            return ""
        return runbook.see(self.runbook_anchor)


class InvalidDecision(JournalError, ValueError):
    """Input that breaks a rule of the record or proposal contract; nothing was written."""

    def __init__(self, message: str, *, field: str | None = None, limit: int | None = None):
        super().__init__(message)
        self.field = field
        self.limit = limit


class SensitiveIdentifier(InvalidDecision):
    """An identifier field looks like a secret; identifiers are rejected, never rewritten."""


class RevisionConflict(JournalError):
    """Another writer committed first: the expected revision no longer matches."""

    runbook_anchor = "revision-conflict"

    def __init__(self, message: str, *, current_revision: int | None = None):
        super().__init__(message)
        self.current_revision = current_revision


class NotFound(JournalError, LookupError):
    """The decision, rule or pending item does not exist."""


class JournalDamaged(JournalError):
    """Stored data is unreadable or unsafe; the operation fails closed."""

    runbook_anchor = "unreadable-record"

    def __init__(self, message: str, *, path: str | None = None, anchor: str | None = None):
        super().__init__(message)
        self.path = path
        if anchor is not None:
            self.runbook_anchor = anchor


class UnsafePath(JournalDamaged):
    """A path component is a symbolic link, or a file is not a regular file."""

    runbook_anchor = "symlink-or-special-file"


class OversizedFile(JournalDamaged):
    """A stored file exceeds its size cap; it is rejected before decoding."""

    runbook_anchor = "record-over-size-cap"


class HistoryBroken(JournalDamaged):
    """A revision history is not a continuous, consistent chain 1..N."""

    runbook_anchor = "broken-history-chain"


class HistoryTampered(HistoryBroken):
    """A history revision's bytes no longer match the digest written beside it."""

    runbook_anchor = "history-tampered"


class LockUnsafe(JournalDamaged):
    """A lock file is a link, a FIFO or a device, or was replaced while held."""

    runbook_anchor = "lock-file-replaced"


class PendingConflict(JournalError):
    """A different decision is already pending for this agent session."""

    runbook_anchor = "decision-pending"

    def __init__(self, message: str, *, pending_id: str):
        super().__init__(message)
        self.pending_id = pending_id


_STORAGE_CAUSES = {
    errno_codes.ENOSPC: ("the disk is full", "disk-full"),
    errno_codes.EDQUOT: ("the disk quota is used up", "disk-full"),
    errno_codes.EROFS: ("the file system is mounted read-only", "read-only-file-system"),
    errno_codes.EACCES: ("permission denied", "permission-denied"),
    errno_codes.EPERM: ("the operation is not permitted", "permission-denied"),
    errno_codes.EIO: ("the disk reported an input/output error", "disk-io-error"),
}
"""The operating-system failures a user can fix, each with its cause and runbook entry."""


class StorageFailure(JournalDamaged, OSError):
    """The operating system refused a journal read or write; nothing was half-written.

    A `JournalDamaged`, so every adapter fails closed on it as on damage (exit 6, the
    JOURNAL_DAMAGED wire error with its runbook entry), and an `OSError`, so code that already
    handles OS errors keeps handling it; `errno` and `strerror` are the original ones.
    """

    def __init__(self, message: str, *, errno: int, strerror: str, path: str, anchor: str):
        OSError.__init__(self, errno, strerror)
        self.message = message
        self.path = path
        self.runbook_anchor = anchor

    def __str__(self) -> str:
        return self.message


def is_storage_failure(error: OSError) -> bool:
    """Whether error is one of the OS failures `storage_failure` explains."""
    return error.errno in _STORAGE_CAUSES and not isinstance(error, StorageFailure)


def storage_failure(error: OSError, action: str, path: object) -> StorageFailure:
    """The typed, explained form of an OS failure while doing `action` on path.

    Args:
        error: the OS error; its errno must be one `is_storage_failure` accepts.
        action: what was being done, as a verb phrase ("write", "create the folder").
        path: the file or folder concerned.
    """
    code = error.errno or 0
    cause, anchor = _STORAGE_CAUSES[code]
    strerror = error.strerror or cause
    return StorageFailure(
        f"cannot {action} {path}: {cause} ({strerror}); nothing was changed",
        errno=code,
        strerror=strerror,
        path=str(path),
        anchor=anchor,
    )
