"""A remote changed by someone without the key: every attack is refused by name, nothing
outside the journal changes, no decision is lost or taken back, and the next sync works.

Each test builds its attack with plain git (`hostile_remote.plant`) on top of an honest commit
another machine pushed, so "the rest proceeds" is checked too: the honest decision arrives.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from core.errors import SyncRemoteUnsafe
from core.record.filters import ListFilter
from core.store.decisions import DecisionStore
from core.sync import bounds, screening
from core.sync.crypto import AgeCodec, SyncKey
from core.sync.engine import SyncEngine
from core.sync.keystore import KeyLocation, load_key
from core.sync.report import (
    INVALID_RECORD,
    REFUSED,
    ROLLBACK,
    SYNCED,
    TAMPERED,
    TOO_LARGE,
    UNSAFE_PATH,
    SyncReport,
)
from core.sync.status import sync_status
from tests.factories import make_record
from tests.integration import hostile_remote as hostile
from tests.integration.sync_machines import ROOT, bare_remote, cli_env


class Side:
    """One machine: a journal, its store and its engine (in this process, for speed)."""

    def __init__(self, root: Path, key_file: Path) -> None:
        self.root = root
        self.key_file = key_file
        self.engine = SyncEngine(root)

    @property
    def store(self) -> DecisionStore:
        return DecisionStore(self.root)

    def put(self, record_id: str, problem: str) -> None:
        self.store.put(make_record(id=record_id, problem=problem))

    def revisions(self) -> dict[str, int]:
        return {r.id: r.revision for r in self.store.list(ListFilter(include_deleted=True))}

    def sync(self) -> SyncReport:
        self.engine = SyncEngine(self.root)
        return self.engine.sync()


@pytest.fixture(params=["encrypted", "plain"])
def pair(request: pytest.FixtureRequest, private_home: Path, tmp_path: Path):
    """The victim's journal inside the private HOME (so `../..` aims at the HOME's own files),
    an honest second machine, and the bare remote both sync through."""
    remote, url = bare_remote(tmp_path)
    hostile.seed_home(private_home)
    victim = Side(private_home / ".local/share/decision-journal", private_home / "victim.key")
    honest = Side(tmp_path / "honest" / "journal", tmp_path / "honest" / "sync.key")
    victim.put("decision-victim-1", "Pick the cache eviction policy")
    encrypt = request.param == "encrypted"
    victim.engine.init(url, encrypt=encrypt, key_file=str(victim.key_file) if encrypt else "")
    key = load_key(KeyLocation("file", "", str(victim.key_file))) if encrypt else None
    honest.key_file.parent.mkdir(parents=True)
    honest.engine.join(url, key=key, key_file=str(honest.key_file) if encrypt else "")
    honest.put("decision-honest-1", "Decide the log format")
    honest.sync()
    return victim, honest, remote, key


def _attack(pair, files, **kwargs):
    victim, _honest, remote, _key = pair
    before_home = hostile.home_digest(victim.root.parents[2], victim.root)
    before = victim.revisions()
    honest_commit = hostile.head(remote)
    hostile.plant(remote, files, **kwargs)
    return before_home, before, honest_commit


def _after(pair, before_home, before) -> None:
    victim, _honest, _remote, _ = pair
    assert hostile.home_digest(victim.root.parents[2], victim.root) == before_home
    now = victim.revisions()
    for record_id, revision in before.items():
        assert now.get(record_id, 0) >= revision, record_id


def _next_sync_works(pair) -> None:
    """The honest machine edits and syncs; the victim receives it with nothing refused."""
    victim, honest, _, _ = pair
    honest.put("decision-honest-2", "Choose the retry budget")
    honest.sync()
    report = victim.sync()
    assert report.result == SYNCED, report
    assert "decision-honest-2" in victim.revisions()
    assert sync_status(victim.engine)["state"] == "synced"


def _cli(side: Side, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app.cli.main", "--journal", str(side.root), *args],
        cwd=ROOT,
        env=cli_env(),
        capture_output=True,
        text=True,
        check=False,
    )


def _doctor(side: Side) -> dict[str, object]:
    done = _cli(side, "doctor", "--json")
    assert done.returncode == 6, (done.stdout, done.stderr)
    return json.loads(done.stdout)


def _data_name(pair, path: str) -> str:
    key = pair[3]
    return AgeCodec(key).name(path) if key else path


@pytest.mark.parametrize(
    "components",
    [
        (b"d", b"..", b"..", b"..", b"..", b".bashrc"),
        (b"records", b"..", b"..", b"..", b"..", b".bashrc"),
        (b".git", b"config"),
        (b"/", b"etc", b"passwd"),
        (b"d/../../../../.ssh/authorized_keys",),
    ],
    ids=["dotdot-d", "dotdot-records", "dot-git", "absolute", "slash-in-name"],
)
def test_a_tree_entry_git_refuses_stops_the_fetch_and_says_why(pair, components) -> None:
    victim, _honest, remote, _ = pair
    before_home, before, honest_commit = _attack(pair, {components: b"pwned\n"})
    with pytest.raises(SyncRemoteUnsafe) as caught:
        victim.sync()
    report = caught.value.report  # type: ignore[attr-defined]
    assert report.refused and report.refused[0].kind == UNSAFE_PATH, report
    assert "git refused the whole fetch" in report.refused[0].message
    _after(pair, before_home, before)
    status = sync_status(victim.engine)
    assert status["state"] == "error" and status["refused_count"] >= 1, status
    hostile.reset(remote, honest_commit)  # the remote is restored
    _next_sync_works(pair)


def test_sync_now_exits_with_the_refused_code_when_git_refuses_the_fetch(pair) -> None:
    """The error class declares the code: a fetch git's fsck refuses is the remote's doing
    (exit 6, as every refusal), not an unexpected error (exit 1)."""
    victim, _honest, remote, _ = pair
    before_home, before, honest_commit = _attack(pair, {(b"d", b"..", b".bashrc"): b"pwned\n"})
    done = _cli(victim, "sync", "now")
    assert done.returncode == 6, (done.stdout, done.stderr)
    assert "git refused the whole fetch (hasDotdot" in done.stderr
    assert "sync-remote-unsafe" in done.stderr
    _after(pair, before_home, before)
    hostile.reset(remote, honest_commit)
    _next_sync_works(pair)


@pytest.mark.parametrize(
    ("mode", "content"),
    [
        (hostile.LINK, b"../../../../.bashrc"),
        (hostile.GITLINK, None),
        (b"100755", b"#!/bin/sh\n"),
    ],
    ids=["symlink", "gitlink", "executable"],
)
def test_an_entry_that_is_no_plain_file_is_refused_and_the_rest_applied(pair, mode, content):
    victim, _honest, remote, _ = pair
    name = _data_name(pair, "records/decision-evil.json")
    oid = hostile.head(remote) if content is None else ""
    entry = hostile.Entry(content or b"", mode, oid)
    before_home, before, _ = _attack(pair, {name: entry})
    report = victim.sync()
    assert report.result == REFUSED
    assert [(r.name, r.kind) for r in report.refused] == [(name, UNSAFE_PATH)]
    assert "decision-honest-1" in victim.revisions()  # the honest rest was applied
    assert not os.path.lexists(victim.root / "sync" / name)
    _after(pair, before_home, before)
    assert sync_status(victim.engine)["state"] == REFUSED
    assert name not in hostile.remote_names(remote)  # the victim's push left it out
    _next_sync_works(pair)


def test_a_name_outside_the_layout_is_refused(pair) -> None:
    victim, *_ = pair
    files = {"cache/index.sqlite": b"x", "d/zz/not-hex.age": b"x", "profiles/p.json": b"{}"}
    before_home, before, _ = _attack(pair, files)
    report = victim.sync()
    assert {r.name for r in report.refused} == set(files)
    assert {r.kind for r in report.refused} == {UNSAFE_PATH}
    assert not (victim.root / "cache" / "index.sqlite").exists()
    _after(pair, before_home, before)
    _next_sync_works(pair)


def test_a_name_that_is_not_utf8_is_refused(pair) -> None:
    victim, *_ = pair
    before_home, before, _ = _attack(pair, {(b"records", b"\xff\xfe.json"): b"{}"})
    report = victim.sync()
    assert [r.kind for r in report.refused] == [UNSAFE_PATH]
    assert "\\xff" in report.refused[0].name
    _after(pair, before_home, before)
    _next_sync_works(pair)


MEASURED_SYNC = """
import json, resource, sys
from pathlib import Path
from core.sync.engine import SyncEngine
engine = SyncEngine(Path(sys.argv[1]))
engine.codec()
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
report = engine.sync()
grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
print(json.dumps({
    "grown_kib": grown,
    "git_peak_kib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,
    "refused": [[r.name, r.kind] for r in report.refused],
    "message": report.refused[0].message if report.refused else "",
}))
"""


def _sync_measured(side: Side) -> dict[str, object]:
    """One sync of `side` in a fresh process, with that process's peak RSS growth (KiB) from
    the moment its sync code was loaded: a fresh process, so an earlier test's peak in this
    one cannot hide the growth."""
    done = subprocess.run(
        [sys.executable, "-c", MEASURED_SYNC, str(side.root)],
        cwd=ROOT,
        env=cli_env(),
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return json.loads(done.stdout.splitlines()[-1])


def test_a_200_mb_blob_is_refused_from_its_header_in_seconds_with_flat_memory(
    pair, tmp_path: Path
) -> None:
    victim, _honest, remote, _ = pair
    oid = hostile.big_blob(remote, 200 * 1024 * 1024, tmp_path)
    name = _data_name(pair, "records/decision-huge.json")
    before_home, before, _ = _attack(pair, {name: hostile.Entry(oid=oid)})
    started = time.monotonic()
    measured = _sync_measured(victim)
    elapsed = time.monotonic() - started
    assert measured["refused"] == [[name, TOO_LARGE]]
    assert f"{bounds.BLOB_MAX:,}" in measured["message"]
    assert elapsed < 60, elapsed
    # this process's own peak, over its peak once the sync code was loaded: reading the blob
    # at any step would add its 200 MiB (git's processes are measured apart, not here)
    assert measured["grown_kib"] < 64 * 1024, measured
    # and git's: on a remote on this machine its sending side runs here too, told to stream
    # large blobs (inflated whole, this one took over 200 MiB there)
    assert measured["git_peak_kib"] < 64 * 1024, measured
    sync_dir = victim.root / "sync"
    assert sum(p.stat().st_size for p in sync_dir.rglob("*") if p.is_file()) < 20 * 1024 * 1024
    _after(pair, before_home, before)
    _next_sync_works(pair)


OVERSIZED = 16 * 1024 * 1024
"""Twice the per-file cap, incompressible: each attack would keep this much if it stayed."""


def _descends(remote: Path, commit: str) -> bool:
    tip = hostile.head(remote)
    found = subprocess.run(
        ["git", f"--git-dir={remote}", "merge-base", "--is-ancestor", commit, tip], check=False
    )
    return found.returncode == 0


def test_oversized_blobs_refused_again_and_again_leave_nothing_on_disk(
    pair, tmp_path: Path
) -> None:
    """Three attacks, each a commit with an incompressible blob over the cap: each is refused,
    the commit holding it is left out of the victim's history and pushed over, and its
    objects are deleted, so the victim's repository grows by no more than a few MiB in all;
    `sync status` and `doctor` say what was refused, and the next honest sync works."""
    victim, _honest, remote, _ = pair
    git_dir = victim.root / "sync" / ".git"
    baseline = hostile.disk_size(git_dir)
    for attack in range(3):
        oid = hostile.random_blob(remote, OVERSIZED, tmp_path, seed=attack)
        name = _data_name(pair, f"records/decision-huge-{attack}.json")
        before_home, before, _ = _attack(pair, {name: hostile.Entry(oid=oid)})
        hostile_commit = hostile.head(remote)
        report = victim.sync()
        assert [(r.name, r.kind) for r in report.refused] == [(name, TOO_LARGE)]
        assert "left out of this machine's history" in report.refused[0].message
        assert not _descends(remote, hostile_commit)
        status = sync_status(victim.engine)
        assert status["state"] == "refused"
        assert status["refusals"][0]["kind"] == TOO_LARGE
        _after(pair, before_home, before)
    grown = hostile.disk_size(git_dir) - baseline
    assert grown < 4 * 1024 * 1024, grown
    doctor = _doctor(victim)
    assert "sync-files-refused" in {f["runbook"] for f in doctor["findings"]}, doctor
    _next_sync_works(pair)


def test_an_oversized_blob_a_later_commit_removed_is_not_kept_either(pair, tmp_path: Path) -> None:
    """The blob is added in one commit and removed in the next, so the remote's tree never
    shows it: it is still found in the history the remote adds, refused by its object id,
    and not kept."""
    victim, _honest, remote, _ = pair
    git_dir = victim.root / "sync" / ".git"
    baseline = hostile.disk_size(git_dir)
    oid = hostile.random_blob(remote, OVERSIZED, tmp_path)
    name = _data_name(pair, "records/decision-hidden.json")
    before_home, before, _ = _attack(pair, {name: hostile.Entry(oid=oid)})
    hidden = hostile.head(remote)
    hostile.plant(remote, {}, remove=(name,))
    report = victim.sync()
    assert [(r.name, r.kind) for r in report.refused] == [(f"object {oid}", TOO_LARGE)]
    assert not _descends(remote, hidden)
    assert hostile.disk_size(git_dir) - baseline < 4 * 1024 * 1024
    _after(pair, before_home, before)
    _next_sync_works(pair)


def test_garbage_and_other_key_ciphertext_are_refused_and_the_rest_applied(pair) -> None:
    victim, _honest, _remote, key = pair
    if key is None:
        pytest.skip("a plain remote holds no ciphertext (its records are checked as records)")
    garbage = _data_name(pair, "records/decision-garbage.json")
    stranger = AgeCodec(SyncKey.generate())
    other = _data_name(pair, "records/decision-other.json")
    manifest = "m/deadbeef-000900.age"
    files = {
        garbage: b"age-encryption.org/v1\n-> garbage\n",
        other: stranger.seal(b"{}"),
        manifest: stranger.seal(b'{"machine":"deadbeef","name":"x","paths":[]}'),
    }
    before_home, before, _ = _attack(pair, files)
    report = victim.sync()
    # no manifest a key holder wrote lists them: refused before they are even opened
    assert {(r.name, r.kind) for r in report.refused} == {(n, TAMPERED) for n in files}
    assert "decision-honest-1" in victim.revisions()
    _after(pair, before_home, before)
    _next_sync_works(pair)


def _stored(tmp_path: Path, record_id: str, problem: str) -> bytes:
    """The bytes the store writes for a new record (lifecycle metadata and all)."""
    scratch = DecisionStore(tmp_path / "scratch")
    scratch.put(make_record(id=record_id, problem=problem))
    return (tmp_path / "scratch" / "records" / f"{record_id}.json").read_bytes()


def test_a_record_the_store_would_not_write_is_quarantined_and_named(pair, tmp_path) -> None:
    victim, _honest, _remote, key = pair
    if key is not None:
        pytest.skip("without the key nothing can be encrypted to a name a manifest lists")
    forged = _stored(tmp_path, "decision-forged", "Forged")
    assert b'"revision": 1,' in forged
    files = {
        "records/decision-broken.json": b"{not json",
        "records/decision-forged-id.json": _stored(tmp_path, "decision-other-id", "Other"),
        "records/decision-forged.json": forged.replace(b'"revision": 1,', b'"revision": 3,'),
    }
    before_home, before, _ = _attack(pair, files)
    report = victim.sync()
    refused = {r.name: r for r in report.refused}
    assert set(refused) == set(files)
    assert {r.kind for r in refused.values()} == {INVALID_RECORD}
    assert "chain" in refused["records/decision-forged.json"].message
    assert not any((victim.root / name).exists() for name in files)
    kept = list((victim.root / "quarantine").rglob("decision-broken.json"))
    assert kept and kept[0].read_bytes() == b"{not json"
    doctor = _doctor(victim)
    entries = {f["runbook"] for f in doctor["findings"]}
    assert "sync-files-refused" in entries, doctor
    assert doctor["sync"] == "Sync: the remote answers."
    _after(pair, before_home, before)
    _next_sync_works(pair)


def _cli(side: Side, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app.cli.main", "--journal", str(side.root), *args],
        cwd=ROOT,
        env=cli_env(),
        capture_output=True,
        text=True,
        check=False,
    )


def test_sync_now_and_status_name_each_refused_file_and_never_say_synced(pair) -> None:
    victim, *_ = pair
    name = _data_name(pair, "records/decision-link.json")
    before_home, before, _ = _attack(pair, {name: hostile.Entry(b"../../.bashrc", hostile.LINK)})
    done = _cli(victim, "sync", "now")
    assert done.returncode == 6, (done.stdout, done.stderr)
    assert done.stdout.startswith("Synced with refusals: ")
    assert "1 file refused (see: decision-journal help runbook sync-files-refused" in done.stdout
    assert f"refused unsafe-path: {name}: refused unread: it is a symbolic link" in done.stdout
    status = _cli(victim, "sync", "status")
    assert "Sync: refused" in status.stdout
    assert f"  unsafe-path: {name}: " in status.stdout
    assert "Sync: synced" not in status.stdout
    _after(pair, before_home, before)
    _next_sync_works(pair)


def _has_object(side: Side, oid: str) -> bool:
    found = subprocess.run(
        ["git", "-C", str(side.root / "sync"), "cat-file", "-e", oid], capture_output=True
    )
    return found.returncode == 0


def _too_large_commit(pair, monkeypatch) -> tuple[str, list[str]]:
    """A commit whose files add up to more than a sync reads (the cap made small here)."""
    _victim, _honest, remote, _ = pair
    monkeypatch.setattr(screening, "FETCH_MAX", 64 * 1024)
    oids = [hostile.blob(remote, bytes([n]) * 40_000) for n in range(3)]
    files = {
        _data_name(pair, f"records/decision-junk-{n}.json"): hostile.Entry(oid=oid)
        for n, oid in enumerate(oids)
    }
    return hostile.plant(remote, files), oids


def test_a_commit_over_the_fetch_cap_is_never_saved_as_a_merge_and_its_objects_go(
    pair, monkeypatch
) -> None:
    victim, _honest, remote, _ = pair
    good = hostile.head(remote)
    _hostile_commit, oids = _too_large_commit(pair, monkeypatch)
    with pytest.raises(SyncRemoteUnsafe, match="over the per-sync cap"):
        victim.sync()
    assert victim.engine.files.state().merging == ""
    assert not any(_has_object(victim, oid) for oid in oids)
    hostile.reset(remote, good)  # the remote's owner puts it right
    assert victim.sync().result == SYNCED
    _next_sync_works(pair)


def test_a_saved_merge_the_remote_no_longer_offers_is_dropped_not_retried(
    pair, monkeypatch
) -> None:
    victim, _honest, remote, _ = pair
    good = hostile.head(remote)
    hostile_commit, _ = _too_large_commit(pair, monkeypatch)
    subprocess.run(["git", "-C", str(victim.root / "sync"), "fetch", "-q", "origin"], check=True)
    # what an older version saved before refusing the commit
    files = victim.engine.files
    state = files.state()
    state.merging = hostile_commit
    files.save_state(state)
    hostile.reset(remote, good)
    victim.put("decision-victim-2", "Made while the remote was bad")
    assert victim.sync().result == SYNCED
    assert victim.engine.files.state().merging == ""
    _next_sync_works(pair)
    honest = pair[1]
    honest.sync()
    assert "decision-victim-2" in honest.revisions()  # pushed, not stuck behind the old merge


@pytest.mark.parametrize("how", ["branch-deleted", "empty-repository"])
def test_a_wiped_remote_is_reported_rolled_back_and_gets_the_whole_journal_back(pair, how) -> None:
    victim, honest, remote, _ = pair
    assert victim.sync().result == SYNCED  # holds the honest machine's decision too
    if how == "branch-deleted":
        hostile.git(remote, "update-ref", "-d", "refs/heads/main")
    else:
        shutil.rmtree(remote)
        subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    report = victim.sync()
    assert report.result == REFUSED, report
    assert [r.kind for r in report.refused] == [ROLLBACK]
    assert "rolled back to nothing" in report.refused[0].message
    assert sync_status(victim.engine)["state"] != "synced"
    head = subprocess.run(
        ["git", "-C", str(victim.root / "sync"), "rev-parse", "HEAD"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert hostile.head(remote) == head  # the whole journal went back
    fresh = Side(remote.parent / "fresh" / "journal", remote.parent / "fresh" / "sync.key")
    fresh.key_file.parent.mkdir(parents=True)
    key = pair[3]
    fresh.engine.join(f"file://{remote}", key=key, key_file=str(fresh.key_file) if key else "")
    assert {"decision-victim-1", "decision-honest-1"} <= set(fresh.revisions())
    assert victim.sync().result == SYNCED
    assert honest.sync().result == SYNCED
