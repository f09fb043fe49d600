"""What the sync commands print for a new user: commits that waited, local times, a key file
still to write, a keyring this session lacks; and any command into a closed pipe ends quietly."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from tests.integration import hostile_remote as hostile
from tests.integration.hostile_remote import blob_name
from tests.integration.sync_machines import ROOT, Machine, bare_remote, cli_env, synced_pair


@pytest.fixture
def pair(tmp_path: Path) -> tuple[Machine, Machine, Path]:
    return synced_pair(tmp_path)


def test_commits_that_waited_offline_are_named_when_pushed(
    pair: tuple[Machine, Machine, Path],
) -> None:
    laptop, _, remote = pair
    moved = remote.with_name("away.git")
    shutil.move(remote, moved)
    laptop.put("decision-laptop-2", "Written while offline")
    assert laptop.ok("sync", "now").startswith("Sync: offline, will retry")
    laptop.put("decision-laptop-3", "Also written while offline")
    assert laptop.ok("sync", "now").startswith("Sync: offline, will retry")
    shutil.move(moved, remote)
    assert laptop.ok("sync", "now") == (
        "Synced: 2 waiting commits pushed (from an earlier sync), 0 files received.\n"
    )
    assert laptop.ok("sync", "now") == "Synced: 0 files sent, 0 files received.\n"


def test_plain_status_shows_the_last_sync_in_local_time(
    pair: tuple[Machine, Machine, Path],
) -> None:
    laptop, _, _ = pair
    stamp = json.loads(laptop.ok("sync", "status", "--json"))["last_sync_at"]
    utc = datetime.strptime(stamp[:19], "%Y-%m-%dT%H:%M:%S").replace(tzinfo=UTC)
    india = utc.astimezone(timezone(timedelta(hours=5, minutes=30)))
    out = laptop.run("sync", "status", env={"TZ": "Asia/Kolkata"}).stdout
    assert f"Last sync: {india:%Y-%m-%d %H:%M:%S} IST (synced)" in out, out


def test_join_with_a_key_file_not_written_yet_says_how_to_write_it(
    pair: tuple[Machine, Machine, Path], tmp_path: Path
) -> None:
    other = Machine.make(tmp_path, "other")
    result = other.run(
        "sync", "join", "--remote", f"file://{pair[2]}", "--key-file", str(other.key_file)
    )
    assert result.returncode == 2
    assert f"key file {other.key_file} does not exist; write the pairing string" in result.stderr
    assert f"`chmod 600 {other.key_file}`" in result.stderr
    assert not (other.root / "sync").exists()


def test_status_with_no_usable_keyring_says_it_is_unavailable(
    pair: tuple[Machine, Machine, Path],
) -> None:
    laptop, _, _ = pair
    config_file = laptop.root / "sync/.git/decision-journal/config.json"
    config = json.loads(config_file.read_text())
    config.update(key_kind="keyring", key_file="")
    config_file.write_text(json.dumps(config))
    no_keyring = {"PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}
    out = laptop.run("sync", "status", env=no_keyring).stdout
    key_line = next(line for line in out.splitlines() if line.startswith("Key: "))
    assert key_line.startswith("Key: OS keyring, which is unavailable in this session"), out
    assert "keyring.backends" not in out


def test_a_command_into_a_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    """The reader is gone before the command writes (as `| head -1` is once it has its line):
    no error line, and the code a shell gives a command ended by SIGPIPE."""
    machine = Machine.make(tmp_path, "solo")
    machine.put("decision-pipe-001", "Pick the cache eviction policy")
    for args in (("history", "decision-pipe-001"), ("list",), ("show", "decision-pipe-001")):
        read_end, write_end = os.pipe()
        os.close(read_end)
        try:
            result = subprocess.run(
                [sys.executable, "-m", "app.cli.main", "--journal", str(machine.root), *args],
                cwd=ROOT,
                env=cli_env(),
                stdout=write_end,
                stderr=subprocess.PIPE,
                text=True,
                timeout=120,
            )
        finally:
            os.close(write_end)
        assert (result.returncode, result.stderr) == (141, ""), args


def test_init_of_a_new_journal_names_no_waiting_commit(tmp_path: Path) -> None:
    """`init` pushes its own first commit; it waited for nothing, so nothing says it did."""
    _, url = bare_remote(tmp_path)
    laptop = Machine.make(tmp_path, "laptop")
    out = laptop.init(url)
    assert "Synced: 0 files sent, 0 files received." in out
    assert "waiting" not in out


def test_a_change_received_is_never_called_a_waiting_commit(
    pair: tuple[Machine, Machine, Path],
) -> None:
    """The merge or manifest commit a sync makes for what it received waited for nothing:
    `sync now` names commits as waiting only when an earlier sync made them."""
    laptop, desk, remote = pair
    for n in range(2):
        desk.put(f"decision-desk-{n + 2}", f"Received change {n}")
        desk.ok("sync", "now")
        assert json.loads(laptop.ok("sync", "status", "--json"))["pending_commits"] == 0
        out = laptop.ok("sync", "now")
        assert out.startswith("Synced: 0 files sent, "), out
        assert "waiting commit" not in out and "earlier sync" not in out, out
    # a refused file: this machine's tree then differs from the remote's, so the sync commits
    # its own manifest on top of the remote's commit; that commit waited for nothing either
    name = blob_name(laptop, "records/decision-forged.json")
    hostile.plant(remote, {name: b"age-encryption.org/v1\n-> garbage\n"})
    out = laptop.ok("sync", "now", code=6).splitlines()[0]
    assert out.startswith("Synced with refusals: 0 files sent, 1 file received; 0 applied"), out


def test_status_after_a_failed_sync_shows_no_refusals_of_an_earlier_one(
    pair: tuple[Machine, Machine, Path],
) -> None:
    laptop, _, remote = pair
    honest = hostile.head(remote)
    name = blob_name(laptop, "records/decision-forged.json")
    hostile.plant(remote, {name: b"age-encryption.org/v1\n-> garbage\n"})
    laptop.ok("sync", "now", code=6)
    assert "Refused: 1 file the remote sent" in laptop.ok("sync", "status")
    hidden = laptop.key_file.with_name("away.key")
    laptop.key_file.rename(hidden)
    failed = laptop.run("sync", "now")
    assert failed.returncode != 0, failed.stdout
    status = laptop.ok("sync", "status")
    assert status.startswith("Sync: error"), status
    assert "Refused:" not in status, status
    hidden.rename(laptop.key_file)
    hostile.reset(remote, honest)
    laptop.ok("sync", "now")
    status = laptop.ok("sync", "status")
    assert status.startswith("Sync: synced") and "Refused:" not in status, status
