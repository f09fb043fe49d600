"""The errors sync raises on purpose; each names what is wrong and the fix."""

from __future__ import annotations

from core.errors import JournalError

SET_UP_ENTRY = "sync-not-set-up"
KEY_UNAVAILABLE_ENTRY = "sync-key-unavailable"
KEY_WRONG_ENTRY = "sync-key-wrong"
OFFLINE_ENTRY = "sync-offline"
AUTH_ENTRY = "sync-auth-failed"
REMOTE_ENTRY = "sync-remote-refused"
CONFLICT_ENTRY = "sync-conflict"
INTERRUPTED_ENTRY = "sync-interrupted"
GIT_MISSING_ENTRY = "sync-git-missing"
"""The runbook entries of sync's states (`resources/runbook.md`); messages name them."""


class SyncError(JournalError):
    """Base of every sync failure; nothing in the journal was half-written."""

    runbook_anchor = INTERRUPTED_ENTRY


class SyncNotConfigured(SyncError):
    """The journal has no sync working copy yet (`sync init` or `sync join` first)."""

    runbook_anchor = SET_UP_ENTRY


class SyncAlreadyConfigured(SyncError):
    """`sync init` or `sync join` on a journal that already syncs."""

    runbook_anchor = SET_UP_ENTRY


class SyncKeyUnavailable(SyncError):
    """No usable place to keep the sync key: no OS keyring backend, or a bad key file."""

    runbook_anchor = KEY_UNAVAILABLE_ENTRY


class SyncKeyWrong(SyncError):
    """The key given does not open this remote: a wrong or mistyped pairing string."""

    runbook_anchor = KEY_WRONG_ENTRY


class SyncRemoteError(SyncError):
    """git refused: the remote is not a sync remote, or a git command failed."""

    runbook_anchor = REMOTE_ENTRY


class SyncConflictUnknown(SyncError, LookupError):
    """`sync resolve` of a decision that has no sync conflict."""

    runbook_anchor = CONFLICT_ENTRY


class SyncGitMissing(SyncError):
    """The `git` program sync runs is not installed or not on PATH."""

    runbook_anchor = GIT_MISSING_ENTRY
