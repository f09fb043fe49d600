"""The error family: one home, a built-in for every kind, one description, one unreadable line."""

from __future__ import annotations

import errno
import importlib
import inspect
import pkgutil

import pytest

import core
from core import errors
from core.errors import (
    ErrorCode,
    InvalidDecision,
    JournalDamaged,
    JournalError,
    NoteInvalid,
    NotFound,
    PendingConflict,
    ProposalInvalid,
    RevisionConflict,
    StorageFailure,
    Violation,
    describe,
    storage_failure,
    unreadable_records,
)
from core.ipc.protocol import (
    Response,
    encode_error_frame,
    error_from_exception,
    parse_server_message,
)
from core.messages import runbook

DEFINED_ELSEWHERE = {
    "core.messages.runbook.UnknownEntry": "core.errors names runbook entries through this module",
    "core.sync.gitrepo.GitFailed": "it reads git's stderr with the marker lists beside it",
    "core.ipc.protocol.CrossFieldError": "raised inside a pydantic validator, it never leaves "
    "the params check, which turns it into the INVALID_PARAMS error naming its field",
}
"""Public exceptions that live beside the code they need, each with the reason."""
BUILT_INS = (ValueError, LookupError, OSError, RuntimeError)


def _core_exceptions() -> list[type[BaseException]]:
    found = []
    for info in pkgutil.walk_packages(core.__path__, "core."):
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if (
                inspect.isclass(value)
                and issubclass(value, BaseException)
                and value.__module__ == module.__name__
                and not name.startswith("_")
            ):
                found.append(value)
    return found


def test_every_public_core_exception_is_defined_in_core_errors() -> None:
    elsewhere = {
        f"{kind.__module__}.{kind.__qualname__}"
        for kind in _core_exceptions()
        if kind.__module__ != "core.errors"
    }
    assert elsewhere <= set(DEFINED_ELSEWHERE), sorted(elsewhere - set(DEFINED_ELSEWHERE))


def test_every_error_of_the_family_is_also_a_built_in_kind() -> None:
    family = [kind for kind in _core_exceptions() if issubclass(kind, JournalError)]
    assert len(family) > 40
    for kind in family:
        if kind in (JournalError, errors.IpcError):
            continue
        assert issubclass(kind, BUILT_INS), kind.__name__
        assert kind.__doc__, kind.__name__


def test_existing_except_clauses_keep_catching() -> None:
    assert isinstance(ProposalInvalid([Violation("problem", "must not be empty")]), ValueError)
    assert isinstance(NotFound("no d-1"), LookupError)
    assert isinstance(errors.AppNotRunning("nobody listens"), ConnectionError)
    assert isinstance(errors.IpcTimeout("late"), TimeoutError)
    failure = storage_failure(OSError(errno.ENOSPC, "No space left"), "write", "/j/r.json")
    assert isinstance(failure, OSError) and isinstance(failure, JournalDamaged)
    assert failure.errno == errno.ENOSPC


def test_a_described_invalid_input_names_its_field_and_limit() -> None:
    described = describe(InvalidDecision("problem is 5000 characters", field="problem", limit=4096))
    assert str(described) == "problem is 5000 characters (field: problem; limit: 4,096)"
    assert described.runbook_path is None


def test_a_description_that_lists_several_fields_does_not_repeat_the_first() -> None:
    two = [Violation("problem", "must not be empty"), Violation("header", "is too long", 64)]
    assert str(describe(NoteInvalid(two))) == str(NoteInvalid(two))
    one = describe(ProposalInvalid([Violation("header", "is too long", 64)]))
    assert str(one).endswith("(field: header; limit: 64)")


def test_a_described_state_points_at_its_runbook_entry() -> None:
    described = describe(PendingConflict("d-1 is pending", pending_id="d-1"))
    assert str(described) == f"d-1 is pending ({runbook.see('decision-pending')})"
    assert described.runbook_path == "docs/runbook.md#decision-pending"


def test_an_error_outside_the_family_is_its_message_or_its_name() -> None:
    assert str(describe(KeyError("d-9"))) == "'d-9'"
    assert str(describe(RuntimeError())) == "RuntimeError"
    assert str(describe(JournalError())) == "JournalError"


@pytest.mark.parametrize(
    ("error", "code"),
    [
        (InvalidDecision("too long", field="problem", limit=4096), ErrorCode.INVALID_PROPOSAL),
        (RevisionConflict("stale", current_revision=3), ErrorCode.REVISION_CONFLICT),
        (unreadable_records(2, "/j/records/a.json", "not JSON"), ErrorCode.JOURNAL_DAMAGED),
    ],
)
def test_the_wire_sends_the_parts_of_the_same_description(
    error: JournalError, code: ErrorCode
) -> None:
    described = describe(error)
    wire = error_from_exception(error)
    assert (wire.code, wire.message, wire.data.get("runbook")) == (
        code,
        described.message,
        described.runbook_path,
    )


