"""The small typed family of errors the core raises on purpose, and the one way to describe them.

Why one module: a reader finds every error the core can raise, and the built-in each one also
is, in one place; the CLI, the GUI, the MCP server and the socket protocol describe them through
`describe`, so the same failure reads the same everywhere. Each error subclasses `JournalError`
and the built-in it is an instance of, so `except ValueError` (or `OSError`, `LookupError`)
written for the standard library keeps catching it:

- `ValueError`: the input breaks a rule; nothing was written.
- `LookupError`: what was asked for does not exist.
- `OSError` (`ConnectionError`, `TimeoutError`): the operating system or the app refused.
- `RuntimeError`: the state of the journal forbids the operation now (a conflict, damage, a
  cancelled wait).
"""

from __future__ import annotations

import errno as errno_codes
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import IntEnum
from typing import Any

from core.messages import runbook, wording

RUNBOOK = runbook.RUNBOOK
"""The runbook's source path for machine-readable references (`core.ipc.protocol` reads it here)."""
MESSAGE_MAX = 4096
"""Characters an error message may carry on the wire; a longer one is cut, saying how much."""
_CUT_NOTE_ROOM = 40


class ExitCode(IntEnum):
    """The command line's exit codes; each error class below declares its own."""

    OK = 0
    UNEXPECTED = 1
    INVALID = 2
    PENDING = 3
    CONFLICT = 4
    NOT_FOUND = 5
    DAMAGED = 6
    WRONG_STATE = 7
    """The decision is not in the state the command needs (`restore` of one that is not
    deleted, `delete` of one that already is); nothing was changed."""

    @property
    def meaning(self) -> str:
        """The code in a few words, as `--help` lists it before the cases that exit with it."""
        return _EXIT_MEANINGS[self]


_EXIT_MEANINGS = {
    ExitCode.OK: "ok",
    ExitCode.UNEXPECTED: "unexpected error",
    ExitCode.INVALID: "invalid input or usage",
    ExitCode.PENDING: "decision pending",
    ExitCode.CONFLICT: "revision conflict",
    ExitCode.NOT_FOUND: "not found",
    ExitCode.DAMAGED: "journal damaged or not writable, fail-closed",
    ExitCode.WRONG_STATE: "the decision is not in the state the command needs",
}


class ErrorCode(IntEnum):
    """Stable error codes; clients branch on these, never on message text."""

    PARSE_ERROR = -32700
    INVALID_REQUEST = -32600
    METHOD_NOT_FOUND = -32601
    INVALID_PARAMS = -32602
    INTERNAL_ERROR = -32603
    INVALID_PROPOSAL = -32010
    PENDING_CONFLICT = -32011
    REVISION_CONFLICT = -32012
    NOT_FOUND = -32013
    JOURNAL_DAMAGED = -32014
    FRAME_TOO_LARGE = -32015
    FORBIDDEN_PEER = -32016
    BUSY = -32017
    UNSUPPORTED_PROTOCOL = -32018
    TIMED_OUT = -32019


class JournalError(Exception):
    """Base of every error the core raises on purpose.

    Each class declares once how every surface reports it: `exit_code` (the CLI's),
    `wire_code` (the socket's; INTERNAL_ERROR sends neither the text nor the details) and
    `runbook_anchor` (the entry that explains it). `describe` gives its words. A class that
    declares its own exit code also says in `exit_case` when a command exits with it: the
    CLI's `--help` lists the codes from these declarations (`app.cli.exit_codes`).
    """

    exit_code: ExitCode = ExitCode.UNEXPECTED
    exit_case: str | None = None
    wire_code: ErrorCode = ErrorCode.INTERNAL_ERROR
    runbook_anchor: str | None = None

    def details(self) -> dict[str, Any]:
        """Machine-readable facts about this error that clients branch on (`pending_id`)."""
        return {}

    def runbook_hint(self) -> str:
        """Points the reader at the runbook entry that explains this state, if any."""
        if self.runbook_anchor is None:
            return ""
        return runbook.see(self.runbook_anchor)


# --- invalid input (ValueError) ------------------------------------------------------------


