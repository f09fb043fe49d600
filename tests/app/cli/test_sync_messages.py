"""Every `sync` failure and waiting state the CLI prints names its runbook entry, which exists."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from app.cli.main import main
from core.messages import runbook
from core.store.decisions import DecisionStore
from core.sync.engine import SyncEngine
from tests.factories import make_record
from tests.integration.sync_machines import bare_remote


def run(capsys: pytest.CaptureFixture[str], journal: Path, *args: str) -> tuple[int, str, str]:
    code = main(["--journal", str(journal), "sync", *args])
    out, err = capsys.readouterr()
    return code, out, err


def named_entry(text: str) -> str:
    """The entry a line names as `see: decision-journal help runbook ENTRY; …`."""
    marker = f"see: {runbook.HELP_COMMAND} "
    assert marker in text, text
    entry = text.split(marker, 1)[1].split(";", 1)[0]
    assert entry in runbook.entries()
    return entry


@pytest.fixture
def plain(tmp_path: Path) -> tuple[Path, Path]:
    """A journal syncing with a plain (unencrypted) bare remote."""
    journal = tmp_path / "journal"
    remote, url = bare_remote(tmp_path)
    SyncEngine(journal).init(url, encrypt=False)
    return journal, remote


def test_a_journal_that_does_not_sync_says_how_to_set_it_up(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, err = run(capsys, tmp_path / "journal", "now")
    assert code == 7
    assert "does not sync yet" in err
    assert named_entry(err) == "sync-not-set-up"


def test_offline_names_its_entry_and_exits_0(
    capsys: pytest.CaptureFixture[str], plain: tuple[Path, Path]
) -> None:
    journal, remote = plain
    shutil.move(remote, remote.with_name("away.git"))
    code, out, _ = run(capsys, journal, "now")
    assert code == 0
    assert out.startswith("Sync: offline, will retry (")
    assert named_entry(out) == "sync-offline"


def test_a_journal_set_up_twice_or_without_a_key_names_the_set_up_entry(
    capsys: pytest.CaptureFixture[str], plain: tuple[Path, Path], tmp_path: Path
) -> None:
    journal, _ = plain
    code, _, err = run(capsys, journal, "init", "--remote", "file:///nowhere.git")
    assert code == 7 and named_entry(err) == "sync-not-set-up"
    code, _, err = run(capsys, journal, "export-key")
    assert code == 7 and "there is no key" in err and named_entry(err) == "sync-not-set-up"


def test_sync_off_with_commits_waiting_names_its_entry(
    capsys: pytest.CaptureFixture[str], plain: tuple[Path, Path]
) -> None:
    journal, remote = plain
    shutil.move(remote, remote.with_name("away.git"))
    DecisionStore(journal).put(make_record(id="decision-offline-1", problem="Waits"))
    assert run(capsys, journal, "now")[0] == 0
    code, _, err = run(capsys, journal, "off")
    assert code == 7
    assert "1 local commit not yet on the remote" in err
    assert named_entry(err) == "sync-not-set-up"


def test_a_join_with_a_damaged_pairing_string_names_the_wrong_key_entry(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    key_file = tmp_path / "pairing.key"
    key_file.write_text("AGE-SECRET-KEY-1NOTAKEY\n")
    key_file.chmod(0o600)
    code, _, err = run(
        capsys,
        tmp_path / "joined",
        "join",
        "--remote",
        "file:///x.git",
        "--key-file",
        str(key_file),
    )
    assert code == 2
    assert named_entry(err) == "sync-key-wrong"


def test_every_sync_entry_prints_through_help(capsys: pytest.CaptureFixture[str]) -> None:
    sync_entries = [name for name in runbook.entries() if name.startswith("sync-")]
    for name in sync_entries:
        assert main(["help", "runbook", name]) == 0
        out = capsys.readouterr().out
        assert out.startswith(f"## {name}\n")


def test_commits_pushed_again_after_a_rollback_are_not_called_waiting() -> None:
    """After the remote went back, this machine's own commits go out again: they did not
    wait from an earlier sync, which `sync status` (0 waiting) would contradict."""
    from app.cli.sync_cmds import _what_moved
    from core.sync.report import ROLLBACK, Refusal, SyncReport

    rolled = Refusal("m/8d6a7495.age", ROLLBACK, "the remote was rolled back")
    report = SyncReport("refused", waited=3, refused=[rolled])
    assert (
        _what_moved(report) == "3 commits pushed again (the remote had lost them), 0 files received"
    )
    report.sent = 1
    assert _what_moved(report).startswith("1 file sent (and 3 commits pushed again")
    waiting = SyncReport("synced", waited=2)
    assert _what_moved(waiting).startswith("2 waiting commits pushed (from an earlier sync)")
