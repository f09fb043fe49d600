"""The CLI on a damaged or unwritable journal: one clear line naming the runbook entry, exit
6, nothing changed; `help runbook` prints the entry; `doctor --repair` does the safe repairs."""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.store.temp_sweep import STALE_AFTER_SECONDS
from tests.core.support.safefs_tmpfs import fill, mounted_tmpfs
from tests.factories import two_project_journal
from tests.integration.cli_runner import ROOT, run_cli

RECORD = "decision-test-1"


@pytest.fixture
def journal(tmp_path: Path) -> Path:
    root = two_project_journal(tmp_path / "journal")
    for expected in (1, 2):
        edited = run_cli(
            root,
            "edit",
            RECORD,
            "--expected-revision",
            str(expected),
            "--reason",
            f"reason {expected}",
        )
        assert edited.returncode == 0, edited.stderr
    return root


def _history(journal: Path) -> Path:
    return journal / "history" / RECORD


def _edit(journal: Path) -> subprocess.CompletedProcess[str]:
    return run_cli(
        journal, "edit", RECORD, "--expected-revision", "3", "--reason", "a fourth reason"
    )


def _assert_refused(result: subprocess.CompletedProcess[str], anchor: str) -> None:
    assert result.returncode == 6, result.stderr
    [line] = result.stderr.splitlines()
    assert line.startswith("decision-journal: error: ")
    assert f"see: decision-journal help runbook {anchor}; " in line
    assert f"resources/runbook.md#{anchor}" in line


def test_edit_delete_and_restore_refuse_a_history_with_a_gap(journal: Path) -> None:
    (_history(journal) / "revision-000001.json").unlink()
    before = (journal / "records" / f"{RECORD}.json").read_bytes()
    for command in ("edit", "delete", "restore"):
        args = ["--reason", "x"] if command == "edit" else []
        result = run_cli(journal, command, RECORD, "--expected-revision", "3", *args)
        if command == "restore":  # the state check runs first: it is not deleted
            assert result.returncode == 7
            continue
        _assert_refused(result, "broken-history-chain")
        assert "missing revision 1" in result.stderr
    assert (journal / "records" / f"{RECORD}.json").read_bytes() == before


def test_an_edited_history_revision_is_refused_and_doctor_names_it(journal: Path) -> None:
    path = _history(journal) / "revision-000002.json"
    path.write_bytes(path.read_bytes().replace(b"reason 1", b"reason one"))
    _assert_refused(_edit(journal), "history-tampered")
    doctor = run_cli(journal, "doctor", "--json")
    assert doctor.returncode == 6
    [finding] = json.loads(doctor.stdout)["findings"]
    assert finding["runbook"] == "history-tampered"
    assert "revision-000002.json was changed after it was written" in finding["problem"]


def test_a_fifo_in_place_of_the_lock_is_named_not_a_stream_error(journal: Path) -> None:
    lock = journal / "records" / f"{RECORD}.json.lock"
    lock.unlink()
    os.mkfifo(lock, 0o600)
    result = _edit(journal)
    _assert_refused(result, "lock-file-replaced")
    assert "lock file is not a regular file" in result.stderr
    assert "seekable" not in result.stderr


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    with mounted_tmpfs(tmp_path) as mount_point:
        yield mount_point


def test_a_full_disk_is_named_with_its_entry_and_leaves_no_temp_file(small_disk: Path) -> None:
    journal = two_project_journal(small_disk / "journal")
    fill(small_disk)
    result = run_cli(journal, "edit", RECORD, "--expected-revision", "1", "--reason", "new")
    _assert_refused(result, "disk-full")
    assert "the disk is full" in result.stderr and "nothing was changed" in result.stderr
    assert [p for p in journal.rglob("*") if ".tmp-" in p.name] == []
    assert json.loads(run_cli(journal, "show", RECORD, "--json").stdout)["revision"] == 1


def test_help_runbook_prints_an_entry_and_lists_them(journal: Path) -> None:
    entry = run_cli(journal, "help", "runbook", "broken-history-chain")
    assert entry.returncode == 0, entry.stderr
    assert entry.stdout.startswith("## broken-history-chain\n\n**You see:**")
    assert "resources/runbook.md#broken-history-chain)" in entry.stdout
    listing = run_cli(journal, "help", "runbook")
    assert listing.stdout.splitlines()[0].endswith("resources/runbook.md")
    assert "  disk-full" in listing.stdout.splitlines()
    unknown = run_cli(journal, "help", "runbook", "no-such-entry")
    assert unknown.returncode == 2 and "entries: app-not-running" in unknown.stderr
    commands = run_cli(journal, "help")
    assert commands.returncode == 0 and commands.stdout.startswith("usage: decision-journal")
    assert "help" in commands.stdout and "exit codes:" in commands.stdout


def test_doctor_repair_removes_stale_temp_files_and_writes_missing_digests(
    journal: Path,
) -> None:
    (_history(journal) / "revision-000001.json.sha256").unlink()
    stale = _history(journal) / ".revision-000003.json.tmp-0123456789ab"
    stale.write_bytes(b"{")
    stale.chmod(0o600)
    moment = time.time() - STALE_AFTER_SECONDS - 60
    os.utime(stale, (moment, moment))
    checked = run_cli(journal, "doctor")
    assert checked.returncode == 6  # the temp file is a finding until it is removed
    assert "1 history revision written before digests were kept" in checked.stdout
    repaired = run_cli(journal, "doctor", "--repair")
    assert repaired.returncode == 0, repaired.stdout
    assert repaired.stdout.splitlines()[:3] == [
        "Removed 1 stale temporary file.",
        "Wrote 1 history digest (revisions that had none).",
        f"Journal {journal} is healthy.",
    ]
    assert not stale.exists()
    assert (_history(journal) / "revision-000001.json.sha256").is_file()
    again = json.loads(run_cli(journal, "doctor", "--repair", "--json").stdout)
    assert (again["removed_temp_files"], again["history_digests_written"]) == ([], 0)
    assert _edit(journal).returncode == 0


def test_import_into_a_read_only_journal_says_so_once_and_exits_6(small_disk: Path) -> None:
    journal = two_project_journal(small_disk / "journal")
    before = sorted(p.name for p in (journal / "records").iterdir())
    subprocess.run(["mount", "-o", "remount,ro", str(small_disk)], check=True)
    source = ROOT / "tests" / "data" / "importers" / "claude" / "projects"
    result = run_cli(journal, "import", str(source))
    _assert_refused(result, "read-only-file-system")
    assert "the file system is mounted read-only" in result.stderr
    assert result.stdout == ""
    assert sorted(p.name for p in (journal / "records").iterdir()) == before