class InvalidDecision(JournalError, ValueError):
    """Input that breaks a rule of the record or proposal contract; nothing was written."""

    exit_code = ExitCode.INVALID
    wire_code = ErrorCode.INVALID_PROPOSAL
    exit_case = "a field that breaks its rule, named with its limit"

    def __init__(self, message: str, *, field: str | None = None, limit: int | None = None):
        super().__init__(message)
        self.field = field
        self.limit = limit

    def details(self) -> dict[str, Any]:
        return {} if self.limit is None else {"limit": self.limit}


class SensitiveIdentifier(InvalidDecision):
    """An identifier field looks like a secret; identifiers are rejected, never rewritten."""


@dataclass(frozen=True, slots=True)
class Violation:
    """One broken rule: the field as a JSON path (`options[2].label`), what is wrong, the limit."""

    field: str
    message: str
    limit: int | None = None

    def __str__(self) -> str:
        return f"{self.field}: {self.message}"


class ViolationsError(InvalidDecision):
    """Several rules broken at once; `violations` lists each, naming its field."""

    subject = "implementation decision"

    def __init__(self, violations: Sequence[Violation]) -> None:
        self.violations = tuple(violations)
        first = self.violations[0]
        super().__init__(self.listing(), field=first.field, limit=first.limit)

    def listing(self, most: int | None = None) -> str:
        """The one line naming every broken rule, or the first `most` and how many more."""
        shown = self.violations if most is None else self.violations[:most]
        listed = "; ".join(str(v) for v in shown)
        more = len(self.violations) - len(shown)
        tail = f"; and {wording.number(more)} more" if more else ""
        problems = wording.count(len(self.violations), "problem")
        return f"invalid {self.subject} ({problems}): {listed}{tail}"


class ProposalInvalid(ViolationsError):  # name fixed by the capture contract
    """The proposal breaks the proposal contract; nothing was saved."""

    subject = "implementation decision proposal"


class AnswerInvalid(ViolationsError):  # same family as ProposalInvalid
    """The human's answers break a rule (blank, too long, missing a rejection); nothing saved."""

    subject = "implementation decision answer"


class NoteInvalid(ViolationsError):  # same family as ProposalInvalid
    """The note breaks a rule (blank, too long); nothing was written."""

    subject = "agent note"


class ProfileInvalid(InvalidDecision):
    """A profile or rule change breaks a profile rule (limits, derived fields); nothing written."""


class NoChanges(InvalidDecision):
    """The correction would not change the record; nothing was written."""


class UnknownSource(InvalidDecision):
    """The source's kind could not be told from its content; `--from KIND` names it."""


class AnswersInvalid(JournalError, ValueError):  # reads as a state, like ProposalInvalid
    """The app's answers do not fit the questions; the hook falls back to the terminal."""


# --- missing (LookupError) -----------------------------------------------------------------


class NotFound(JournalError, LookupError):
    """The decision, rule or pending item does not exist."""

    exit_code = ExitCode.NOT_FOUND
    wire_code = ErrorCode.NOT_FOUND
    exit_case = "no such decision, rule or pending item"


class SnapshotExpired(JournalError, LookupError):
    """The snapshot was evicted, idled out or belongs to another filter: reload from page one."""


# --- the journal's state forbids it (RuntimeError) -----------------------------------------


class RevisionConflict(JournalError, RuntimeError):
    """Another writer committed first: the expected revision no longer matches."""

    exit_code = ExitCode.CONFLICT
    wire_code = ErrorCode.REVISION_CONFLICT
    exit_case = "another writer saved first: `--expected-revision` is not the current one"
    runbook_anchor = "revision-conflict"

    def __init__(self, message: str, *, current_revision: int | None = None):
        super().__init__(message)
        self.current_revision = current_revision

    def details(self) -> dict[str, Any]:
        revision = self.current_revision
        return {} if revision is None else {"current_revision": revision}


class ProfileConflict(RevisionConflict):
    """Another writer saved the profile first: the expected profile revision no longer matches."""


