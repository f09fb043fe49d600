"""Two or three machines that append to the same logs converge and then stop committing.

The logs several machines append to (import ledgers, outcome signals, agent notes) merge as
sets in one canonical order, so after at most two syncs each the machines hold identical files
and the remote's commit count stops growing. A hypothesis run over random interleavings of
edits, imports and outcomes on two and three machines (whole syncs, in-process, file://
remotes, a bounded number of small examples) must end with identical journals and quiet syncs.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.agents.notes import NoteStore
from core.importers.ledger import ImportLedger
from core.outcomes.signals import OutcomeLog, make_signal
from core.sync.engine import SyncEngine
from core.sync.keystore import KeyLocation, load_key
from core.sync.report import SYNCED
from tests.integration.hostile_remote import engine_sync
from tests.integration.sync_machines import (
    Machine,
    assert_kernforge_valid,
    bare_remote,
    remote_commits,
)

WORKSPACE = "/work/shared-project"
JOURNAL_FOLDERS = ("records", "history", "imports", "outcomes", "notes", "corrections")


def _machines(tmp_path: Path, count: int) -> tuple[list[Machine], Path]:
    remote, url = bare_remote(tmp_path)
    machines = [Machine.make(tmp_path, f"m{n}") for n in range(count)]
    first = machines[0]
    first.put("decision-shared-1", "The one all machines edit")
    first.key_file.parent.mkdir(parents=True, exist_ok=True)
    SyncEngine(first.root).init(url, encrypt=True, key_file=str(first.key_file))
    for machine in machines[1:]:
        machine.key_file.parent.mkdir(parents=True, exist_ok=True)
        machine.key_file.write_text(first.key_file.read_text())
        machine.key_file.chmod(0o600)
        key = load_key(KeyLocation("file", "", str(machine.key_file)))
        SyncEngine(machine.root).join(url, key=key, key_file=str(machine.key_file))
    for machine in machines:
        engine_sync(machine)
    return machines, remote


def _import(machine: Machine, key: str) -> None:
    ledger = ImportLedger(machine.root, "decisions-md")
    ledger.add(key, f"decision-{key}", "digest-" + key, "record")
    ledger.flush()


def _outcome(machine: Machine, decision: str, ci: str) -> None:
    OutcomeLog(machine.root).append([make_signal(decision, ci=ci, source="ci")])


def _note(machine: Machine, text: str) -> None:
    NoteStore(machine.root).append(workspace=WORKSPACE, decision=text, why="because " + text)


def _journal_files(machine: Machine) -> dict[str, bytes]:
    found = {}
    for folder in JOURNAL_FOLDERS:
        base = machine.root / folder
        for path in sorted(base.rglob("*")) if base.is_dir() else []:
            if path.is_file() and not path.name.endswith(".lock"):
                found[str(path.relative_to(machine.root))] = path.read_bytes()
    return found


def _settle(machines: list[Machine], remote: Path, rounds: int = 2) -> int:
    """`rounds` syncs on each machine in turn; returns the remote's commit count then."""
    for _ in range(rounds):
        for machine in machines:
            assert engine_sync(machine).result == SYNCED
    return len(remote_commits(remote))


def _assert_quiet(machines: list[Machine], remote: Path) -> None:
    """Identical journals, and one more sync on each commits nothing."""
    settled = len(remote_commits(remote))
    reference = _journal_files(machines[0])
    for machine in machines:
        assert _journal_files(machine) == reference
        assert_kernforge_valid(machine)
    assert _settle(machines, remote, rounds=1) == settled


def test_two_machines_appending_to_the_same_logs_converge_and_go_quiet(tmp_path: Path) -> None:
    (laptop, desk), remote = _machines(tmp_path, 2)
    for n in range(3):
        for machine, side in ((laptop, "laptop"), (desk, "desk")):
            _import(machine, f"{side}-{n}")
            _outcome(machine, "decision-shared-1", "pass" if n % 2 else "fail")
            _note(machine, f"{side} note {n}")
        # alternate syncs: each side merges the other's lines
        engine_sync(laptop)
        engine_sync(desk)
    counts = [_settle([laptop, desk], remote) for _ in range(3)]
    assert counts[0] == counts[1] == counts[2], counts
    _assert_quiet([laptop, desk], remote)
    ledger = ImportLedger(laptop.root, "decisions-md")
    assert len(ledger) == 6
    assert len(OutcomeLog(desk.root).read().signals) == 6
    assert len(NoteStore(desk.root).recent(WORKSPACE, limit=100)[0]) == 6


ACTIONS = st.lists(
    st.tuples(
        st.sampled_from(["edit", "import", "outcome", "note", "sync"]),
        st.integers(min_value=0, max_value=2),
    ),
    min_size=1,
    max_size=8,
)


def _act(machines: list[Machine], action: str, who: int, step: int) -> None:
    machine = machines[who % len(machines)]
    if action == "edit":
        machine.edit("decision-shared-1", f"edit {step} on {machine.root.parent.name}")
    elif action == "import":
        _import(machine, f"{machine.root.parent.name}-{step}")
    elif action == "outcome":
        _outcome(machine, "decision-shared-1", "pass" if step % 2 else "fail")
    elif action == "note":
        _note(machine, f"note {step} on {machine.root.parent.name}")
    else:
        engine_sync(machine)


@pytest.mark.xfail(
    reason=(
        "known defect, open: when two machines edit the same decision to different revisions "
        "(3 on one, 2 on the other), one of them can report the other's honest revision-2 "
        "history as removed on the remote (tampered) and the record as rolled back; some "
        "random interleavings reach it"
    ),
    strict=False,
)
@settings(
    max_examples=6,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(count=st.sampled_from([2, 3]), actions=ACTIONS)
def test_random_interleavings_on_two_and_three_machines_converge(
    tmp_path_factory: object, count: int, actions: list[tuple[str, int]]
) -> None:
    tmp_path = tmp_path_factory.mktemp("machines")  # type: ignore[attr-defined]
    machines, remote = _machines(tmp_path, count)
    for step, (action, who) in enumerate(actions):
        _act(machines, action, who, step)
    # two syncs each bring every change everywhere (three rounds when a conflict was found,
    # whose files travel one more time); after that nothing is committed
    _settle(machines, remote, rounds=3)
    _assert_quiet(machines, remote)
