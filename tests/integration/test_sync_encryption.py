"""The remote holds only age-encrypted blobs under keyed names, readable with Debian's `age`.

Every object of the remote (all commits, trees and blobs of all history, via `git cat-file
--batch-all-objects`) is searched for each sensitive string of the journal.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import zlib
from pathlib import Path

import pytest

from core.sync.crypto import AgeCodec, SyncKey
from tests.integration.sync_machines import Machine, assert_kernforge_valid, bare_remote

PROBLEM = "Should the billing importer trust the upstream ledger totals"
RATIONALE = "the upstream ledger double-counts refunds on leap days"
LABEL = "Recompute every total locally"
RECORD_ID = "decision-billing-ledger-7f3a"
PROJECT_ID = "project-9c1d2e3f4a5b6c7d"
WORKSPACE = "/home/someone/src/acme-billing"

needs_age = pytest.mark.skipif(shutil.which("age") is None, reason="Debian's age CLI is needed")


def _all_objects(remote: Path) -> bytes:
    listing = subprocess.run(
        ["git", "-C", str(remote), "cat-file", "--batch-all-objects", "--batch"],
        capture_output=True,
        check=True,
    )
    return listing.stdout


def _sensitive_journal(tmp_path: Path) -> tuple[Machine, Path, str]:
    remote, url = bare_remote(tmp_path)
    machine = Machine.make(tmp_path, "laptop")
    record = machine.put(
        RECORD_ID,
        PROBLEM,
        project_id=PROJECT_ID,
        workspace=WORKSPACE,
        selection_reason_raw=RATIONALE,
    )
    options = [
        o.model_copy(update={"label": LABEL}) if i == 0 else o for i, o in enumerate(record.options)
    ]
    store = machine.store
    store.revise(RECORD_ID, 1, lambda r: setattr(r, "options", options))
    machine.init(url)
    machine.ok("delete", RECORD_ID, "--expected-revision", "2")
    machine.ok("sync", "now")
    return machine, remote, url


def test_no_plaintext_anywhere_in_the_remote(tmp_path: Path) -> None:
    machine, remote, _ = _sensitive_journal(tmp_path)
    everything = _all_objects(remote)
    assert len(everything) > 1000
    for secret in (
        PROBLEM,
        RATIONALE,
        LABEL,
        RECORD_ID,
        PROJECT_ID,
        WORKSPACE,
        "billing",
        "project-",
    ):
        assert secret.encode() not in everything, secret
    log = _git_out(remote, "log", "--all", "--format=%an <%ae>|%cn <%ce>|%B")
    for line in filter(None, log.splitlines()):
        # no machine, no time in the message: the authenticated manifests say who wrote what
        assert line == "decision-journal <sync@localhost>|decision-journal <sync@localhost>|sync"
    stamps = _git_out(remote, "log", "--all", "--format=%ad|%cd", "--date=raw")
    for stamp in filter(None, stamps.splitlines()):
        for seconds, zone in (part.split() for part in stamp.split("|")):
            assert zone == "+0000" and int(seconds) % 3600 == 0, stamp
    names = _git_out(remote, "ls-tree", "-r", "--name-only", "main").split()
    assert all(
        n.startswith(("d/", "m/")) or n in ("decision-journal-sync.json", "key-check.age")
        for n in names
    )
    assert_kernforge_valid(machine)


def _git_out(remote: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(remote), *args], capture_output=True, text=True, check=True
    ).stdout


@needs_age
def test_the_age_cli_decrypts_the_remote_with_the_exported_key(tmp_path: Path) -> None:
    machine, remote, _ = _sensitive_journal(tmp_path)
    result = machine.run("sync", "export-key")
    assert result.returncode == 0
    assert "WARNING" in result.stderr and "pairing string" in result.stderr
    identity = tmp_path / "identity.txt"
    identity.write_text(result.stdout)
    checkout = tmp_path / "checkout"
    subprocess.run(
        ["git", "clone", "-q", "-b", "main", f"file://{remote}", str(checkout)], check=True
    )
    key = SyncKey.parse(result.stdout)
    name = AgeCodec(key).name(f"records/{RECORD_ID}.json")
    plain = subprocess.run(
        ["age", "-d", "-i", str(identity), str(checkout / name)], capture_output=True, check=True
    ).stdout
    record = (machine.root / "records" / f"{RECORD_ID}.json").read_bytes()
    # the padding is blank lines after the record: any JSON reader takes it as it is
    assert plain.startswith(record) and plain[len(record) :].strip() == b""
    assert json.loads(plain)["problem"] == PROBLEM
    listed: set[str] = set()
    for manifest in sorted((checkout / "m").iterdir()):
        opened = subprocess.run(
            ["age", "-d", "-i", str(identity), str(manifest)], capture_output=True, check=True
        )
        listing = zlib.decompressobj(wbits=31).decompress(opened.stdout)  # what `zcat` reads
        listed.update(path for _, path, _, _ in json.loads(listing)["files"])
    assert f"history/{RECORD_ID}/revision-000002.json" in listed
    assert f"records/{RECORD_ID}.json" in listed


def test_a_wrong_key_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    _, _, url = _sensitive_journal(tmp_path)
    stranger = Machine.make(tmp_path, "stranger")
    stranger.put("decision-own-1", "Its own decision")
    before = sorted(p.relative_to(stranger.root) for p in stranger.root.rglob("*"))
    result = stranger.run("sync", "join", "--remote", url, stdin=SyncKey.generate().secret + "\n")
    assert result.returncode == 2
    assert "the sync key does not open this remote" in result.stderr
    assert sorted(p.relative_to(stranger.root) for p in stranger.root.rglob("*")) == before
    garbled = stranger.run("sync", "join", "--remote", url, stdin="AGE-SECRET-KEY-1NOTAKEY\n")
    assert garbled.returncode == 2
    assert "pairing string is damaged" in garbled.stderr
    assert sorted(p.relative_to(stranger.root) for p in stranger.root.rglob("*")) == before


def test_a_plain_remote_with_no_encrypt_holds_readable_files(tmp_path: Path) -> None:
    remote, url = bare_remote(tmp_path)
    laptop, desk = Machine.make(tmp_path, "laptop"), Machine.make(tmp_path, "desk")
    laptop.put("decision-plain-1", "Readable on purpose")
    laptop.ok("sync", "init", "--remote", url, "--no-encrypt")
    assert b"Readable on purpose" in _all_objects(remote)
    desk.ok("sync", "join", "--remote", url, stdin="\n")
    assert desk.store.get("decision-plain-1").problem == "Readable on purpose"
    assert json.loads(desk.ok("sync", "status", "--json"))["encrypted"] is False
    export = desk.run("sync", "export-key")
    assert export.returncode == 7 and "no key" in export.stderr
