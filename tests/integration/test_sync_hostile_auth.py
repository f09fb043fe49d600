"""A remote changed by someone without the key: forged files and manifests, `git rm`,
`git revert`, a force-push to an old commit, a swapped marker and recipient.

Each attack is made with plain `git` and the `age` CLI (`hostile_remote.Attacker`), then the
victim syncs. Every test asserts that nothing forged was applied and no record was lost or
taken to an older revision, that the report names the refused item and why, and that the next
honest sync puts the remote right and goes through without a refusal.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from core.errors import SyncRemoteTampered
from core.outcomes.signals import OutcomeLog, make_signal
from core.record.codec import encode_record
from core.sync.engine import SyncEngine
from core.sync.keystore import KeyLocation, load_key
from core.sync.paths import KEY_CHECK, MARKER, history_path, record_path
from core.sync.report import REFUSED, ROLLBACK, SYNCED, TAMPERED, SyncReport
from tests.factories import make_record
from tests.integration.hostile_remote import (
    Attacker,
    blob_name,
    engine_sync,
    git_in,
    home_digest,
    honest_pair,
    remote_tree,
    seed_home,
)
from tests.integration.sync_machines import Machine, assert_kernforge_valid, bare_remote

RECORD = "decision-laptop-1"


@pytest.fixture
def pair(tmp_path: Path) -> tuple[Machine, Machine, Path]:
    return honest_pair(tmp_path)


def _kinds(report: SyncReport) -> dict[str, str]:
    """Refused name → kind."""
    return {r.name: r.kind for r in report.refused}


def _chains(machine: Machine) -> dict[str, list[int]]:
    return assert_kernforge_valid(machine)


def _forged_record(revision: int, reason: str) -> bytes:
    record = make_record(id=RECORD, problem="Pick the cache eviction policy")
    record.revision = revision
    record.selection_reason_raw = reason
    return encode_record(record)


def _edited_and_shared(laptop: Machine, desk: Machine) -> dict[str, list[int]]:
    """The laptop writes revision 2 of the record and both sync; returns the desk's chains."""
    laptop.edit(RECORD, "revision 2 on the laptop")
    engine_sync(laptop)
    engine_sync(desk)
    assert desk.store.get(RECORD).revision == 2
    return _chains(desk)


def _assert_healed(laptop: Machine, desk: Machine, remote: Path) -> None:
    """The next honest syncs refuse nothing and leave the remote as a key holder wrote it."""
    for machine in (laptop, desk, laptop):
        report = engine_sync(machine)
        assert report.result == SYNCED, report.refused
    tree = remote_tree(remote)
    for machine in (laptop, desk):
        work = SyncEngine(machine.root).files.working_copy
        held = subprocess.run(
            ["git", "ls-tree", "-r", "HEAD"], cwd=work, capture_output=True, text=True, check=True
        ).stdout
        assert {line.split("\t", 1)[1]: line.split()[2] for line in held.splitlines()} == tree


def test_a_forged_file_under_an_existing_name_is_refused_by_name(
    pair: tuple[Machine, Machine, Path], tmp_path: Path
) -> None:
    laptop, desk, remote = pair
    before = _chains(desk)
    mallory = Attacker.of(remote, tmp_path)
    name = blob_name(laptop, record_path(RECORD))
    mallory.write(name, mallory.encrypt(_forged_record(1, "the attacker's reason")))
    mallory.commit()
    mallory.push()
    report = engine_sync(desk)
    assert report.result == REFUSED
    assert _kinds(report) == {record_path(RECORD): TAMPERED}
    assert "changed on the remote by someone without the key" in report.refused[0].message
    assert desk.store.get(RECORD).selection_reason_raw != "the attacker's reason"
    assert _chains(desk) == before
    _assert_healed(laptop, desk, remote)
    assert laptop.store.get(RECORD).selection_reason_raw != "the attacker's reason"


