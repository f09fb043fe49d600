"""History that fails closed: edit, delete and restore refuse a history that is not exactly
revisions 1..N-1 as regular files, and change nothing; content changed inside a revision is
found by its digest."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from core.doctor import check_health, check_journal, repair_journal
from core.errors import HistoryBroken, HistoryTampered
from core.record.models import DecisionRecord
from core.store.decisions import DecisionStore
from core.store.history_files import DIGEST_SUFFIX, rewrite_revision
from tests.factories import make_record

RECORD = "decision-test-1"


@pytest.fixture
def store(tmp_path: Path) -> DecisionStore:
    """A record at revision 3: history holds revisions 1 and 2 with their digests."""
    store = DecisionStore(tmp_path / "journal")
    store.put(make_record())
    store.revise(RECORD, 1, _reason("second"))
    store.revise(RECORD, 2, _reason("third"))
    return store


def _reason(text: str) -> Callable[[DecisionRecord], None]:
    def mutate(record: DecisionRecord) -> None:
        record.selection_reason_raw = f"the {text} reason for choosing per-record files"

    return mutate


def _history(store: DecisionStore) -> Path:
    return store.history_dir / RECORD


def _tree(store: DecisionStore) -> dict[str, bytes | str]:
    """Every entry under the journal except locks: a file's bytes, or what else it is."""
    out: dict[str, bytes | str] = {}
    for directory, dirnames, filenames in os.walk(store.root):
        for name in dirnames + filenames:
            path = Path(directory) / name
            if name.endswith(".lock") or "cache" in path.parts:
                continue
            if path.is_symlink():
                out[str(path)] = f"link to {os.readlink(path)}"
            elif path.is_file() and path.stat().st_size > 1024**2:
                out[str(path)] = f"{path.stat().st_size} bytes"  # the sparse 2 GB file
            elif path.is_file():
                out[str(path)] = path.read_bytes()
            else:
                out[str(path)] = "other"
    return out


MUTATIONS: dict[str, Callable[[DecisionStore], object]] = {
    "edit": lambda store: store.revise(RECORD, 3, _reason("fourth")),
    "delete": lambda store: store.soft_delete(RECORD, 3),
    "restore": lambda store: store.restore(RECORD, 3),
}


def _gap(store: DecisionStore) -> None:
    (_history(store) / "revision-000001.json").unlink()
    (_history(store) / f"revision-000001.json{DIGEST_SUFFIX}").unlink()


def _renumbered(store: DecisionStore) -> None:
    os.rename(_history(store) / "revision-000002.json", _history(store) / "revision-000005.json")


def _duplicate(store: DecisionStore) -> None:
    data = (_history(store) / "revision-000001.json").read_bytes()
    (_history(store) / "revision-0000001.json").write_bytes(data)


def _junk(store: DecisionStore) -> None:
    (_history(store) / "notes.txt").write_text("kept here by hand\n")


