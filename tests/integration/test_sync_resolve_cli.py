"""`sync resolve` after `sync off`: the conflict folder stays in the journal and still settles."""

from __future__ import annotations

import json
from pathlib import Path

from tests.integration.sync_machines import Machine, assert_kernforge_valid, bare_remote

ID = "decision-laptop-1"


def test_a_conflict_left_by_sync_off_resolves_from_the_cli(tmp_path: Path) -> None:
    _, url = bare_remote(tmp_path)
    laptop, desk = Machine.make(tmp_path, "laptop"), Machine.make(tmp_path, "desk")
    laptop.put(ID, "Pick the cache eviction policy")
    laptop.init(url)
    desk.join(url, laptop.pairing())
    laptop.edit(ID, "from the laptop")
    desk.edit(ID, "from the desk")
    desk.ok("sync", "now")
    laptop.ok("sync", "now", code=4)
    desk_id = json.loads(desk.ok("sync", "status", "--json"))["machine"]
    [conflict] = json.loads(laptop.ok("sync", "status", "--json"))["conflicts"]
    assert desk_id in conflict["versions"]
    laptop.ok("sync", "off", "--force")
    out = laptop.ok("sync", "resolve", ID, "--keep", desk_id)
    assert out.strip().endswith("is revision 3.")
    assert "sync now" not in out
    assert laptop.store.get(ID).selection_reason_raw == "from the desk"
    assert not (laptop.root / "sync-conflicts" / ID).exists()
    assert assert_kernforge_valid(laptop)[ID] == [1, 2, 3]
