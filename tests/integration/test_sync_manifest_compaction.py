"""Manifest compaction with two machines (and a third that joins after) over a bare git remote.

The bound is lowered so a few syncs pass it. The laptop compacts and pushes while the desk,
offline, writes records and compacts its own copy; when the desk comes back its merge meets
the laptop's removals and folded manifest. Both must end with the same manifests (one folded
file each, not one per sync), the same journal, and a machine that joins afterwards must read
every path and know both machines' names.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from core.sync import manifests
from core.sync.crypto import AgeCodec
from core.sync.engine import SyncEngine
from core.sync.gitrepo import BRANCH, REMOTE
from core.sync.keystore import KeyLocation, load_key
from core.sync.manifests import Manifest
from core.sync.report import OFFLINE, SYNCED
from tests.integration.sync_machines import Machine, assert_kernforge_valid, bare_remote

BOUND = 3
ROUNDS = BOUND + 2
"""Syncs that each name a new record: enough to pass the bound on each machine."""


def _engine(machine: Machine) -> SyncEngine:
    return SyncEngine(machine.root)


def _join(machine: Machine, url: str, key_file: Path) -> None:
    machine.key_file.parent.mkdir(parents=True, exist_ok=True)
    machine.key_file.write_text(key_file.read_text())
    machine.key_file.chmod(0o600)
    key = load_key(KeyLocation("file", "", str(machine.key_file)))
    _engine(machine).join(url, key=key, key_file=str(machine.key_file))


def _manifests(machine: Machine) -> list[str]:
    return manifests.listed(_engine(machine).files.working_copy)


def _listed_paths(machine: Machine) -> set[str]:
    engine = _engine(machine)
    codec = engine.codec()
    assert isinstance(codec, AgeCodec)
    folder = engine.files.working_copy
    return {
        path
        for name in _manifests(machine)
        for path in Manifest.decode(codec.open((folder / name).read_bytes())).paths
    }


def _ids(machine: Machine) -> set[str]:
    return {r.id for r in machine.store.list_with_issues().records}


def _remote_manifests(remote: Path) -> list[str]:
    """The manifests in the remote's branch, as the next machine to join would see them."""
    out = subprocess.run(
        ["git", "ls-tree", "-r", "--name-only", BRANCH],
        cwd=remote,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return sorted((n for n in out.split() if manifests.is_manifest(n)), key=manifests.listed_key)


def _set_remote(machine: Machine, url: str) -> None:
    _engine(machine).repo.run("remote", "set-url", REMOTE, url)


@pytest.fixture(autouse=True)
def low_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(manifests, "BOUND", BOUND)


def test_concurrent_compactions_converge_and_a_late_joiner_reads_every_path(
    tmp_path: Path,
) -> None:
    remote, url = bare_remote(tmp_path)
    laptop, desk, late = (Machine.make(tmp_path, n) for n in ("laptop", "desk", "late"))
    laptop.put("decision-laptop-0", "The first decision")
    laptop.key_file.parent.mkdir(parents=True, exist_ok=True)
    _engine(laptop).init(url, encrypt=True, key_file=str(laptop.key_file))
    _join(desk, url, laptop.key_file)
    _set_remote(desk, f"file://{tmp_path / 'unplugged.git'}")
    for n in range(1, ROUNDS + 1):
        laptop.put(f"decision-laptop-{n}", f"Laptop decision {n}")
        assert _engine(laptop).sync().result == SYNCED
        desk.put(f"decision-desk-{n}", f"Desk decision {n}")
        assert _engine(desk).sync().result == OFFLINE
    # each compacted on its own: far fewer manifests than syncs that named new paths
    assert len(_manifests(laptop)) <= BOUND
    assert len(_manifests(desk)) <= BOUND
    _set_remote(desk, url)
    assert _engine(desk).sync().result == SYNCED
    assert _engine(laptop).sync().result == SYNCED
    assert _manifests(laptop) == _manifests(desk) == _remote_manifests(remote)
    assert len(_manifests(laptop)) <= BOUND
    assert _ids(laptop) == _ids(desk)
    assert len(_ids(laptop)) == 1 + 2 * ROUNDS
    _join(late, url, laptop.key_file)
    assert _ids(late) == _ids(laptop)
    for machine in (laptop, desk, late):
        assert_kernforge_valid(machine)
        assert {f"records/{i}.json" for i in _ids(machine)} <= _listed_paths(machine)
    names = _engine(late).files.state().machines
    assert {_engine(laptop).config().machine, _engine(desk).config().machine} <= set(names)