def test_the_unreadable_records_message_keeps_the_reference_wording() -> None:
    error = unreadable_records(3, "/j/records/a.json", "invalid JSON")
    assert str(error) == (
        "implementation decision store has 3 unreadable record(s); "
        "first: /j/records/a.json: invalid JSON"
    )
    assert (error.path, error.runbook_anchor) == ("/j/records/a.json", "unreadable-record")
    linked = unreadable_records(1, "/j/records/b.json", "a link", anchor="symlink-or-special-file")
    assert linked.runbook_anchor == "symlink-or-special-file"


def test_a_storage_failure_keeps_its_explained_message() -> None:
    failure = storage_failure(OSError(errno.EROFS, "Read-only"), "write", "/j/r.json")
    assert isinstance(failure, StorageFailure)
    assert str(describe(failure)) == (
        "cannot write /j/r.json: the file system is mounted read-only (Read-only); nothing was "
        f"changed ({runbook.see('read-only-file-system')})"
    )


# --- each class declares its exit code, wire code and runbook entry once ----------------------

_TWO = [Violation("problem", "is required"), Violation("options", "must have 2 to 4", 4)]
_SAMPLES: dict[type[JournalError], JournalError] = {
    sample.__class__: sample
    for sample in (
        JournalError("something the core refused"),
        InvalidDecision("problem is 5,000 bytes", field="problem", limit=4096),
        errors.SensitiveIdentifier("session_id looks like a secret", field="session_id"),
        errors.ViolationsError(_TWO),
        ProposalInvalid([Violation("header", "is 300 bytes; the limit is 256 bytes", 256)]),
        errors.AnswerInvalid([Violation("selection_reason", "is required")]),
        NoteInvalid(_TWO),
        errors.ProfileInvalid("label is too long", field="rules[0].label", limit=256),
        errors.NoChanges("the correction changes nothing"),
        errors.UnknownSource("cannot tell the source's kind", field="source"),
        errors.AnswersInvalid("the answers do not fit the questions"),
        NotFound("decision d-1 not found"),
        errors.SnapshotExpired("the snapshot expired"),
        RevisionConflict("d-1 changed", current_revision=3),
        errors.ProfileConflict("the profile changed", current_revision=2),
        PendingConflict("d-1 is pending", pending_id="d-1"),
        errors.ModeRefused("auto is not recommended for this kind"),
        errors.LockCancelled("the wait for the lock was cancelled"),
        errors.ExportCancelled("the export was cancelled"),
        errors.SnapshotTooLarge("one list is too large"),
        errors.RuntimeDirUnsafe("the socket folder is a link"),
        JournalDamaged("a record is unreadable", path="/j/records/a.json"),
        errors.JournalNotAFolder("the journal is a file", path="/j"),
        errors.UnsafePath("a link in the path", path="/j/records"),
        errors.OversizedFile("too large", path="/j/records/a.json"),
        errors.HistoryBroken("revision 2 is missing", path="/j/history/a"),
        errors.HistoryTampered("digest mismatch", path="/j/history/a"),
        errors.LockUnsafe("the lock file was replaced", path="/j/.lock"),
        errors.PendingDamaged("unreadable", decision_id="d-1", path="/j/pending/d-1.json"),
        errors.ProfileDamaged("profile.json is not JSON", path="/j/profiles/profile.json"),
        storage_failure(OSError(errno.ENOSPC, "No space left"), "write", "/j/records/a.json"),
        errors.ProtocolError(ErrorCode.INVALID_PARAMS, "invalid params: workspace", "workspace"),
        errors.FrameTooLarge(5_000_000, 4_194_304),
        errors.IpcError("the app could not be reached"),
        errors.AppNotRunning("nobody listens"),
        errors.ConnectionLost("the app closed the connection"),
        errors.IpcTimeout("no reply"),
        errors.UnexpectedReply("not a reply"),
        errors.IpcUnsupported("no transport"),
        errors.RemoteError(ErrorCode.PENDING_CONFLICT, "d-1 is pending", {"pending_id": "d-1"}),
        errors.SyncError("the sync stopped"),
        errors.SyncNotConfigured("sync is not set up"),
        errors.SyncAlreadyConfigured("sync is already set up"),
        errors.SyncKeyUnavailable("no keyring"),
        errors.SyncKeyWrong("the key does not open this remote"),
        errors.SyncRemoteError("git refused"),
        errors.SyncRemoteUnsafe("fsck refused an object"),
        errors.SyncFetchTooLarge("the remote's changes are too large"),
        errors.SyncRemoteTampered("a forged manifest"),
        errors.SyncJoinRefused("join refused: 3 files on the remote failed the checks"),
        errors.SyncManifestInvalid("a manifest with a wrong MAC"),
        errors.SyncConflictUnknown("d-1 has no sync conflict"),
        errors.SyncConflictPending("d-1 waits for a choice of version"),
        errors.SyncCancelled("the app is quitting"),
        errors.SyncGitMissing("git is not installed"),
    )
}
"""One error of every class, as the core raises it."""

