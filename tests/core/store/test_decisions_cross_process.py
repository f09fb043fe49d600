"""Compare-and-swap across real OS processes: one winner per revision, no lost update."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path

from core.store.decisions import DecisionStore
from tests.factories import make_record

ROOT = Path(__file__).resolve().parents[3]

_RACE_ONCE = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from core.errors import RevisionConflict
    from core.store.decisions import DecisionStore
    store = DecisionStore(Path(sys.argv[1]))
    start = float(sys.argv[2])
    while time.time() < start:
        time.sleep(0.001)
    try:
        store.revise("decision-test-1", 1, lambda r: setattr(r, "tags", [sys.argv[3]]))
        print("won")
    except RevisionConflict:
        print("conflict")
    """
)

_INCREMENT = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from core.errors import RevisionConflict
    from core.store.decisions import DecisionStore
    store = DecisionStore(Path(sys.argv[1]))
    name, count = sys.argv[2], int(sys.argv[3])
    conflicts = 0
    for index in range(count):
        while True:
            current = store.get("decision-test-1")
            tag = f"{name}-{index}"
            def add(record, tag=tag):
                record.tags = [*record.tags, tag]
            try:
                store.revise("decision-test-1", current.revision, add)
                break
            except RevisionConflict:
                conflicts += 1
    print(conflicts)
    """
)


def _spawn(script: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", script, *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_exactly_one_process_wins_a_revision(tmp_path: Path) -> None:
    store = DecisionStore(tmp_path / "journal")
    store.put(make_record())
    start = time.time() + 1.0
    procs = [_spawn(_RACE_ONCE, str(store.root), str(start), f"p{i}") for i in range(4)]
    outcomes = []
    for proc in procs:
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err
        outcomes.append(out.strip())
    assert sorted(outcomes) == ["conflict", "conflict", "conflict", "won"]
    assert store.get("decision-test-1").revision == 2
    assert [r.revision for r in store.history("decision-test-1")] == [1, 2]


def test_no_update_is_lost_under_contention(tmp_path: Path) -> None:
    store = DecisionStore(tmp_path / "journal")
    store.put(make_record(tags=[]))
    per_process, processes = 8, 4
    procs = [
        _spawn(_INCREMENT, str(store.root), f"p{i}", str(per_process)) for i in range(processes)
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    final = store.get("decision-test-1")
    expected_tags = {f"p{i}-{n}" for i in range(processes) for n in range(per_process)}
    assert set(final.tags) == expected_tags
    assert final.revision == 1 + processes * per_process
    assert [r.revision for r in store.history("decision-test-1")] == list(
        range(1, final.revision + 1)
    )
