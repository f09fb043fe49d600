"""Two machines syncing one journal through a bare git repository (file:// URL), via the CLI.

Every step ends with both journals passing the store's strict read of every record and history
chain (KernForge's format), so a sync never leaves a journal KernForge could not open.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.integration.sync_machines import Machine, assert_kernforge_valid, bare_remote


@pytest.fixture
def pair(tmp_path: Path) -> tuple[Machine, Machine, Path, str]:
    remote, url = bare_remote(tmp_path)
    laptop, desk = Machine.make(tmp_path, "laptop"), Machine.make(tmp_path, "desk")
    laptop.put("decision-laptop-1", "Pick the cache eviction policy")
    laptop.put("decision-laptop-2", "Choose the queue backend")
    assert "3 files sent" not in laptop.init(url)
    desk.put("decision-desk-1", "Decide the log format")
    out = desk.join(url, laptop.pairing())
    assert "2 files received" in out or "received" in out
    laptop.ok("sync", "now")
    return laptop, desk, remote, url


def _ids(machine: Machine) -> set[str]:
    return {r.id for r in machine.store.list_with_issues().records}


def test_first_push_and_join_unite_both_journals(pair: tuple[Machine, Machine, Path, str]) -> None:
    laptop, desk, _, _ = pair
    expected = {"decision-laptop-1", "decision-laptop-2", "decision-desk-1"}
    assert _ids(laptop) == expected
    assert _ids(desk) == expected
    for machine in (laptop, desk):
        assert_kernforge_valid(machine)
    status = json.loads(desk.ok("sync", "status", "--json"))
    assert status["state"] == "synced"
    assert status["encrypted"] is True
    assert status["key_storage"].startswith("key file ")
    assert status["pending_commits"] == 0


def test_edits_on_both_sides_to_different_records_union(
    pair: tuple[Machine, Machine, Path, str],
) -> None:
    laptop, desk, _, _ = pair
    laptop.edit("decision-desk-1", "laptop's reason")
    desk.edit("decision-laptop-1", "desk's reason")
    desk.put("decision-desk-2", "A new one on the desk")
    laptop.ok("sync", "now")
    desk.ok("sync", "now")
    laptop.ok("sync", "now")
    for machine in (laptop, desk):
        chains = assert_kernforge_valid(machine)
        assert chains["decision-desk-1"] == [1, 2]
        assert chains["decision-laptop-1"] == [1, 2]
        store = machine.store
        assert store.get("decision-desk-1").selection_reason_raw == "laptop's reason"
        assert store.get("decision-laptop-1").selection_reason_raw == "desk's reason"
        assert "decision-desk-2" in _ids(machine)
    assert laptop.store.history("decision-desk-1") == desk.store.history("decision-desk-1")


def test_same_record_edited_on_both_is_a_conflict_resolved_through_the_cli(
    pair: tuple[Machine, Machine, Path, str],
) -> None:
    laptop, desk, _, _ = pair
    laptop.edit("decision-laptop-2", "laptop wrote revision 2")
    desk.edit("decision-laptop-2", "desk wrote revision 2")
    laptop.ok("sync", "now")
    out = desk.ok("sync", "now", code=4)
    assert "Conflict: decision-laptop-2 was changed on two machines" in out
    # the desk keeps its own version current; the laptop's is kept beside the journal
    assert desk.store.get("decision-laptop-2").selection_reason_raw == "desk wrote revision 2"
    laptop.ok("sync", "now", code=4)
    for machine in (laptop, desk):
        assert_kernforge_valid(machine)
        status = json.loads(machine.ok("sync", "status", "--json"))
        assert status["state"] == "conflict 1"
        [conflict] = status["conflicts"]
        assert conflict["id"] == "decision-laptop-2"
        assert conflict["fork_revision"] == 2
        assert sorted(v["revisions"] for v in conflict["versions"].values()) == [[2], [2]]
        assert "Conflict decision-laptop-2 from revision 2" in machine.ok("sync", "status")
    # nothing is lost: both versions are on both machines
    for machine in (laptop, desk):
        texts = {
            json.loads(p.read_text())["selection_reason_raw"]
            for p in (machine.root / "sync-conflicts" / "decision-laptop-2").glob("revision-*")
        }
        assert texts == {"laptop wrote revision 2", "desk wrote revision 2"}
    out = laptop.ok("sync", "resolve", "decision-laptop-2", "--keep", "local")
    assert "is revision 3" in out
    laptop.ok("sync", "now")
    desk.ok("sync", "now")
    for machine in (laptop, desk):
        chains = assert_kernforge_valid(machine)
        assert chains["decision-laptop-2"] == [1, 2, 3]
        record = machine.store.get("decision-laptop-2")
        assert record.selection_reason_raw == "laptop wrote revision 2"
        assert not (machine.root / "sync-conflicts" / "decision-laptop-2").exists()
        assert json.loads(machine.ok("sync", "status", "--json"))["conflicts"] == []
    assert laptop.store.history("decision-laptop-2") == desk.store.history("decision-laptop-2")


def test_resolve_keep_remote_and_unknown_ids(pair: tuple[Machine, Machine, Path, str]) -> None:
    laptop, desk, _, _ = pair
    laptop.edit("decision-desk-1", "from the laptop")
    desk.edit("decision-desk-1", "from the desk")
    desk.ok("sync", "now")
    laptop.ok("sync", "now", code=4)
    result = laptop.run("sync", "resolve", "decision-laptop-1", "--keep", "remote")
    assert result.returncode == 5
    assert "decision decision-laptop-1 has no sync conflict" in result.stderr
    laptop.ok("sync", "resolve", "decision-desk-1", "--keep", "remote")
    assert laptop.store.get("decision-desk-1").selection_reason_raw == "from the desk"
    laptop.ok("sync", "now")
    desk.ok("sync", "now")
    assert desk.store.get("decision-desk-1").revision == 3
    assert_kernforge_valid(desk)


def test_deletes_and_restores_travel_as_revisions(pair: tuple[Machine, Machine, Path, str]) -> None:
    laptop, desk, _, _ = pair
    laptop.ok("delete", "decision-desk-1", "--expected-revision", "1")
    laptop.ok("sync", "now")
    desk.ok("sync", "now")
    assert desk.store.get("decision-desk-1").is_deleted
    assert_kernforge_valid(desk)
    desk.ok("restore", "decision-desk-1", "--expected-revision", "2")
    desk.ok("sync", "now")
    laptop.ok("sync", "now")
    record = laptop.store.get("decision-desk-1")
    assert not record.is_deleted
    assert record.revision == 3
    assert assert_kernforge_valid(laptop)["decision-desk-1"] == [1, 2, 3]


def test_offline_remote_is_a_normal_state_and_the_next_sync_pushes(
    pair: tuple[Machine, Machine, Path, str],
) -> None:
    laptop, desk, remote, _ = pair
    moved = remote.with_name("away.git")
    shutil.move(remote, moved)
    laptop.put("decision-laptop-3", "Written while offline")
    out = laptop.ok("sync", "now")
    assert out.startswith("Sync: offline, will retry")
    status = json.loads(laptop.ok("sync", "status", "--json"))
    assert status["state"] == "offline"
    assert status["pending_commits"] == 1
    assert_kernforge_valid(laptop)
    shutil.move(moved, remote)
    laptop.ok("sync", "now")
    desk.ok("sync", "now")
    assert "decision-laptop-3" in _ids(desk)
    assert json.loads(laptop.ok("sync", "status", "--json"))["state"] == "synced"


def test_notes_and_signals_logs_unite_lines_from_both(
    pair: tuple[Machine, Machine, Path, str],
) -> None:
    laptop, desk, _, _ = pair
    laptop.ok("outcome", "decision-laptop-1", "--ci", "pass")
    desk.ok("outcome", "decision-laptop-1", "--ci", "fail")
    laptop.ok("sync", "now")
    desk.ok("sync", "now")
    laptop.ok("sync", "now")
    for machine in (laptop, desk):
        lines = (machine.root / "outcomes" / "signals.ndjson").read_text().splitlines()
        assert sorted(json.loads(line)["ci"] for line in lines) == ["fail", "pass"]
    assert (laptop.root / "outcomes" / "signals.ndjson").read_bytes() != b""


def test_never_moves_caches_pending_or_locks(pair: tuple[Machine, Machine, Path, str]) -> None:
    laptop, desk, _, _ = pair
    for folder in ("cache", "pending", "drafts", "quarantine", "profiles"):
        (laptop.root / folder).mkdir(exist_ok=True)
        (laptop.root / folder / "private.json").write_text('{"stays": "here"}')
    laptop.ok("sync", "now")
    desk.ok("sync", "now")
    for folder in ("pending", "drafts", "quarantine"):
        assert not (desk.root / folder / "private.json").exists()
    assert not (desk.root / "cache" / "private.json").exists()
    assert not (desk.root / "profiles" / "private.json").exists()


def test_profile_and_recall_see_every_synced_decision(
    pair: tuple[Machine, Machine, Path, str],
) -> None:
    laptop, desk, _, _ = pair
    for machine in (laptop, desk):
        profile = json.loads((machine.root / "profiles" / "profile.json").read_text())
        assert profile["record_count"] == 3
        supported = {i for rule in profile["rules"] for i in rule["support_decision_ids"]}
        assert supported == {"decision-laptop-1", "decision-laptop-2", "decision-desk-1"}
    found = json.loads(desk.ok("recall", "cache eviction policy", "--json"))
    assert found[0]["id"] == "decision-laptop-1"
    found = json.loads(laptop.ok("recall", "log format", "--json"))
    assert found[0]["id"] == "decision-desk-1"


def test_sync_off_keeps_the_journal_and_refuses_while_commits_wait(
    pair: tuple[Machine, Machine, Path, str],
) -> None:
    laptop, _, remote, _ = pair
    shutil.move(remote, remote.with_name("away.git"))
    laptop.put("decision-laptop-9", "Not pushed yet")
    laptop.ok("sync", "now")
    refused = laptop.run("sync", "off")
    assert refused.returncode == 7
    assert "1 local commit not yet on the remote" in refused.stderr
    before = assert_kernforge_valid(laptop)
    assert "Sync is off; the journal is unchanged and the key is kept" in laptop.ok(
        "sync", "off", "--force"
    )
    assert not (laptop.root / "sync").exists()
    assert assert_kernforge_valid(laptop) == before
    assert laptop.key_file.exists()
    assert laptop.ok("sync", "status").startswith("Sync: off")
    again = laptop.run("sync", "now")
    assert again.returncode == 7
    assert "does not sync yet" in again.stderr
