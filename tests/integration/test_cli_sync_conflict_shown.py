"""A decision waiting for a choice of version after a sync says so in `list` and `show`, and
`sync resolve` with a side that names no version is a usage error (exit 2)."""

from __future__ import annotations

from pathlib import Path

from core.record.models import DecisionRecord
from core.store.decisions import DecisionStore
from tests.factories import add_sync_conflict, conflicted_journal, make_record
from tests.integration.cli_runner import run_cli

ID = "decision-test-1"


def test_list_marks_a_conflicted_decision(tmp_path: Path) -> None:
    journal = conflicted_journal(tmp_path / "journal", ID)
    result = run_cli(journal, "list")
    assert result.returncode == 0, result.stderr
    [header, row] = result.stdout.splitlines()
    assert "corrected, sync conflict" in row
    assert header.index("STATUS") == row.index("corrected, sync conflict")


def test_show_names_both_versions_and_how_to_settle(tmp_path: Path) -> None:
    journal = conflicted_journal(tmp_path / "journal", ID)
    result = run_cli(journal, "show", ID)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == f"{ID}  (revision 2, corrected, sync conflict)"
    assert lines[1] == (
        "Conflict:   two versions of revision 2 after a sync: laptop (0a0a0a0a, shown here), "
        "desk (0d0d0d0d); keep one with `decision-journal sync resolve "
        f"{ID} --keep local|remote|MACHINE`"
    )


def test_a_decision_without_conflict_shows_none(tmp_path: Path) -> None:
    journal = conflicted_journal(tmp_path / "journal", ID)
    run_cli(journal, "sync", "resolve", ID, "--keep", "desk")
    assert "conflict" not in run_cli(journal, "list").stdout
    assert "Conflict:" not in run_cli(journal, "show", ID).stdout


def test_resolve_with_a_side_that_names_no_version_is_a_usage_error(tmp_path: Path) -> None:
    journal = conflicted_journal(tmp_path / "journal", ID)
    result = run_cli(journal, "sync", "resolve", ID, "--keep", "sideways")
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith(
        f"decision-journal: error: --keep 'sideways' matches no version of decision {ID}; "
        "versions: 0a0a0a0a (laptop), 0d0d0d0d (desk)"
    )
    assert run_cli(journal, "sync", "resolve", "decision-test-9", "--keep", "local").returncode == 5


def test_the_cli_names_the_conflicts_folder_sync_writes() -> None:
    from app.cli.journal_cmds import CONFLICTS_FOLDER
    from core.sync.paths import CONFLICTS

    assert CONFLICTS_FOLDER == CONFLICTS


def test_confirm_of_an_imported_decision_in_a_sync_conflict_is_refused(tmp_path: Path) -> None:
    journal = tmp_path / "journal"
    store = DecisionStore(journal)
    store.put(make_record(id=ID, tags=["imported"]))
    store.revise(ID, 1, _as_imported)
    add_sync_conflict(journal, ID)
    before = store.get(ID)
    result = run_cli(journal, "confirm", ID)
    assert result.returncode == 2, result.stderr
    assert result.stdout == "confirmed 0, already confirmed 0, failed 1\n"
    assert result.stderr == (
        f"failed: {ID}: decision {ID} was changed on 2 machines (laptop and desk) and waits "
        "for a choice of version; nothing was written\n"
    )
    assert store.get(ID) == before


def _as_imported(record: DecisionRecord) -> None:
    record.provenance.selection = "imported"
    record.provenance.rationale = "imported"
