"""The CLI's error line is `describe`'s, and each kind of core error keeps its exit code."""

from __future__ import annotations

import errno
import io

import pytest

from app.cli import exit_codes
from core.errors import (
    InvalidDecision,
    JournalDamaged,
    JournalError,
    NotFound,
    PendingConflict,
    ProposalInvalid,
    RevisionConflict,
    SyncKeyWrong,
    Violation,
    describe,
    unreadable_records,
)
from core.messages import runbook


@pytest.mark.parametrize(
    ("error", "code"),
    [
        (InvalidDecision("problem is too long", field="problem", limit=4096), exit_codes.INVALID),
        (ProposalInvalid([Violation("a", "bad"), Violation("b", "worse")]), exit_codes.INVALID),
        (PendingConflict("d-1 is pending", pending_id="d-1"), exit_codes.PENDING),
        (RevisionConflict("stale", current_revision=2), exit_codes.CONFLICT),
        (NotFound("no decision d-9"), exit_codes.NOT_FOUND),
        (unreadable_records(1, "/j/records/a.json", "not JSON"), exit_codes.DAMAGED),
        (SyncKeyWrong("the key does not open this remote"), exit_codes.INVALID),  # as `sync`
    ],
)
def test_the_error_line_is_the_description_and_the_code_is_kept(
    error: JournalError, code: int
) -> None:
    out = io.StringIO()
    assert exit_codes.report_error(error, out) == code
    assert out.getvalue() == f"decision-journal: error: {describe(error)}\n"


def test_a_full_disk_is_explained_and_fails_closed() -> None:
    out = io.StringIO()
    full = OSError(errno.ENOSPC, "No space left on device")
    full.filename = "/j/records/a.json"
    assert exit_codes.report_error(full, out) == exit_codes.DAMAGED
    assert out.getvalue() == (
        "decision-journal: error: cannot use /j/records/a.json: the disk is full (No space left "
        f"on device); nothing was changed ({runbook.see('disk-full')})\n"
    )


def test_a_damaged_record_names_its_runbook_entry() -> None:
    out = io.StringIO()
    exit_codes.report_error(JournalDamaged("bad bytes", path="/j/r.json"), out)
    assert (
        out.getvalue()
        == f"decision-journal: error: bad bytes ({runbook.see('unreadable-record')})\n"
    )