def _symlink(store: DecisionStore, tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.json"
    os.rename(_history(store) / "revision-000001.json", target)
    os.symlink(target, _history(store) / "revision-000001.json")


def _fifo(store: DecisionStore) -> None:
    (_history(store) / "revision-000002.json").unlink()
    os.mkfifo(_history(store) / "revision-000002.json", 0o600)


def _huge(store: DecisionStore) -> None:
    with open(_history(store) / "revision-000002.json", "r+b") as handle:
        handle.truncate(2 * 1024**3)  # sparse: 2 GB on paper, nothing on disk


def _folder(store: DecisionStore) -> None:
    (_history(store) / "revision-000002.json").unlink()
    (_history(store) / "revision-000002.json").mkdir()


def _newer_than_current(store: DecisionStore) -> None:
    current = store.get(RECORD).revision
    data = (_history(store) / "revision-000002.json").read_bytes()
    (_history(store) / f"revision-{current + 1:06d}.json").write_bytes(
        data.replace(b'"revision": 2', f'"revision": {current + 1}'.encode())
    )


BREAKAGES: dict[str, tuple[Callable[..., None], str]] = {
    "gap": (_gap, "missing revision 1"),
    "renumbered": (_renumbered, "holds revision 2"),
    "duplicate": (_duplicate, "repeats revision 1"),
    "junk name": (_junk, "invalid implementation decision history filename 'notes.txt'"),
    "symlink": (_symlink, "is a symbolic link"),
    "fifo": (_fifo, "is not a regular file"),
    "2 GB file": (_huge, "is 2,147,483,648 bytes; the limit is 1,048,576 bytes"),
    "folder": (_folder, "is not a regular file"),
    "newer than current": (_newer_than_current, r"newer than the current revision \d"),
}


@pytest.mark.parametrize("mutation", sorted(MUTATIONS))
@pytest.mark.parametrize("breakage", sorted(BREAKAGES))
def test_a_mutation_refuses_a_broken_history_and_changes_nothing(
    store: DecisionStore, tmp_path: Path, breakage: str, mutation: str
) -> None:
    if mutation == "restore":
        store.soft_delete(RECORD, 3)
        store.revise(RECORD, 4, _reason("after delete"))  # corrected at 5: restore needs deleted
        store.soft_delete(RECORD, 5)
        run: Callable[[DecisionStore], object] = lambda s: s.restore(RECORD, 6)  # noqa: E731
    else:
        run = MUTATIONS[mutation]
    breaker, message = BREAKAGES[breakage]
    if breaker is _symlink:
        breaker(store, tmp_path)
    else:
        breaker(store)
    before = _tree(store)
    with pytest.raises(HistoryBroken, match=message) as caught:
        run(store)
    assert caught.value.runbook_anchor == "broken-history-chain"
    assert _tree(store) == before


@pytest.mark.parametrize("breakage", sorted(BREAKAGES))
def test_history_and_doctor_report_each_broken_history(
    store: DecisionStore, tmp_path: Path, breakage: str
) -> None:
    breaker, message = BREAKAGES[breakage]
    if breaker is _symlink:
        breaker(store, tmp_path)
    else:
        breaker(store)
    with pytest.raises(HistoryBroken, match=message):
        store.history(RECORD)
    findings = [f for f in check_journal(store) if f.path == str(_history(store))]
    assert [f.runbook for f in findings] == ["broken-history-chain"]


def test_a_healthy_history_has_a_sha256sum_digest_beside_each_revision(
    store: DecisionStore,
) -> None:
    names = sorted(os.listdir(_history(store)))
    assert names == [
        "revision-000001.json",
        "revision-000001.json.sha256",
        "revision-000002.json",
        "revision-000002.json.sha256",
    ]
    for revision in ("revision-000001.json", "revision-000002.json"):
        digest = hashlib.sha256((_history(store) / revision).read_bytes()).hexdigest()
        digest_file = _history(store) / f"{revision}.sha256"
        assert digest_file.read_text() == f"{digest}  {revision}\n"
        assert oct(digest_file.stat().st_mode & 0o777) == "0o600"
    assert [r.revision for r in store.history(RECORD)] == [1, 2, 3]
    assert check_journal(store) == []


def test_content_changed_inside_a_revision_is_found_and_refused(store: DecisionStore) -> None:
    path = _history(store) / "revision-000001.json"
    edited = path.read_bytes().replace(b"independent files", b"independent FILES")
    assert edited != path.read_bytes()
    path.write_bytes(edited)  # still valid, still revision 1: only the digest can tell
    with pytest.raises(HistoryTampered, match=r"revision-000001\.json was changed after"):
        store.history(RECORD)
    before = _tree(store)
    with pytest.raises(HistoryTampered) as caught:
        store.revise(RECORD, 3, _reason("fourth"))
    assert caught.value.runbook_anchor == "history-tampered"
    assert _tree(store) == before
    [finding] = check_journal(store)
    assert (finding.runbook, finding.path) == ("history-tampered", str(_history(store)))


def test_a_digest_that_is_not_a_sha256sum_line_is_tampering(store: DecisionStore) -> None:
    (_history(store) / "revision-000002.json.sha256").write_text("0" * 64 + "  other.json\n")
    with pytest.raises(HistoryTampered, match="is not a sha256sum line for revision-000002"):
        store.history(RECORD)


def test_a_digest_left_without_its_revision_is_refused(store: DecisionStore) -> None:
    (_history(store) / "revision-000009.json.sha256").write_text("0" * 64 + "  x\n")
    with pytest.raises(HistoryBroken, match="digest of a revision that is missing"):
        store.revise(RECORD, 3, _reason("fourth"))


def test_revisions_without_digests_are_read_then_sealed_by_the_next_edit(
    store: DecisionStore,
) -> None:
    for revision in (1, 2):
        (_history(store) / f"revision-{revision:06d}.json.sha256").unlink()
    check = store.check_history(RECORD)
    assert ([r.revision for r in check.revisions], check.unsealed) == ([1, 2, 3], [1, 2])
    assert check_health(store).unsealed == 2
    assert check_journal(store) == []  # a KernForge history has no digests: not a problem
    store.revise(RECORD, 3, _reason("fourth"))
    assert store.check_history(RECORD).unsealed == []
    assert sorted(n for n in os.listdir(_history(store)) if n.endswith(".sha256")) == [
        f"revision-{n:06d}.json.sha256" for n in (1, 2, 3)
    ]


def test_doctor_repair_writes_the_missing_digests(store: DecisionStore) -> None:
    (_history(store) / "revision-000001.json.sha256").unlink()
    report = repair_journal(store)
    assert (report.sealed, report.health.findings) == (1, [])
    assert check_health(store).unsealed == 0


def test_an_explicit_purge_rewrites_the_digest_with_the_revision(store: DecisionStore) -> None:
    path = _history(store) / "revision-000001.json"
    data = path.read_bytes().replace(b"independent files", b"independent stores")
    rewrite_revision(store.root, _history(store), path.name, data)
    assert store.history(RECORD)[0].selection_reason_raw.startswith("independent stores")
    store.revise(RECORD, 3, _reason("fourth"))


def test_a_revision_left_by_a_writer_stopped_before_its_replace_is_taken_up(
    store: DecisionStore,
) -> None:
    current = (store.records_dir / f"{RECORD}.json").read_bytes()
    (_history(store) / "revision-000003.json").write_bytes(current)  # history first, then
    assert [r.revision for r in store.history(RECORD)] == [1, 2, 3]  # the replace never ran
    assert store.revise(RECORD, 3, _reason("fourth")).revision == 4
    assert [r.revision for r in store.history(RECORD)] == [1, 2, 3, 4]
