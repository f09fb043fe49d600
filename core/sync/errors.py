"""The errors sync raises on purpose; each names what is wrong and the fix."""

from __future__ import annotations

from core.errors import JournalError


class SyncError(JournalError):
    """Base of every sync failure; nothing in the journal was half-written."""


class SyncNotConfigured(SyncError):
    """The journal has no sync working copy yet (`sync init` or `sync join` first)."""


class SyncAlreadyConfigured(SyncError):
    """`sync init` or `sync join` on a journal that already syncs."""


class SyncKeyUnavailable(SyncError):
    """No usable place to keep the sync key: no OS keyring backend, or a bad key file."""


class SyncKeyWrong(SyncError):
    """The key given does not open this remote: a wrong or mistyped pairing string."""


class SyncRemoteError(SyncError):
    """git refused: the remote is not a sync remote, or a git command failed."""


class SyncConflictUnknown(SyncError, LookupError):
    """`sync resolve` of a decision that has no sync conflict."""
