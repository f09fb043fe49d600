"""The CLI's error line is `describe`'s, each kind of core error keeps its exit code, and `--help`
lists the codes from the error classes' own declarations."""

from __future__ import annotations

import errno
import io
import re

import pytest

from app.cli import exit_codes
from core.errors import (
    ExitCode,
    InvalidDecision,
    JournalDamaged,
    JournalError,
    ModeRefused,
    NotFound,
    PendingConflict,
    ProposalInvalid,
    RevisionConflict,
    SyncError,
    SyncKeyWrong,
    SyncRemoteError,
    Violation,
    describe,
    error_classes,
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


# --- `--help` lists the codes from the classes' declarations ---------------------------------


def _help_by_code(text: str) -> dict[int, str]:
    """Each code's words in an exit-code help line (`2 invalid input or usage (...)`)."""
    body = text.split(": ", 1)[1].rsplit("; each failure", 1)[0]
    parts = re.split(r", (?=\d+ )", body)
    return {int(part.split(" ", 1)[0]): part.split(" ", 1)[1] for part in parts}


def test_every_class_that_declares_an_exit_code_says_when_it_applies() -> None:
    for kind in error_classes()[1:]:  # JournalError's is the default: unexpected
        if "exit_code" in vars(kind):
            assert vars(kind).get("exit_case"), f"{kind.__name__} declares no exit_case"


def test_each_case_is_listed_under_the_code_its_class_declares() -> None:
    listed = _help_by_code(exit_codes.exit_codes_help({}))
    for kind in error_classes():
        case = vars(kind).get("exit_case")
        if case:
            assert case in listed[kind.exit_code], kind.__name__
    assert listed[ExitCode.OK] == "ok"


def test_a_changed_code_moves_in_the_help_by_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    case = ModeRefused.exit_case
    assert case and case in _help_by_code(exit_codes.exit_codes_help({}))[ExitCode.WRONG_STATE]
    monkeypatch.setattr(ModeRefused, "exit_code", ExitCode.CONFLICT)
    monkeypatch.setattr(PendingConflict, "exit_code", ExitCode.CONFLICT)
    listed = _help_by_code(exit_codes.exit_codes_help({}))
    assert case in listed[ExitCode.CONFLICT]
    assert case not in listed[ExitCode.WRONG_STATE]
    assert ExitCode.PENDING not in listed  # no class exits 3 any more, so the help has no 3


def test_the_parser_reads_the_declarations_when_it_is_built(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from app.cli.main import CLOSED_PIPE, build_parser

    monkeypatch.setattr(NotFound, "exit_code", ExitCode.DAMAGED)
    listed = _help_by_code(" ".join(build_parser(listing=True).epilog.split()))  # type: ignore[union-attr]
    assert str(NotFound.exit_case) in listed[ExitCode.DAMAGED]
    assert ExitCode.NOT_FOUND in listed  # `sync resolve` of a decision without a conflict
    assert listed[CLOSED_PIPE] == "the output was closed (| head)"
    assert exit_codes.COMMAND_OUTCOMES[ExitCode.WRONG_STATE] in listed[ExitCode.WRONG_STATE]


def test_the_sync_help_lists_its_outcomes_and_the_sync_errors_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from app.cli import sync_cmds

    def sync_help() -> dict[int, str]:
        return _help_by_code(
            exit_codes.exit_codes_help(
                sync_cmds.SYNC_OUTCOMES, family=SyncError, title="sync exit codes"
            )
        )

    listed = sync_help()
    for code, outcome in sync_cmds.SYNC_OUTCOMES.items():
        assert outcome in listed[code]
    assert str(SyncKeyWrong.exit_case) in listed[ExitCode.INVALID]
    assert str(SyncRemoteError.exit_case) in listed[ExitCode.UNEXPECTED]
    assert str(InvalidDecision.exit_case) not in " ".join(listed.values())
    assert ExitCode.PENDING not in listed
    monkeypatch.setattr(SyncKeyWrong, "exit_code", ExitCode.NOT_FOUND)
    assert str(SyncKeyWrong.exit_case) in sync_help()[ExitCode.NOT_FOUND]
