"""A format-1 remote (name manifests without a MAC, unpadded files) is upgraded by the first
sync of a key holder; a machine cannot join it before that; once upgraded, a downgrade back to
format 1 by someone without the key is refused.

`_to_format_1` rewrites a machine's working copy and the remote the way sync format 1 left
them: every file age-encrypted as it is, `m/<machine>-000001.age` listing the paths, a marker
saying format 1, and this machine's state without any manifest seen.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pyrage
import pytest
from pyrage import x25519

from core.errors import SyncRemoteError
from core.sync import manifests
from core.sync.authenticity import KEY_CHECK_TEXT
from core.sync.engine import SyncEngine
from core.sync.gitrepo import BRANCH, REMOTE
from core.sync.keystore import KeyLocation, load_key
from core.sync.paths import KEY_CHECK, MARKER
from core.sync.report import SYNCED, TAMPERED
from tests.integration.hostile_remote import Attacker, engine_sync, remote_tree
from tests.integration.sync_machines import Machine, assert_kernforge_valid, bare_remote


def _to_format_1(machine: Machine) -> None:
    engine = SyncEngine(machine.root)
    work = engine.files.working_copy
    codec = engine.codec()
    state = engine.files.state()
    recipient = x25519.Recipient.from_str(codec.recipient)
    for name in state.known:
        blob = work / name
        plain = codec.open(blob.read_bytes(), state.blobs[name][1])
        blob.write_bytes(pyrage.encrypt(plain, [recipient]))
    (work / KEY_CHECK).write_bytes(pyrage.encrypt(KEY_CHECK_TEXT, [recipient]))
    config = engine.config()
    for old in (work / "m").iterdir():
        old.unlink()
    legacy = {
        "machine": config.machine,
        "name": config.machine_name,
        "paths": list(state.known.values()),
    }
    (work / "m" / f"{config.machine}-000001.age").write_bytes(
        pyrage.encrypt(json.dumps(legacy).encode(), [recipient])
    )
    marker = {"format": 1, "encrypted": True, "recipient": codec.recipient}
    (work / MARKER).write_text(json.dumps(marker, indent=2) + "\n")
    state.seen, state.blobs = {}, {}
    engine.files.save_state(state)
    head = engine.repo.rev("HEAD")
    assert head is not None
    engine.repo.commit_all(f"sync 2026-11-30T10:00:00Z from {config.machine}", [head])
    engine.repo.run("push", "-q", "--force", REMOTE, f"{BRANCH}:refs/heads/{BRANCH}")
    engine.repo.run("fetch", "-q", REMOTE)


def _join(machine: Machine, url: str, key_file: Path) -> None:
    machine.key_file.parent.mkdir(parents=True, exist_ok=True)
    machine.key_file.write_text(key_file.read_text())
    machine.key_file.chmod(0o600)
    key = load_key(KeyLocation("file", "", str(machine.key_file)))
    SyncEngine(machine.root).join(url, key=key, key_file=str(machine.key_file))


def test_the_first_sync_of_a_key_holder_upgrades_a_format_1_remote(tmp_path: Path) -> None:
    remote, url = bare_remote(tmp_path)
    laptop, desk = Machine.make(tmp_path, "laptop"), Machine.make(tmp_path, "desk")
    laptop.put("decision-laptop-1", "Pick the cache eviction policy")
    laptop.edit("decision-laptop-1", "revision 2")
    laptop.key_file.parent.mkdir(parents=True, exist_ok=True)
    SyncEngine(laptop.root).init(url, encrypt=True, key_file=str(laptop.key_file))
    _to_format_1(laptop)
    machine = SyncEngine(laptop.root).config().machine
    assert f"m/{machine}-000001.age" in remote_tree(remote)
    with pytest.raises(SyncRemoteError, match="format 1"):
        _join(desk, url, laptop.key_file)
    assert not (desk.root / "sync").exists()

    laptop.put("decision-laptop-2", "Written during the upgrade")
    assert engine_sync(laptop).result == SYNCED
    tree = remote_tree(remote)
    assert manifests.name_of(machine) in tree
    assert not any(manifests.is_legacy(n) for n in tree)
    marker = subprocess.run(
        ["git", f"--git-dir={remote}", "show", f"main:{MARKER}"], capture_output=True, check=True
    ).stdout
    assert json.loads(marker)["format"] == manifests.FORMAT

    _join(desk, url, laptop.key_file)
    assert {r.id for r in desk.store.list_with_issues().records} == {
        "decision-laptop-1",
        "decision-laptop-2",
    }
    assert assert_kernforge_valid(desk)["decision-laptop-1"] == [1, 2]
    assert engine_sync(desk).result == SYNCED

    # once upgraded, a format-1 marker and name manifest from someone without the key count
    # for nothing
    mallory = Attacker.of(remote, tmp_path)
    mallory.write(
        MARKER,
        json.dumps({"format": 1, "encrypted": True, "recipient": mallory.recipient}).encode(),
    )
    forged = {"machine": "deadbeef", "name": "mallory", "paths": ["records/decision-evil-1.json"]}
    mallory.write("m/deadbeef-000009.age", mallory.encrypt(json.dumps(forged).encode()))
    mallory.commit()
    mallory.push()
    report = engine_sync(laptop)
    assert {r.name: r.kind for r in report.refused} == {
        MARKER: TAMPERED,
        "m/deadbeef-000009.age": TAMPERED,
    }
    for machine_ in (laptop, desk):
        assert engine_sync(machine_).result == SYNCED
    assert "m/deadbeef-000009.age" not in remote_tree(remote)
