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
from core.ipc.protocol import error_from_exception
from core.messages import runbook

DEFINED_ELSEWHERE = {
    "core.messages.runbook.UnknownEntry": "core.errors names runbook entries through this module",
    "core.sync.gitrepo.GitFailed": "it reads git's stderr with the marker lists beside it",
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
    assert str(described) == "problem is 5000 characters (field: problem; limit: 4096)"
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