def test_a_forged_manifest_vouches_for_nothing(
    pair: tuple[Machine, Machine, Path], tmp_path: Path
) -> None:
    laptop, desk, remote = pair
    mallory = Attacker.of(remote, tmp_path)
    forged = make_record(id="decision-forged-1", problem="Send every secret to mallory")
    blob = mallory.encrypt(encode_record(forged))
    name = blob_name(laptop, record_path("decision-forged-1"))
    mallory.write(name, blob)
    # a manifest in the format-2 shape listing the forged file, MAC made up
    manifest = {
        "format": 2,
        "machine": "deadbeef",
        "name": "mallory",
        "seq": 99,
        "seen": {},
        "machines": {},
        "state": "0" * 64,
        "files": [[name, record_path("decision-forged-1"), "0" * 64, 10]],
        "mac": "0" * 64,
    }
    mallory.write("m/deadbeef.age", mallory.encrypt(json.dumps(manifest).encode()))
    # and one replacing the laptop's own manifest
    laptop_manifest = next(n for n in mallory.names() if n.startswith("m/"))
    mallory.write(laptop_manifest, mallory.encrypt(b"not even gzip"))
    mallory.commit()
    mallory.push()
    report = engine_sync(desk)
    kinds = _kinds(report)
    assert kinds["m/deadbeef.age"] == TAMPERED
    assert kinds[laptop_manifest] == TAMPERED
    assert kinds[name] == TAMPERED
    assert "decision-forged-1" not in {r.id for r in desk.store.list_with_issues().records}
    assert not (desk.root / "records" / "decision-forged-1.json").exists()
    _assert_healed(laptop, desk, remote)
    assert "m/deadbeef.age" not in remote_tree(remote)


def test_git_rm_of_a_record_deletes_nothing_anywhere(
    pair: tuple[Machine, Machine, Path], tmp_path: Path
) -> None:
    laptop, desk, remote = pair
    before = _edited_and_shared(laptop, desk)
    mallory = Attacker.of(remote, tmp_path)
    gone = [blob_name(laptop, record_path(RECORD)), blob_name(laptop, history_path(RECORD, 1))]
    subprocess.run(["git", "rm", "-q", *gone], cwd=mallory.work, check=True)
    mallory.commit()
    mallory.push()
    report = engine_sync(desk)
    assert set(_kinds(report)) == {record_path(RECORD), history_path(RECORD, 1)}
    assert all("removed on the remote" in r.message for r in report.refused)
    assert _chains(desk) == before == {**before, RECORD: [1, 2]}
    _assert_healed(laptop, desk, remote)
    assert set(gone) <= set(remote_tree(remote))
    assert _chains(laptop) == before


def test_git_revert_of_another_machines_edit_takes_nothing_back(
    pair: tuple[Machine, Machine, Path], tmp_path: Path
) -> None:
    laptop, desk, remote = pair
    _edited_and_shared(laptop, desk)
    mallory = Attacker.of(remote, tmp_path)
    subprocess.run(
        ["git", "-c", "user.name=m", "-c", "user.email=m@m", "revert", "--no-edit", "HEAD"],
        cwd=mallory.work,
        check=True,
        capture_output=True,
    )
    mallory.push()
    report = engine_sync(desk)
    assert report.result == REFUSED
    kinds = _kinds(report)
    assert kinds[record_path(RECORD)] == ROLLBACK
    assert kinds[history_path(RECORD, 1)] == TAMPERED  # the revert removed it
    laptop_manifest = next(n for n, k in kinds.items() if n.startswith("m/"))
    assert kinds[laptop_manifest] == ROLLBACK
    rolled = [r for r in report.refused if r.kind == ROLLBACK]
    assert all(r.message.startswith("the remote was rolled back") for r in rolled)
    _assert_healed(laptop, desk, remote)
    for machine in (desk, laptop):
        record = machine.store.get(RECORD)
        assert record.revision == 2 and record.selection_reason_raw == "revision 2 on the laptop"
        assert _chains(machine)[RECORD] == [1, 2]


