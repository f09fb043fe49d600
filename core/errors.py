"""The small typed family of errors every adapter maps to messages and exit codes."""

from __future__ import annotations

RUNBOOK = "docs/runbook.md"


class JournalError(Exception):
    """Base of every error the core raises on purpose."""

    runbook_anchor: str | None = None

    def runbook_hint(self) -> str:
        """Points the reader at the runbook entry that explains this state, if any."""
        if self.runbook_anchor is None:
            return ""
        return f"see {RUNBOOK}#{self.runbook_anchor}"


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


class LockUnsafe(JournalDamaged):
    """A lock file was replaced by a link or another file while held."""

    runbook_anchor = "lock-file-replaced"


class PendingConflict(JournalError):
    """A different decision is already pending for this agent session."""

    runbook_anchor = "decision-pending"

    def __init__(self, message: str, *, pending_id: str):
        super().__init__(message)
        self.pending_id = pending_id
