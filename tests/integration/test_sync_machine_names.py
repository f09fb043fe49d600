"""Machines the user named: two machines with one host name are told apart in `sync status`,
a rename reaches the other machines, and a bad name is refused naming the limit."""

from __future__ import annotations

import json
from pathlib import Path

from core.sync.state import StateFiles
from tests.integration.sync_machines import Machine, bare_remote


def _named_pair(tmp_path: Path) -> tuple[Machine, Machine]:
    _, url = bare_remote(tmp_path)
    laptop, desk = Machine.make(tmp_path, "laptop"), Machine.make(tmp_path, "desk")
    laptop.put("decision-shared-1", "Pick the cache policy")
    laptop.key_file.parent.mkdir(parents=True, exist_ok=True)
    laptop.ok(
        "sync", "init", "--remote", url, "--key-file", str(laptop.key_file), "--name", "Work laptop"
    )
    desk.key_file.parent.mkdir(parents=True, exist_ok=True)
    desk.key_file.write_text(laptop.pairing() + "\n")
    desk.key_file.chmod(0o600)
    desk.ok("sync", "join", "--remote", url, "--key-file", str(desk.key_file), "--name", "Desk")
    laptop.ok("sync", "now")
    return laptop, desk


def test_two_machines_with_one_host_name_are_told_apart(tmp_path: Path) -> None:
    laptop, desk = _named_pair(tmp_path)
    laptop.edit("decision-shared-1", "laptop's reason")
    desk.edit("decision-shared-1", "desk's reason")
    desk.ok("sync", "now")
    laptop.ok("sync", "now", code=4)
    status = json.loads(laptop.ok("sync", "status", "--json"))
    assert status["machine_name"] == "Work laptop"
    text = laptop.ok("sync", "status")
    here = status["machine"]
    assert f"Machine: Work laptop ({here};" in text
    conflict = next(line for line in text.splitlines() if line.startswith("Conflict "))
    assert f"Work laptop ({here}, this machine)" in conflict
    assert "Desk (" in conflict and conflict.count("this machine") == 1


def test_a_rename_reaches_the_other_machine(tmp_path: Path) -> None:
    laptop, desk = _named_pair(tmp_path)
    out = desk.ok("sync", "name", "Desk upstairs")
    assert "Desk upstairs" in out
    desk.ok("sync", "now")
    laptop.ok("sync", "now")
    desk_id = StateFiles(desk.root).config().machine
    assert StateFiles(laptop.root).state().machines[desk_id] == "Desk upstairs"


def test_a_bad_name_is_refused_naming_the_limit(tmp_path: Path) -> None:
    laptop, _ = _named_pair(tmp_path)
    result = laptop.run("sync", "name", "x" * 41)
    assert result.returncode == 2, result
    assert "name" in result.stderr and "40" in result.stderr
    assert StateFiles(laptop.root).config().machine_name == "Work laptop"