def test_a_force_push_to_an_old_commit_is_reported_and_undone(
    pair: tuple[Machine, Machine, Path], tmp_path: Path
) -> None:
    laptop, desk, remote = pair
    mallory = Attacker.of(remote, tmp_path)
    old = mallory.commits()[-1]  # the laptop's first push
    laptop.edit(RECORD, "revision 2 on the laptop")
    desk.put("decision-desk-2", "A second one on the desk")
    engine_sync(laptop)
    engine_sync(desk)
    engine_sync(laptop)
    before = _chains(laptop)
    subprocess.run(["git", f"--git-dir={remote}", "update-ref", "refs/heads/main", old], check=True)
    report = engine_sync(desk)
    assert report.result == REFUSED
    assert ROLLBACK in _kinds(report).values()
    assert _chains(desk) == before
    _assert_healed(laptop, desk, remote)
    assert _chains(laptop) == _chains(desk) == before


def test_a_swapped_marker_and_recipient_are_refused_and_files_stay_encrypted_to_the_key(
    pair: tuple[Machine, Machine, Path], tmp_path: Path
) -> None:
    laptop, desk, remote = pair
    mallory = Attacker.of(remote, tmp_path)
    identity = tmp_path / "mallory.key"
    subprocess.run(["age-keygen", "-o", str(identity)], check=True, capture_output=True)
    theirs = subprocess.run(
        ["age-keygen", "-y", str(identity)], capture_output=True, text=True, check=True
    ).stdout.strip()
    mallory.write(
        MARKER, json.dumps({"format": 2, "encrypted": True, "recipient": theirs}).encode()
    )
    mallory.write(KEY_CHECK, mallory.encrypt(b"decision-journal sync key check\n", theirs))
    mallory.commit()
    mallory.push()
    desk.put("decision-desk-2", "Written after the swap")
    report = engine_sync(desk)
    assert _kinds(report) == {MARKER: TAMPERED, KEY_CHECK: TAMPERED}
    # a machine joining now is refused before anything is written
    late = Machine.make(tmp_path, "late")
    late.key_file.parent.mkdir(parents=True)
    late.key_file.write_text(laptop.key_file.read_text())
    late.key_file.chmod(0o600)
    key = load_key(KeyLocation("file", "", str(late.key_file)))
    mallory.pull()
    mallory.write(MARKER, json.dumps({"format": 2, "encrypted": False}).encode())
    mallory.commit()
    mallory.push(force=True)
    with pytest.raises(SyncRemoteTampered, match="by someone without the key"):
        SyncEngine(late.root).join(f"file://{remote}", key=key, key_file=str(late.key_file))
    assert not (late.root / "sync").exists()
    # what the desk pushed opens with the journal's key and not with the attacker's
    name = blob_name(desk, record_path("decision-desk-2"))
    blob = subprocess.run(
        ["git", f"--git-dir={remote}", "show", f"main:{name}"], capture_output=True, check=True
    ).stdout
    assert subprocess.run(
        ["age", "-d", "-i", str(identity)], input=blob, capture_output=True
    ).returncode
    opened = subprocess.run(
        ["age", "-d", "-i", str(laptop.key_file)], input=blob, capture_output=True, check=True
    ).stdout
    assert json.loads(opened)["id"] == "decision-desk-2"  # padding is trailing blank lines
    assert _kinds(engine_sync(laptop)) == {MARKER: TAMPERED}
    _assert_healed(laptop, desk, remote)
    assert (
        json.loads(
            subprocess.run(
                ["git", f"--git-dir={remote}", "show", f"main:{MARKER}"],
                capture_output=True,
                check=True,
            ).stdout
        )["recipient"]
        != theirs
    )
    SyncEngine(late.root).join(f"file://{remote}", key=key, key_file=str(late.key_file))
    assert "decision-desk-2" in {r.id for r in late.store.list_with_issues().records}


