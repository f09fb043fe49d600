"""Authenticated manifests with two machines (and a third that joins after) over a bare remote.

The desk goes offline and writes records while the laptop keeps syncing; when it comes back
both must end with one manifest per machine (rewritten, never one per sync), the same journal,
and a machine that joins afterwards must read every path and know both machines' names.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from core.sync import authenticity, manifests
from core.sync.engine import SyncEngine
from core.sync.gitrepo import BRANCH, REMOTE
from core.sync.keystore import KeyLocation, load_key
from core.sync.report import OFFLINE, SYNCED
from core.sync.workcopy import WorkingCopy
from tests.integration.sync_machines import Machine, assert_kernforge_valid, bare_remote

ROUNDS = 4


def _engine(machine: Machine) -> SyncEngine:
    return SyncEngine(machine.root)


def _join(machine: Machine, url: str, key_file: Path) -> None:
    machine.key_file.parent.mkdir(parents=True, exist_ok=True)
    machine.key_file.write_text(key_file.read_text())
    machine.key_file.chmod(0o600)
    key = load_key(KeyLocation("file", "", str(machine.key_file)))
    _engine(machine).join(url, key=key, key_file=str(machine.key_file))


def _work(machine: Machine) -> WorkingCopy:
    engine = _engine(machine)
    return WorkingCopy(
        root=engine.root,
        working_copy=engine.files.working_copy,
        codec=engine.codec(),
        config=engine.config(),
        index=engine.files.index(),
        state=engine.files.state(),
    )


def _held(machine: Machine) -> dict[str, manifests.Manifest]:
    return authenticity.held_manifests(_work(machine))


def _ids(machine: Machine) -> set[str]:
    return {r.id for r in machine.store.list_with_issues().records}


def _remote_names(remote: Path) -> list[str]:
    out = subprocess.run(
        ["git", "ls-tree", "-r", "--name-only", BRANCH],
        cwd=remote,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return out.split()


def _set_remote(machine: Machine, url: str) -> None:
    _engine(machine).repo.run("remote", "set-url", REMOTE, url)


def test_one_manifest_per_machine_lists_the_whole_tree_and_a_late_joiner_reads_it(
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
    _set_remote(desk, url)
    assert _engine(desk).sync().result == SYNCED
    assert _engine(laptop).sync().result == SYNCED
    machines = {_engine(m).config().machine for m in (laptop, desk)}
    on_remote = sorted(n for n in _remote_names(remote) if n.startswith("m/"))
    assert on_remote == sorted(manifests.name_of(m) for m in machines)
    assert sorted(_held(laptop)) == sorted(_held(desk)) == on_remote
    # every commit's tree is one a key holder listed: some manifest's state is the whole tree
    listing = authenticity.working_listing(_work(laptop))
    assert manifests.state_digest(listing) in {m.state for m in _held(laptop).values()}
    assert set(listing) == {n for n in _remote_names(remote) if not n.startswith("m/")}
    assert _ids(laptop) == _ids(desk)
    assert len(_ids(laptop)) == 1 + 2 * ROUNDS
    _join(late, url, laptop.key_file)
    assert _ids(late) == _ids(laptop)
    for machine in (laptop, desk, late):
        assert_kernforge_valid(machine)
    names = _engine(late).files.state().machines
    assert machines <= set(names)
    seen = _engine(late).files.state().seen
    assert machines <= set(seen) and all(seq >= 1 for seq in seen.values())


def test_a_new_machine_name_travels_in_the_manifest_and_then_syncs_go_quiet(tmp_path: Path) -> None:
    remote, url = bare_remote(tmp_path)
    laptop, desk = Machine.make(tmp_path, "laptop"), Machine.make(tmp_path, "desk")
    laptop.put("decision-laptop-0", "The first decision")
    laptop.key_file.parent.mkdir(parents=True, exist_ok=True)
    _engine(laptop).init(url, encrypt=True, key_file=str(laptop.key_file))
    _join(desk, url, laptop.key_file)
    engine = _engine(laptop)
    config = engine.config()
    config.machine_name = "work-laptop"
    engine.files.save_config(config)
    commits = len(_remote_names(remote))
    assert engine.sync().result == SYNCED
    assert _engine(desk).sync().result == SYNCED
    assert _engine(desk).files.state().machines[config.machine] == "work-laptop"
    settled = subprocess.run(
        ["git", "rev-list", "--count", BRANCH], cwd=remote, capture_output=True, text=True
    ).stdout
    for machine in (laptop, desk):
        assert _engine(machine).sync().result == SYNCED
    assert (
        settled
        == subprocess.run(
            ["git", "rev-list", "--count", BRANCH], cwd=remote, capture_output=True, text=True
        ).stdout
    )
    assert commits == len(_remote_names(remote))


def test_a_lost_digest_cache_lists_the_same_lengths_and_commits_nothing(tmp_path: Path) -> None:
    """After a kill the blob digest cache may be stale or gone: the listing is rebuilt from the
    files, with each plaintext length from the manifest that lists those bytes (or from the
    journal file), so nothing is rewritten and no padding is ever taken for content."""
    remote, url = bare_remote(tmp_path)
    laptop, desk = Machine.make(tmp_path, "laptop"), Machine.make(tmp_path, "desk")
    laptop.put("decision-laptop-0", "The first decision")
    laptop.key_file.parent.mkdir(parents=True, exist_ok=True)
    _engine(laptop).init(url, encrypt=True, key_file=str(laptop.key_file))
    laptop.put("decision-laptop-1", "Written before the cache was lost")
    work = _work(laptop)
    listed = {n: e.length for n, e in authenticity.working_listing(work).items()}
    engine = _engine(laptop)
    state = engine.files.state()
    state.blobs = {}
    engine.files.save_state(state)
    work = _work(laptop)
    rebuilt = authenticity.working_listing(work, authenticity.held_manifests(work))
    unlisted = {n for n in rebuilt if n not in listed}
    assert {n: e.length for n, e in rebuilt.items() if n not in unlisted} == listed
    for name in unlisted:  # the new record's blob, not yet listed: its length is the file's
        path = rebuilt[name].path
        assert rebuilt[name].length == len((laptop.root / path).read_bytes())
    commits = subprocess.run(
        ["git", "rev-list", "--count", BRANCH], cwd=remote, capture_output=True, text=True
    ).stdout
    assert engine.sync().result == SYNCED
    _join(desk, url, laptop.key_file)
    for record_id in ("decision-laptop-0", "decision-laptop-1"):
        path = f"records/{record_id}.json"
        assert (desk.root / path).read_bytes() == (laptop.root / path).read_bytes()
    assert int(commits) >= 1
