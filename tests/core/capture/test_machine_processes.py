"""One pending decision per agent session, even when several processes capture at once."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from core.capture.pending_index import is_pending_name
from tests.factories import proposal_dict

ROOT = Path(__file__).resolve().parents[3]

_BEGIN = textwrap.dedent(
    """
    import json, sys, time
    from pathlib import Path
    from core.capture.machine import CaptureService
    from core.errors import PendingConflict
    from core.capture.pending import PendingStore
    from core.store.decisions import DecisionStore
    root, start, proposal = Path(sys.argv[1]), float(sys.argv[2]), json.loads(sys.argv[3])
    service = CaptureService(DecisionStore(root), PendingStore(root))
    while time.time() < start:
        time.sleep(0.001)
    try:
        service.begin(proposal, workspace="/tmp/project", session_id="shared-session")
        print("pending")
    except PendingConflict:
        print("conflict")
    """
)


def test_two_processes_one_session_one_pending(tmp_path: Path) -> None:
    journal = tmp_path / "journal"
    start = time.time() + 1.0
    proposals = [proposal_dict(problem=f"Fork number {n}") for n in range(3)]
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _BEGIN, str(journal), str(start), json.dumps(p)],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for p in proposals
    ]
    outcomes = []
    for proc in procs:
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err
        outcomes.append(out.strip())
    assert sorted(outcomes) == ["conflict", "conflict", "pending"]
    assert len([p for p in (journal / "pending").iterdir() if is_pending_name(p.name)]) == 1
