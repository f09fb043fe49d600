"""The journal commands' contract: output, files written and exit codes, through a real process."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from tests.factories import two_project_journal
from tests.integration.cli_runner import run_cli


@pytest.fixture
def journal(tmp_path: Path) -> Path:
    return two_project_journal(tmp_path / "journal")


def test_list_human_and_json(journal: Path) -> None:
    result = run_cli(journal, "list")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0].split()[:3] == ["ID", "UPDATED", "PROJECT"]
    assert "decision-test-1" in result.stdout and "decision-test-2" in result.stdout
    listed = json.loads(run_cli(journal, "list", "--json", "--kind", "CACHE_POLICY").stdout)
    assert [r["id"] for r in listed] == ["decision-test-2"]
    assert list(listed[0])[:3] == ["schema_version", "id", "revision"]


def test_list_query_and_limit(journal: Path) -> None:
    listed = json.loads(run_cli(journal, "list", "--json", "--query", "invalidation").stdout)
    assert [r["id"] for r in listed] == ["decision-test-2"]
    assert len(json.loads(run_cli(journal, "list", "--json", "--limit", "1").stdout)) == 1
    limited = run_cli(journal, "list", "--limit", "1").stdout.splitlines()
    assert limited[-1] == "1 of 2 decisions, newest first."
    assert "of 2 decisions" not in run_cli(journal, "list", "--limit", "2").stdout


@pytest.mark.parametrize("value", ["0", "-5", "1000001", "ten"])
def test_a_limit_outside_its_range_is_refused(journal: Path, value: str) -> None:
    result = run_cli(journal, "list", "--limit", value)
    assert result.returncode == 2 and result.stdout == ""
    assert (
        f"decision-journal list: error: argument --limit: must be a whole number from 1 to "
        f"1,000,000 (got '{value}')"
    ) in result.stderr


def test_a_project_is_found_by_the_name_the_list_shows_or_by_its_id(journal: Path) -> None:
    for name in ("other", "OTHER", "project-other"):
        listed = json.loads(run_cli(journal, "list", "--json", "--project", name).stdout)
        assert [r["id"] for r in listed] == ["decision-test-2"], name
    unknown = run_cli(journal, "list", "--project", "payments-api")
    assert unknown.returncode == 5
    assert unknown.stderr == (
        "decision-journal: error: no project has the id or name 'payments-api'; the journal's "
        "projects: kernforge, other\n"
    )


def test_show_json_is_the_file(journal: Path) -> None:
    result = run_cli(journal, "show", "decision-test-1", "--json")
    assert result.returncode == 0
    assert result.stdout == (journal / "records" / "decision-test-1.json").read_text()
    human = run_cli(journal, "show", "decision-test-1").stdout
    assert "Why not Single JSON document: global rewrite bottleneck" in human


def test_edit_delete_restore_history(journal: Path) -> None:
    edited = run_cli(
        journal,
        "edit",
        "decision-test-1",
        "--expected-revision",
        "1",
        "--select",
        "single-json",
        "--reason",
        "simpler to back up",
        "--reject",
        "per-record-json=too many small files",
    )
    assert edited.returncode == 0, edited.stderr
    record = json.loads(run_cli(journal, "show", "decision-test-1", "--json").stdout)
    assert record["selected_option_id"] == "single-json"
    assert record["provenance"]["selection"] == "user"
    assert "simpler to back up" in record["summary_sentence"]

    stale = run_cli(journal, "edit", "decision-test-1", "--expected-revision", "1", "--tags", "x")
    assert stale.returncode == 4
    assert "revision-conflict" in stale.stderr

    noop = run_cli(
        journal,
        "edit",
        "decision-test-1",
        "--expected-revision",
        "2",
        "--reason",
        "simpler to back up",
    )
    assert noop.returncode == 2 and "does not change" in noop.stderr

    assert run_cli(journal, "delete", "decision-test-1", "--expected-revision", "2").returncode == 0
    assert "decision-test-1" not in run_cli(journal, "list").stdout
    assert "decision-test-1" in run_cli(journal, "list", "--include-deleted").stdout
    assert (
        run_cli(journal, "restore", "decision-test-1", "--expected-revision", "3").returncode == 0
    )
    history = json.loads(run_cli(journal, "history", "decision-test-1", "--json").stdout)
    assert [(r["revision"], r["status"]) for r in history] == [
        (1, "completed"),
        (2, "corrected"),
        (3, "deleted"),
        (4, "corrected"),
    ]


def test_restore_of_a_decision_that_is_not_deleted_says_so(journal: Path) -> None:
    result = run_cli(journal, "restore", "decision-test-1", "--expected-revision", "1")
    assert result.returncode == 7
    assert result.stderr == (
        "decision-journal: error: decision decision-test-1 is not deleted (completed, revision "
        "1); only a deleted decision can be restored\n"
    )
    assert run_cli(journal, "delete", "decision-test-1", "--expected-revision", "1").returncode == 0
    again = run_cli(journal, "delete", "decision-test-1", "--expected-revision", "2")
    assert again.returncode == 7 and "is already deleted; nothing to delete" in again.stderr
    history = json.loads(run_cli(journal, "history", "decision-test-1", "--json").stdout)
    assert len(history) == 2  # neither refusal wrote a revision


def test_a_rejection_without_its_text_is_a_usage_error(journal: Path) -> None:
    result = run_cli(
        journal, "edit", "decision-test-1", "--expected-revision", "1", "--reject", "foo"
    )
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert result.stderr.splitlines()[-1] == (
        "decision-journal edit: error: argument --reject: expected OPTION_ID=TEXT (the rejected "
        "option's id, '=', why it was not chosen), got 'foo'"
    )


def test_help_documents_every_exit_code() -> None:
    from app.cli.main import build_parser

    text = " ".join(build_parser().format_help().split())
    for code in range(8):
        assert f" {code} " in text.split("exit codes:", 1)[1] + " "


def test_invalid_edit_names_field_and_exit_codes(journal: Path) -> None:
    too_long = run_cli(
        journal, "edit", "decision-test-1", "--expected-revision", "1", "--kind", "k" * 200
    )
    assert too_long.returncode == 2
    assert "decision_kind" in too_long.stderr and "128" in too_long.stderr
    missing = run_cli(journal, "show", "decision-missing")
    assert missing.returncode == 5
    usage = run_cli(journal, "edit", "decision-test-1")
    assert usage.returncode == 2


def test_export_goes_to_stdout_unless_told_and_never_overwrites(
    journal: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    result = run_cli(journal, "export", cwd=out)
    assert result.returncode == 0, result.stderr
    public = json.loads(result.stdout)
    assert {"session_id", "workspace", "project_alias", "evidence_refs"}.isdisjoint(public[0])
    assert os.listdir(out) == []  # nothing lands in the current folder
    into_folder = run_cli(journal, "export", "--format", "csv", "-o", str(out))
    [written] = out.iterdir()
    assert re.fullmatch(r"decision-journal-csv-\d{8}-\d{6}\.csv", written.name)
    assert into_folder.stdout == f"Exported 2 decisions to {written}\n"
    assert oct(os.stat(written).st_mode & 0o777) == "0o600"
    private_path = tmp_path / "private.json"
    run_cli(journal, "export", "--private", "-o", str(private_path))
    assert json.loads(private_path.read_text())[0]["session_id"] == "session-1"
    private_path.write_text("mine")
    refused = run_cli(journal, "export", "-o", str(private_path))
    assert refused.returncode == 2
    assert refused.stderr == (
        f"decision-journal: error: {private_path} exists; add --force to replace it\n"
    )
    assert private_path.read_text() == "mine"
    forced = run_cli(journal, "export", "-o", str(private_path), "--force")
    assert forced.returncode == 0 and json.loads(private_path.read_text())[0]["id"]


def test_one_decision_is_counted_in_the_singular(journal: Path, tmp_path: Path) -> None:
    target = tmp_path / "one.json"
    result = run_cli(journal, "export", "--kind", "cache_policy", "-o", str(target))
    assert result.stdout == f"Exported 1 decision to {target}\n"


def test_export_fails_closed_and_doctor_names_runbook(journal: Path, tmp_path: Path) -> None:
    (journal / "records" / "decision-bad.json").write_text("{not json")
    os.chmod(journal / "records" / "decision-bad.json", 0o600)
    failed = run_cli(journal, "export", "-o", str(tmp_path / "x.json"))
    assert failed.returncode == 6
    assert (
        "unreadable" in failed.stderr
        and "see: decision-journal help runbook unreadable-record;" in failed.stderr
    )
    assert not (tmp_path / "x.json").exists()
    listed = run_cli(journal, "list")
    assert listed.returncode == 0 and "decision-bad.json" in listed.stderr
    doctor = run_cli(journal, "doctor", "--json")
    assert doctor.returncode == 6
    findings = json.loads(doctor.stdout)["findings"]
    assert any(f["runbook"] == "unreadable-record" for f in findings)


def test_doctor_healthy_and_permissions(journal: Path) -> None:
    healthy = run_cli(journal, "doctor")
    assert healthy.returncode == 0 and "healthy" in healthy.stdout
    os.chmod(journal / "records", 0o755)
    loose = run_cli(journal, "doctor")
    assert loose.returncode == 6 and "permissions-too-open" in loose.stdout


def test_import_private_export_elsewhere(journal: Path, tmp_path: Path) -> None:
    exported = tmp_path / "all.json"
    run_cli(journal, "export", "--private", "-o", str(exported))
    other = tmp_path / "other-journal"
    first = run_cli(other, "import", str(exported))
    assert first.returncode == 0, first.stderr
    assert "inserted 2, unchanged 0, conflicting 0" in first.stdout
    again = run_cli(other, "import", str(exported))
    assert "inserted 0, unchanged 2, conflicting 0" in again.stdout
    data = json.loads(exported.read_text())
    data[0]["selection_reason_raw"] = "changed elsewhere"
    exported.write_text(json.dumps(data))
    conflict = run_cli(other, "import", str(exported))
    assert "conflicting 1" in conflict.stdout


def test_no_command_prints_help_and_journal(journal: Path) -> None:
    result = run_cli(journal)
    assert result.returncode == 0
    assert "usage: decision-journal" in result.stdout and str(journal) in result.stdout
