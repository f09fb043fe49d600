"""`make demo`'s journal: `python -m bench.demo_journal --write DIR` writes demo decisions the
CLI lists, and never writes over a folder that holds something."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.demo_journal import main
from tests.integration.cli_runner import run_cli


def test_the_demo_journal_is_written_and_listed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "demo"
    assert main(["--write", str(root)]) == 0
    out = capsys.readouterr().out
    assert f"Open it: decision-journal --journal {root} app --show" in out
    listed = run_cli(root, "list", "--project", "payments-api")
    assert listed.returncode == 0, listed.stderr
    assert len(listed.stdout.splitlines()) > 3
    assert run_cli(root, "doctor").returncode == 0
    before = sorted(p.name for p in (root / "records").iterdir())
    assert main(["--write", str(root)]) == 2
    assert "is not an empty folder" in capsys.readouterr().err
    assert sorted(p.name for p in (root / "records").iterdir()) == before