class PendingConflict(JournalError, RuntimeError):
    """A different decision is already pending for this agent session."""

    exit_code = ExitCode.PENDING
    wire_code = ErrorCode.PENDING_CONFLICT
    exit_case = "another decision already waits for the agent session's answer"
    runbook_anchor = "decision-pending"

    def __init__(self, message: str, *, pending_id: str):
        super().__init__(message)
        self.pending_id = pending_id

    def details(self) -> dict[str, Any]:
        return {"pending_id": self.pending_id}


class ModeRefused(JournalError, RuntimeError):
    """A decision kind's mode cannot change that way now (auto that is not recommended), or a
    decision is not one the profile answered; nothing was changed."""

    exit_code = ExitCode.WRONG_STATE
    exit_case = (
        "auto for a kind it is not recommended for, or an overrule of a decision the profile "
        "did not answer"
    )


class LockCancelled(JournalError, RuntimeError):
    """The wait for a lock was cancelled (shutdown) or timed out."""


class ExportCancelled(JournalError, RuntimeError):
    """The user cancelled the export; nothing was written."""


class SnapshotTooLarge(JournalError, RuntimeError):
    """One result list alone exceeds the cache's bounds; narrow the filter."""


class RuntimeDirUnsafe(JournalError, RuntimeError):
    """The socket directory is a symlink, not a directory, or not private to this user."""

    runbook_anchor = "socket-dir-unsafe"


# --- damaged or refused storage (RuntimeError; OSError when the system refused) ------------


class JournalDamaged(JournalError, RuntimeError):
    """Stored data is unreadable or unsafe; the operation fails closed."""

    exit_code = ExitCode.DAMAGED
    wire_code = ErrorCode.JOURNAL_DAMAGED
    exit_case = "a damaged record or history"
    runbook_anchor = "unreadable-record"

    def __init__(self, message: str, *, path: str | None = None, anchor: str | None = None):
        super().__init__(message)
        self.path = path
        if anchor is not None:
            self.runbook_anchor = anchor


class JournalNotAFolder(JournalDamaged):
    """The journal path (`--journal`, DECISION_JOURNAL_HOME or the default) is a file, or lies
    inside one; nothing was read or written."""

    runbook_anchor = "journal-not-a-folder"


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


class PendingDamaged(JournalDamaged):
    """A pending decision file is unreadable or tampered with; it is kept for inspection."""

    def __init__(self, message: str, *, decision_id: str, path: str | None = None) -> None:
        super().__init__(message, path=path)
        self.decision_id = decision_id


class ProfileDamaged(JournalDamaged):
    """profiles/profile.json cannot be read; it is never overwritten, so overrides survive."""

    runbook_anchor = "profile-corrupt"


def unreadable_records(
    count: int, path: str, error: str, *, anchor: str | None = None
) -> JournalDamaged:
    """The fail-closed error of a whole-journal read that met unreadable record files.

    The wording is the reference's (`N unreadable record(s); first: PATH: ERROR`), so scripts
    that match KernForge's message match ours.

    Args:
        count: how many record files could not be read.
        path: the first of them.
        error: why the first could not be read.
        anchor: the runbook entry of the first one's cause; the unreadable-record entry if None.
    """
    return JournalDamaged(
        f"implementation decision store has {count} unreadable record(s); first: {path}: {error}",
        path=path,
        anchor=anchor,
    )


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

    exit_case = "a full disk, a read-only file system, permission denied"

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


# --- the socket protocol and its client ----------------------------------------------------