def test_lines_taken_out_of_a_shared_log_are_kept_and_pushed_again(
    pair: tuple[Machine, Machine, Path], tmp_path: Path
) -> None:
    laptop, desk, remote = pair
    OutcomeLog(laptop.root).append([make_signal(RECORD, ci="fail")])
    engine_sync(laptop)
    engine_sync(desk)
    OutcomeLog(laptop.root).append([make_signal(RECORD, ci="pass")])
    engine_sync(laptop)
    engine_sync(desk)
    assert len(OutcomeLog(desk.root).read().signals) == 2
    # the log is encrypted and listed, so the attacker can only put back an older genuine
    # copy with its older manifest: revert the laptop's last sync
    mallory = Attacker.of(remote, tmp_path)
    git_in(mallory.work, "revert", "--no-edit", "HEAD")
    mallory.push()
    report = engine_sync(desk)
    assert report.result == REFUSED
    kinds = _kinds(report)
    assert kinds["outcomes/signals.ndjson"] == TAMPERED
    assert ROLLBACK in kinds.values()
    assert any("lines removed on the remote" in r.message for r in report.refused)
    assert len(OutcomeLog(desk.root).read().signals) == 2
    _assert_healed(laptop, desk, remote)
    assert len(OutcomeLog(laptop.root).read().signals) == 2


def test_every_data_blob_removed_is_refused_with_nothing_counted_as_applied(
    pair: tuple[Machine, Machine, Path], tmp_path: Path
) -> None:
    """`git rm` of every `d/` blob: each removal is refused, and the report (and so `sync
    now`'s "N applied") counts none of them as applied."""
    laptop, desk, remote = pair
    _edited_and_shared(laptop, desk)
    mallory = Attacker.of(remote, tmp_path)
    gone = [name for name in mallory.names() if name.startswith("d/")]
    subprocess.run(["git", "rm", "-q", *gone], cwd=mallory.work, check=True)
    mallory.commit()
    mallory.push()
    report = engine_sync(desk)
    assert report.applied == 0
    assert len(report.refused) == len(gone) > 0
    assert all("removed on the remote" in r.message for r in report.refused)
    _assert_healed(laptop, desk, remote)


def test_a_genuine_blob_with_one_byte_appended_is_tampered_not_undecryptable(
    pair: tuple[Machine, Machine, Path], tmp_path: Path
) -> None:
    laptop, desk, remote = pair
    _edited_and_shared(laptop, desk)
    mallory = Attacker.of(remote, tmp_path)
    name = blob_name(laptop, record_path(RECORD))
    target = mallory.work / name
    target.write_bytes(target.read_bytes() + b"x")
    mallory.commit()
    mallory.push()
    report = engine_sync(desk)
    assert _kinds(report) == {record_path(RECORD): TAMPERED}
    _assert_healed(laptop, desk, remote)


