"""Two running apps polling one remote: a decision crosses within the debounce and one poll,
and polls with nothing new add no commit to the remote (no merge of merges, for ever).

The intervals are the app's, scaled down (debounce to poll as 10 s to 45 s), as
`tests/app/test_sync_service.py` injects them.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from app.sync_service import SyncService
from core.sync.indicator import SYNCED
from core.sync.schedule import SyncTiming
from tests.app.support.sync_support import WAIT_MS, Pair, make_pair, service_for, stop_services
from tests.factories import make_record

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore(r"No such signal QPlatformNativeInterface::systemTrayWindowChanged"),
]

SCALED = SyncTiming(
    debounce=0.1, max_delay=0.6, start_delay=0.0, poll=0.45, retry_first=0.15, retry_cap=6.0
)
"""The app's default timing at a hundredth."""


@pytest.fixture
def pair(tmp_path: Path) -> Pair:
    return make_pair(tmp_path)


@pytest.fixture
def services(qtbot: QtBot) -> Iterator[list[SyncService]]:
    made: list[SyncService] = []
    yield made
    stop_services(qtbot, made)


def _commits(remote: Path) -> int:
    out = subprocess.run(
        ["git", f"--git-dir={remote}", "rev-list", "--count", "main"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return int(out)


def _syncs(service: SyncService) -> int:
    return int(service.engine.syncs)  # type: ignore[attr-defined]


def test_idle_polls_add_no_commit_and_a_decision_crosses_within_one_poll(
    qtbot: QtBot, pair: Pair, services: list[SyncService]
) -> None:
    laptop = service_for(services, pair.laptop, SCALED)
    desk = service_for(services, pair.desk, SCALED)
    for service in (laptop, desk):
        service.start()
    qtbot.waitUntil(lambda: _syncs(laptop) >= 2 and _syncs(desk) >= 2, timeout=WAIT_MS)
    settled = _commits(pair.remote)
    polls = _syncs(laptop) + _syncs(desk)
    qtbot.waitUntil(lambda: _syncs(laptop) + _syncs(desk) >= polls + 8, timeout=WAIT_MS)
    assert _commits(pair.remote) == settled

    made = time.monotonic()
    pair.laptop.store.put(make_record(id="decision-laptop-2", problem="Choose the queue"))
    arrived = pair.desk.root / "records" / "decision-laptop-2.json"
    qtbot.waitUntil(arrived.is_file, timeout=WAIT_MS)
    took = time.monotonic() - made
    budget = SCALED.debounce + SCALED.poll
    assert took < budget + 2.0, f"{took:.2f} s for a debounce and a poll of {budget} s"
    assert _commits(pair.remote) == settled + 1
    polls = _syncs(laptop) + _syncs(desk)
    qtbot.waitUntil(lambda: _syncs(laptop) + _syncs(desk) >= polls + 6, timeout=WAIT_MS)
    assert _commits(pair.remote) == settled + 1
    assert laptop.view.state == SYNCED and desk.view.state == SYNCED