E, W = errors.ExitCode, ErrorCode
_DECLARED: dict[str, tuple[int, int, str | None]] = {
    "JournalError": (E.UNEXPECTED, W.INTERNAL_ERROR, None),
    "InvalidDecision": (E.INVALID, W.INVALID_PROPOSAL, None),
    "SensitiveIdentifier": (E.INVALID, W.INVALID_PROPOSAL, None),
    "ViolationsError": (E.INVALID, W.INVALID_PROPOSAL, None),
    "ProposalInvalid": (E.INVALID, W.INVALID_PROPOSAL, None),
    "AnswerInvalid": (E.INVALID, W.INVALID_PROPOSAL, None),
    "NoteInvalid": (E.INVALID, W.INVALID_PROPOSAL, None),
    "ProfileInvalid": (E.INVALID, W.INVALID_PROPOSAL, None),
    "NoChanges": (E.INVALID, W.INVALID_PROPOSAL, None),
    "UnknownSource": (E.INVALID, W.INVALID_PROPOSAL, None),
    "AnswersInvalid": (E.UNEXPECTED, W.INTERNAL_ERROR, None),
    "NotFound": (E.NOT_FOUND, W.NOT_FOUND, None),
    "SnapshotExpired": (E.UNEXPECTED, W.INTERNAL_ERROR, None),
    "RevisionConflict": (E.CONFLICT, W.REVISION_CONFLICT, "revision-conflict"),
    "ProfileConflict": (E.CONFLICT, W.REVISION_CONFLICT, "revision-conflict"),
    "PendingConflict": (E.PENDING, W.PENDING_CONFLICT, "decision-pending"),
    "ModeRefused": (E.WRONG_STATE, W.INTERNAL_ERROR, None),
    "LockCancelled": (E.UNEXPECTED, W.INTERNAL_ERROR, None),
    "ExportCancelled": (E.UNEXPECTED, W.INTERNAL_ERROR, None),
    "SnapshotTooLarge": (E.UNEXPECTED, W.INTERNAL_ERROR, None),
    "RuntimeDirUnsafe": (E.UNEXPECTED, W.INTERNAL_ERROR, "socket-dir-unsafe"),
    "JournalDamaged": (E.DAMAGED, W.JOURNAL_DAMAGED, "unreadable-record"),
    "JournalNotAFolder": (E.DAMAGED, W.JOURNAL_DAMAGED, "journal-not-a-folder"),
    "UnsafePath": (E.DAMAGED, W.JOURNAL_DAMAGED, "symlink-or-special-file"),
    "OversizedFile": (E.DAMAGED, W.JOURNAL_DAMAGED, "record-over-size-cap"),
    "HistoryBroken": (E.DAMAGED, W.JOURNAL_DAMAGED, "broken-history-chain"),
    "HistoryTampered": (E.DAMAGED, W.JOURNAL_DAMAGED, "history-tampered"),
    "LockUnsafe": (E.DAMAGED, W.JOURNAL_DAMAGED, "lock-file-replaced"),
    "PendingDamaged": (E.DAMAGED, W.JOURNAL_DAMAGED, "unreadable-record"),
    "ProfileDamaged": (E.DAMAGED, W.JOURNAL_DAMAGED, "profile-corrupt"),
    "StorageFailure": (E.DAMAGED, W.JOURNAL_DAMAGED, "disk-full"),
    "ProtocolError": (E.INVALID, W.INVALID_PARAMS, None),
    "FrameTooLarge": (E.UNEXPECTED, W.FRAME_TOO_LARGE, None),
    "IpcError": (E.UNEXPECTED, W.INTERNAL_ERROR, None),
    "AppNotRunning": (E.UNEXPECTED, W.INTERNAL_ERROR, None),
    "ConnectionLost": (E.UNEXPECTED, W.INTERNAL_ERROR, None),
    "IpcTimeout": (E.UNEXPECTED, W.INTERNAL_ERROR, None),
    "UnexpectedReply": (E.UNEXPECTED, W.INTERNAL_ERROR, None),
    "IpcUnsupported": (E.UNEXPECTED, W.INTERNAL_ERROR, None),
    "RemoteError": (E.PENDING, W.PENDING_CONFLICT, None),
    "SyncError": (E.UNEXPECTED, W.INTERNAL_ERROR, "sync-interrupted"),
    "SyncNotConfigured": (E.WRONG_STATE, W.INTERNAL_ERROR, "sync-not-set-up"),
    "SyncAlreadyConfigured": (E.WRONG_STATE, W.INTERNAL_ERROR, "sync-not-set-up"),
    "SyncKeyUnavailable": (E.INVALID, W.INTERNAL_ERROR, "sync-key-unavailable"),
    "SyncKeyWrong": (E.INVALID, W.INTERNAL_ERROR, "sync-key-wrong"),
    "SyncRemoteError": (E.UNEXPECTED, W.INTERNAL_ERROR, "sync-remote-refused"),
    "SyncRemoteUnsafe": (E.DAMAGED, W.INTERNAL_ERROR, "sync-remote-unsafe"),
    "SyncFetchTooLarge": (E.DAMAGED, W.INTERNAL_ERROR, "sync-remote-unsafe"),
    "SyncRemoteTampered": (E.DAMAGED, W.INTERNAL_ERROR, "sync-remote-tampered"),
    "SyncJoinRefused": (E.DAMAGED, W.INTERNAL_ERROR, "sync-join-refused"),
    "SyncManifestInvalid": (E.UNEXPECTED, W.INTERNAL_ERROR, "sync-remote-tampered"),
    "SyncConflictUnknown": (E.NOT_FOUND, W.INTERNAL_ERROR, "sync-conflict"),
    "SyncConflictPending": (E.WRONG_STATE, W.INTERNAL_ERROR, "sync-conflict"),
    "SyncCancelled": (E.UNEXPECTED, W.INTERNAL_ERROR, "sync-interrupted"),
    "SyncGitMissing": (E.UNEXPECTED, W.INTERNAL_ERROR, "sync-git-missing"),
}
"""The contract: what the CLI exits with, the wire code and the runbook entry of each class."""