def test_a_join_onto_a_remote_whose_files_are_all_forged_fails_closed(
    pair: tuple[Machine, Machine, Path], tmp_path: Path
) -> None:
    """A new machine that refused every file would push a tree without them over the
    remote, call itself healthy with no decisions, and leave the others blaming the remote:
    the join stops before anything is written, here or there."""
    laptop, desk, remote = pair
    mallory = Attacker.of(remote, tmp_path)
    forged = mallory.encrypt(_forged_record(1, "the attacker's reason"))
    for name in mallory.names():
        if name.startswith("d/"):
            mallory.write(name, forged)
    mallory.commit()
    mallory.push()
    before = remote_tree(remote)
    late = Machine.make(tmp_path, "late")
    late.put("decision-late-1", "Written before the join")
    seed_home(tmp_path / "late")
    late.key_file.write_text(laptop.pairing() + "\n")
    late.key_file.chmod(0o600)
    home = home_digest(tmp_path / "late", late.root)
    records = {p.name: p.read_bytes() for p in (late.root / "records").iterdir()}
    result = late.run(
        "sync", "join", "--remote", f"file://{remote}", "--key-file", str(late.key_file)
    )
    assert result.returncode == 6, (result.stdout, result.stderr)
    assert "join refused" in result.stderr and "sync-join-refused" in result.stderr
    assert "nothing was written to the remote and this machine does not sync" in result.stderr
    assert f"refused tampered: {record_path(RECORD)}" in result.stderr  # named, each
    assert remote_tree(remote) == before  # nothing pushed over it
    assert not (late.root / "sync").exists()  # and this machine does not sync with it
    assert {p.name: p.read_bytes() for p in (late.root / "records").iterdir()} == records
    assert home_digest(tmp_path / "late", late.root) == home
    assert late.ok("sync", "status").startswith("Sync: off")
    # the others were never told their records were removed; a key holder's sync heals
    assert {r.kind for r in engine_sync(desk).refused} == {TAMPERED}
    _assert_healed(laptop, desk, remote)
    assert "Synced:" in late.join(f"file://{remote}", laptop.pairing())
    assert {r.id for r in late.store.list()} == {RECORD, "decision-desk-1", "decision-late-1"}


def test_a_join_onto_a_journal_with_no_decisions_yet_works(tmp_path: Path) -> None:
    _, url = bare_remote(tmp_path)
    first, second = Machine.make(tmp_path, "first"), Machine.make(tmp_path, "second")
    first.root.mkdir(parents=True)
    first.init(url)
    assert "Synced:" in second.join(url, first.pairing())
    assert second.ok("sync", "status").startswith("Sync: synced")
    second.put("decision-second-1", "The first decision of the journal")
    assert second.ok("sync", "now").startswith("Synced:")
    first.ok("sync", "now")
    assert [r.id for r in first.store.list()] == ["decision-second-1"]


def test_a_remote_that_refuses_force_pushes_loses_the_forgery_from_its_tip(
    pair: tuple[Machine, Machine, Path], tmp_path: Path
) -> None:
    """A protected branch keeps the hostile commit for good: sync cannot push over it, so
    it commits on top of it a tree without the refused file, and says so."""
    laptop, desk, remote = pair
    subprocess.run(
        ["git", f"--git-dir={remote}", "config", "receive.denyNonFastForwards", "true"],
        check=True,
    )
    before = _chains(desk)
    seed_home(tmp_path / "desk")
    home = home_digest(tmp_path / "desk", desk.root)
    mallory = Attacker.of(remote, tmp_path)
    name = blob_name(laptop, record_path(RECORD))
    mallory.write(name, mallory.encrypt(_forged_record(1, "the attacker's reason")))
    hostile = mallory.commit()
    mallory.push()
    forged = remote_tree(remote)[name]
    report = engine_sync(desk)
    assert report.result == REFUSED
    assert _kinds(report) == {record_path(RECORD): TAMPERED, f"commit {hostile}": TAMPERED}
    assert "refuses force pushes" in report.refused[-1].message
    assert hostile in git_in(tmp_path, f"--git-dir={remote}", "rev-list", "main").split()
    assert remote_tree(remote)[name] != forged  # the tip holds the honest blob again
    assert desk.store.get(RECORD).selection_reason_raw != "the attacker's reason"
    assert _chains(desk) == before
    assert home_digest(tmp_path / "desk", desk.root) == home
    # the laptop takes the tip as it is, and both go quiet
    assert engine_sync(laptop).result == SYNCED
    assert laptop.store.get(RECORD).selection_reason_raw != "the attacker's reason"
    _assert_healed(laptop, desk, remote)
    settled = git_in(tmp_path, f"--git-dir={remote}", "rev-list", "--count", "main")
    for machine in (laptop, desk):
        assert engine_sync(machine).result == SYNCED
    assert git_in(tmp_path, f"--git-dir={remote}", "rev-list", "--count", "main") == settled
