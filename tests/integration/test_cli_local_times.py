"""The CLI shows times on the user's clock, as the journal window does: `list` and `history`
to the minute, `show` to the second with the zone's name; `--json` keeps the stored UTC."""

from __future__ import annotations

import json
import os
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from tests.factories import two_project_journal
from tests.integration.cli_runner import run_main

ID = "decision-test-1"


@pytest.fixture
def journal(tmp_path: Path) -> Path:
    return two_project_journal(tmp_path / "journal", "Pick a cache invalidation strategy")


def _cli(journal: Path, zone: str, *args: str) -> str:
    result = run_main(["--journal", str(journal), *args], env={**os.environ, "TZ": zone})
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_list_history_and_show_use_the_local_clock(journal: Path) -> None:
    stored = json.loads(_cli(journal, "UTC", "show", ID, "--json"))["updated_at"]
    utc = datetime.fromisoformat(stored[:19] + "+00:00")
    seoul = utc.astimezone(ZoneInfo("Asia/Seoul"))
    assert seoul.hour != utc.hour
    minute = seoul.strftime("%Y-%m-%d %H:%M")
    line = next(
        row for row in _cli(journal, "Asia/Seoul", "list").splitlines() if row.startswith(ID)
    )
    assert f"  {minute}  " in line, line
    history = _cli(journal, "Asia/Seoul", "history", ID).splitlines()[1]
    assert " ".join(history.split()[1:3]) == minute
    shown = _cli(journal, "Asia/Seoul", "show", ID)
    assert f"Updated: {seoul.strftime('%Y-%m-%d %H:%M:%S')} KST" in shown, shown
    assert json.loads(_cli(journal, "Asia/Seoul", "show", ID, "--json"))["updated_at"] == stored