def _wire_code(error: JournalError) -> int:
    if isinstance(error, errors.ProtocolError | errors.RemoteError):
        return int(error.code)
    return int(error.wire_code)


def test_every_error_class_has_a_sample_and_a_declared_contract() -> None:
    family = {kind for kind in errors.error_classes() if kind.__module__ == "core.errors"}
    assert family == set(_SAMPLES)
    assert {kind.__name__ for kind in family} == set(_DECLARED)


@pytest.mark.parametrize("kind", list(_SAMPLES), ids=lambda kind: kind.__name__)
def test_each_class_declares_its_exit_code_wire_code_and_runbook_entry(
    kind: type[JournalError],
) -> None:
    error = _SAMPLES[kind]
    exit_code, wire_code, anchor = _DECLARED[kind.__name__]
    assert (errors.exit_code_of(error), _wire_code(error)) == (exit_code, wire_code)
    assert error.runbook_anchor == anchor
    described = describe(error)
    if anchor is not None:
        assert anchor in runbook.entries(), f"resources/runbook.md has no entry {anchor}"
        assert runbook.see(anchor) in str(described)
    field, limit = getattr(error, "field", None), getattr(error, "limit", None)
    if field and not described.lists_fields:
        assert f"field: {field}" in str(described)
    if limit is not None and not described.lists_fields:
        assert f"limit: {limit:,}" in str(described)


@pytest.mark.parametrize("kind", list(_SAMPLES), ids=lambda kind: kind.__name__)
def test_the_wire_round_trips_each_kind(kind: type[JournalError]) -> None:
    """What a client reads back is the error the app raised: its exit code, its words."""
    error = _SAMPLES[kind]
    sent = error_from_exception(error)
    body = encode_error_frame(7, sent)[4:]
    reply = parse_server_message(body)
    assert isinstance(reply, Response) and reply.error is not None
    received = errors.RemoteError(reply.error.code, reply.error.message, reply.error.data)
    if _wire_code(error) == ErrorCode.INTERNAL_ERROR:
        assert received.code == ErrorCode.INTERNAL_ERROR
        assert received.message == f"internal error ({kind.__name__})"  # no text leaks
        return
    assert errors.exit_code_of(received) == errors.exit_code_of(error)
    assert str(describe(received)) == str(describe(error))
    for key, value in error.details().items():
        assert received.data[key] == value