class ProtocolError(JournalError, ValueError):
    """A frame or request broke the protocol, or a method failed; carries a stable code.

    Its wire code is the instance's `code`; the CLI exits INVALID for the codes in
    `INPUT_CODES` (they blame the caller's input) and as the code's error class declares
    for the others (`exit_code_of`).

    Args:
        code: an `ErrorCode` (or another integer code a newer peer sent).
        message: one line for a human; names the field, the size and the limit.
        field: the offending field, dotted for nested ones (`options.1.label`).
        data: extra machine-readable details (`limit`, `pending_id`, `runbook`, ...).
        request_id: the id of the request the error answers, when it could be read.
    """

    INPUT_CODES = frozenset({ErrorCode.INVALID_PARAMS})

    def __init__(
        self,
        code: int,
        message: str,
        field: str | None = None,
        *,
        data: Mapping[str, Any] | None = None,
        request_id: int | str | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.field = field
        self.data: dict[str, Any] = dict(data or {})
        self.request_id = request_id

    def to_error_object(self) -> dict[str, Any]:
        """The JSON-RPC `error` member; `data` appears only when there is something in it.

        The message is cut to `MESSAGE_MAX` characters, so no message can outgrow a frame.
        """
        data = dict(self.data)
        if self.field is not None:
            data["field"] = self.field
        error: dict[str, Any] = {"code": int(self.code), "message": _fit(self.message)}
        if data:
            error["data"] = data
        return error


class FrameTooLarge(ProtocolError):
    """A frame header announced more bytes than the cap; refused before reading the body."""

    def __init__(self, size: int, limit: int) -> None:
        super().__init__(
            ErrorCode.FRAME_TOO_LARGE,
            f"frame {wording.too_large(size, limit)}",
            data={"size": size, "limit": limit},
        )
        self.size = size
        self.limit = limit


def _fit(message: str) -> str:
    """`message`, or its head and how much was cut when it exceeds `MESSAGE_MAX` characters."""
    if len(message) <= MESSAGE_MAX:
        return message
    keep = MESSAGE_MAX - _CUT_NOTE_ROOM
    return f"{message[:keep]} ... ({len(message) - keep} more characters)"


class IpcError(JournalError):
    """Base of every failure talking to the app; each kind below is also its built-in."""


class AppNotRunning(IpcError, ConnectionError):
    """No app instance listens on the socket: the file is absent or nobody accepts."""


class ConnectionLost(IpcError, ConnectionError):
    """The app closed the connection before answering (it quit, or refused the request)."""


class IpcTimeout(IpcError, TimeoutError):
    """No reply within the timeout; the connection is closed so the app drops the request."""


class UnexpectedReply(IpcError, ValueError):
    """The app sent bytes that are not a valid reply to the pending call."""


class IpcUnsupported(IpcError, NotImplementedError):
    """This platform has no client transport yet (Windows named pipes are not wired up)."""


class RemoteError(IpcError, RuntimeError):
    """The app answered with a JSON-RPC error; `code` is stable, `message` is for humans.

    Args:
        code: an `ErrorCode` when the code is known to this client, else the raw integer.
        message: the app's one-line message.
        data: the error's details (`field`, `runbook`, `limit`, ...).
        request_id: None when the app could not tie the error to a request; it then closes
            the connection (a refused peer, a broken frame).
    """

    def __init__(
        self,
        code: int,
        message: str,
        data: Mapping[str, Any] | None = None,
        *,
        request_id: int | str | None = None,
    ) -> None:
        super().__init__(message)
        self.request_id = request_id
        try:
            self.code: int = ErrorCode(code)
        except ValueError:
            self.code = code
        self.message = message
        self.data: dict[str, Any] = dict(data or {})

    @property
    def field(self) -> str | None:
        """The offending field the app named, if any."""
        value = self.data.get("field")
        return value if isinstance(value, str) else None


# --- sync (RuntimeError) -------------------------------------------------------------------

SET_UP_ENTRY = "sync-not-set-up"
KEY_UNAVAILABLE_ENTRY = "sync-key-unavailable"
KEY_WRONG_ENTRY = "sync-key-wrong"
OFFLINE_ENTRY = "sync-offline"
AUTH_ENTRY = "sync-auth-failed"
REMOTE_ENTRY = "sync-remote-refused"
CONFLICT_ENTRY = "sync-conflict"
INTERRUPTED_ENTRY = "sync-interrupted"
GIT_MISSING_ENTRY = "sync-git-missing"
TAMPERED_ENTRY = "sync-remote-tampered"
ROLLBACK_ENTRY = "sync-remote-rolled-back"
UNSAFE_REMOTE_ENTRY = "sync-remote-unsafe"
REFUSED_ENTRY = "sync-files-refused"
JOIN_REFUSED_ENTRY = "sync-join-refused"
PEER_QUIET_ENTRY = "sync-peer-quiet"
"""The runbook entries of sync's states (`resources/runbook.md`); messages name them."""


class SyncError(JournalError, RuntimeError):
    """Base of every sync failure; nothing in the journal was half-written."""

    runbook_anchor = INTERRUPTED_ENTRY


class SyncNotConfigured(SyncError):
    """The journal has no sync working copy yet (`sync init` or `sync join` first)."""

    exit_code = ExitCode.WRONG_STATE
    runbook_anchor = SET_UP_ENTRY
    exit_case = "sync is not set up"


class SyncAlreadyConfigured(SyncError):
    """`sync init` or `sync join` on a journal that already syncs."""

    exit_code = ExitCode.WRONG_STATE
    runbook_anchor = SET_UP_ENTRY
    exit_case = "sync is set up already"


class SyncKeyUnavailable(SyncError):
    """No usable place to keep the sync key: no OS keyring backend, or a bad key file."""

    exit_code = ExitCode.INVALID
    runbook_anchor = KEY_UNAVAILABLE_ENTRY
    exit_case = "no keyring or key file to keep the sync key in"


class SyncKeyWrong(SyncError):
    """The key given does not open this remote: a wrong or mistyped pairing string."""

    exit_code = ExitCode.INVALID
    runbook_anchor = KEY_WRONG_ENTRY
    exit_case = "a missing pairing string, or one that does not open the remote"


class SyncRemoteError(SyncError):
    """git refused: the remote is not a sync remote, or a git command failed."""

    runbook_anchor = REMOTE_ENTRY
    exit_case = "git or the remote refused, or the remote is not a sync remote"


class SyncRemoteUnsafe(SyncRemoteError):
    """The remote sent something sync refuses as a whole (an object git's fsck refuses, more
    than a sync reads); nothing was received or written."""

    exit_code = ExitCode.DAMAGED
    runbook_anchor = UNSAFE_REMOTE_ENTRY
    exit_case = "a remote refused whole: objects git refuses, more than a sync reads"


class SyncFetchTooLarge(SyncRemoteUnsafe):
    """The remote's changes add up to more than a sync reads (`core.sync.bounds.FETCH_MAX`);
    nothing was read or written."""

    runbook_anchor = UNSAFE_REMOTE_ENTRY


class SyncRemoteTampered(SyncRemoteError):
    """The remote holds what no key holder wrote (a forged marker or manifest, a swapped
    recipient); refused before anything was written."""

    exit_code = ExitCode.DAMAGED
    runbook_anchor = TAMPERED_ENTRY
    exit_case = "a remote changed by someone without the key; nothing was written"


class SyncJoinRefused(SyncRemoteTampered):
    """`sync join` onto a remote that holds files the join's checks refused (written without
    the key, outside the layout, too large): the join writes nothing over the remote and
    this machine does not sync with it."""

    runbook_anchor = JOIN_REFUSED_ENTRY
    exit_case = "a join refused: the remote holds files its checks refused"


class SyncManifestInvalid(SyncError):
    """A manifest on the remote that is not a format-2 manifest or whose MAC is wrong: it
    vouches for nothing, and the sync's report names it."""

    runbook_anchor = TAMPERED_ENTRY


class SyncConflictUnknown(SyncError, LookupError):
    """`sync resolve` of a decision that has no sync conflict."""

    exit_code = ExitCode.NOT_FOUND
    runbook_anchor = CONFLICT_ENTRY
    exit_case = "`sync resolve` of a decision without a sync conflict"


class SyncConflictPending(SyncError):
    """A correction, delete or restore of a decision that waits for a choice of version, not
    asked to settle that conflict; nothing was written."""

    exit_code = ExitCode.WRONG_STATE
    runbook_anchor = CONFLICT_ENTRY
    exit_case = "a change to a decision waiting for a choice of version after a sync"


class SyncCancelled(SyncError):
    """The sync was cancelled (the app is quitting); the next sync resumes it."""

    runbook_anchor = INTERRUPTED_ENTRY


class SyncGitMissing(SyncError):
    """The `git` program sync runs is not installed or not on PATH."""

    runbook_anchor = GIT_MISSING_ENTRY
    exit_case = "git is not installed"


# --- how each surface reports an error -----------------------------------------------------


def _subclasses(kind: type[JournalError]) -> list[type[JournalError]]:
    """Every subclass of kind, the more general before the more specific."""
    found: list[type[JournalError]] = []
    queue = [kind]
    while queue:
        current = queue.pop(0)
        found.append(current)
        queue.extend(sub for sub in current.__subclasses__() if sub not in found)
    return found


def error_classes() -> list[type[JournalError]]:
    """Every error class of the family, `JournalError` first (the table tests read it)."""
    return _subclasses(JournalError)


def wire_kind(code: int) -> type[JournalError] | None:
    """The most general error class that declares `code` as its wire code, if one does."""
    for kind in _subclasses(JournalError):
        if kind.wire_code == code and code != ErrorCode.INTERNAL_ERROR:
            return kind
    return None


def exit_code_of(error: BaseException) -> int:
    """The CLI's exit code for error: its class's, or for an error that came over the wire
    (or is going onto it) that of the class declaring its code; 1 for anything else."""
    if isinstance(error, ProtocolError | RemoteError):
        if error.code in ProtocolError.INPUT_CODES:
            return ExitCode.INVALID
        kind = wire_kind(error.code)
        return kind.exit_code if kind is not None else ExitCode.UNEXPECTED
    if isinstance(error, JournalError):
        return error.exit_code
    return ExitCode.UNEXPECTED


# --- describing an error to a person -------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Description:
    """What a person is told about an error, in parts an adapter can place.

    `str()` gives the one line the CLI prints and the GUI shows: the message, then in
    parentheses the field and limit it names and the runbook entry that explains it. The
    socket protocol sends the parts apart (`message`, `field`, `limit`, `runbook_path`).
    """

    message: str
    field: str | None = None
    limit: int | None = None
    runbook_anchor: str | None = None
    lists_fields: bool = False
    """The message lists several broken rules, each naming its field, so the line does not
    repeat the first one's field and limit."""

    @property
    def runbook_path(self) -> str | None:
        """The entry as the runbook's source path and anchor, for machine-readable details."""
        return f"{RUNBOOK}#{self.runbook_anchor}" if self.runbook_anchor else None

    def details(self) -> list[str]:
        """What the line adds in parentheses: field, limit, runbook entry."""
        out = []
        if not self.lists_fields:
            if self.field:
                out.append(f"field: {self.field}")
            if self.limit is not None:
                out.append(f"limit: {wording.number(self.limit)}")
        if self.runbook_anchor:
            out.append(runbook.see(self.runbook_anchor))
        return out

    def __str__(self) -> str:
        details = self.details()
        return f"{self.message} ({'; '.join(details)})" if details else self.message


def describe(error: BaseException) -> Description:
    """The one description of any error: the core's carry their field, limit and entry.

    An error from outside the family is described by its message alone (or its type's name
    when it has none); whether to show it at all is the adapter's call.
    """
    message = str(error) or type(error).__name__
    if not isinstance(error, JournalError):
        return Description(message)
    if isinstance(error, InvalidDecision):
        several = isinstance(error, ViolationsError) and len(error.violations) > 1
        return Description(message, error.field, error.limit, error.runbook_anchor, several)
    if isinstance(error, RemoteError | ProtocolError):
        return _described_wire(error)
    return Description(message, runbook_anchor=error.runbook_anchor or None)


def _described_wire(error: RemoteError | ProtocolError) -> Description:
    """An error as the wire carries it, described as the error it came from was."""
    data = error.data
    limit = data.get("limit")
    listed = data.get("violations")
    reference = data.get("runbook")
    anchor = None
    if isinstance(reference, str) and reference.startswith(f"{RUNBOOK}#"):
        anchor = reference.partition("#")[2] or None
    return Description(
        error.message,
        error.field,
        limit if isinstance(limit, int) and not isinstance(limit, bool) else None,
        anchor,
        isinstance(listed, list) and len(listed) > 1,
    )
