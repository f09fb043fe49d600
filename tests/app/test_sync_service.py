"""Automatic sync in the app: two journals and a real bare git remote (file://), short timings.

Every wait is `qtbot.waitUntil` on what the app shows or holds; the intervals are injected, so
a debounce or a retry takes a fraction of a second and no test sleeps.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from app.main_app import TrayApp
from app.sync_service import SyncService
from core.index.query import IndexFilter
from core.journal import Journal
from core.store.locking import locked
from core.sync.engine import SyncEngine
from core.sync.indicator import CONFLICT, ERROR, OFF, OFFLINE, SYNCED, headline
from core.sync.schedule import SyncTiming
from tests.app.support.sync_support import (
    WAIT_MS,
    Pair,
    make_pair,
    service_for,
    stop_services,
)
from tests.app.support.teardown import close_app
from tests.factories import make_record
from tests.integration.sync_machines import ROOT, bare_remote, cli_env, remote_commits

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore(
        r"No such signal QPlatformNativeInterface::systemTrayWindowChanged",
    ),
]

FAST = SyncTiming(
    debounce=0.2, max_delay=1.0, start_delay=0.0, poll=0.5, retry_first=0.3, retry_cap=1.0
)
"""Short enough for a test, with a poll soon after the debounce as in the app's."""

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


def started(qtbot: QtBot, made: list[SyncService], journal: Journal) -> SyncService:
    """A service that has run its start sync."""
    service = service_for(made, journal)
    service.start()
    synced_once(qtbot, service)
    return service


def synced_once(qtbot: QtBot, service: SyncService) -> None:
    """Waits for the sync the service runs at start (before it, the state file says synced)."""

    def done() -> bool:
        syncs = service.engine.syncs  # type: ignore[attr-defined]
        return bool(syncs) and not service.schedule.running and service.view.state == SYNCED

    qtbot.waitUntil(done, timeout=WAIT_MS)


def ids(journal: Journal) -> set[str]:
    return set(journal.index.query_ids(IndexFilter()))


def profile_state(app: TrayApp) -> str:
    return app.profile_worker.status().state


def edit(journal: Journal, record_id: str, reason: str) -> None:
    current = journal.store.get(record_id)

    def mutate(record: object) -> None:
        record.selection_reason_raw = reason  # type: ignore[attr-defined]

    journal.store.revise(record_id, current.revision, mutate)


def test_a_decision_recorded_on_one_machine_appears_in_the_others_app(
    qtbot: QtBot, pair: Pair
) -> None:
    laptop_app = TrayApp(pair.laptop, tray_available=False, sync_timing=FAST)
    desk_app = TrayApp(pair.desk, tray_available=False, sync_timing=FAST)
    apps = [laptop_app, desk_app]
    try:
        for app in apps:
            assert app.start()
        qtbot.waitUntil(lambda: all(a.sync.view.state == SYNCED for a in apps), timeout=WAIT_MS)
        pair.desk.index.read_changed_files()
        desk_app.profile_worker.request_rebuild()
        qtbot.waitUntil(lambda: profile_state(desk_app) == "current", timeout=WAIT_MS)
        before = desk_app.profile_worker.status().journal_hash
        assert "decision-laptop-2" not in ids(pair.desk)

        pair.laptop.store.put(make_record(id="decision-laptop-2", problem="Choose the queue"))
        qtbot.waitUntil(lambda: laptop_app.sync.view.changes_waiting, timeout=WAIT_MS)
        qtbot.waitUntil(lambda: "decision-laptop-2" in ids(pair.desk), timeout=WAIT_MS)
        qtbot.waitUntil(
            lambda: desk_app.profile_worker.status().journal_hash != before, timeout=WAIT_MS
        )
        qtbot.waitUntil(lambda: profile_state(desk_app) == "current", timeout=WAIT_MS)
        assert not laptop_app.sync.view.changes_waiting
    finally:
        for app in apps:
            close_app(qtbot, app)


def test_an_unreachable_remote_is_offline_then_retried_until_it_is_back(
    qtbot: QtBot, pair: Pair, services: list[SyncService]
) -> None:
    service = started(qtbot, services, pair.laptop)
    away = pair.remote.with_name("away.git")
    shutil.move(pair.remote, away)
    pair.laptop.store.put(make_record(id="decision-laptop-3", problem="Written offline"))
    qtbot.waitUntil(lambda: service.view.state == OFFLINE, timeout=WAIT_MS)
    view = service.view
    assert view.retry_at is not None
    assert headline(view).startswith("Offline, will retry at ")
    assert view.entry == "sync-offline"
    assert view.pending_commits == 1
    assert "does not appear to be a git repository" in view.detail
    syncs = service.engine.syncs  # type: ignore[attr-defined]
    qtbot.waitUntil(lambda: service.schedule.failures >= 2, timeout=WAIT_MS)
    assert service.engine.syncs > syncs  # type: ignore[attr-defined]
    assert service.view.state == OFFLINE

    shutil.move(away, pair.remote)
    qtbot.waitUntil(lambda: service.view.state == SYNCED, timeout=WAIT_MS)
    assert service.view.pending_commits == 0
    assert service.schedule.failures == 0


def test_a_record_changed_on_both_machines_shows_conflict_1(
    qtbot: QtBot, pair: Pair, services: list[SyncService]
) -> None:
    laptop = started(qtbot, services, pair.laptop)
    desk = started(qtbot, services, pair.desk)
    edit(pair.laptop, "decision-shared-1", "Laptop says LRU")
    qtbot.waitUntil(lambda: laptop.view.state == SYNCED and laptop.view.pending_commits == 0)
    qtbot.waitUntil(lambda: not laptop.view.changes_waiting and not laptop.view.running)
    with qtbot.waitSignal(desk.conflicts_found, timeout=WAIT_MS) as found:
        edit(pair.desk, "decision-shared-1", "Desk says LFU")
    assert found.args == [("decision-shared-1",)]
    view = desk.view
    assert view.state == CONFLICT and view.conflicts == ("decision-shared-1",)
    assert headline(view) == "1 sync conflict"
    assert view.entry == "sync-conflict"


def test_requests_during_a_sync_coalesce_and_a_terminal_sync_waits_its_turn(
    qtbot: QtBot, pair: Pair, services: list[SyncService]
) -> None:
    service = started(qtbot, services, pair.laptop)
    engine = service.engine
    first = engine.syncs  # type: ignore[attr-defined]
    holding = threading.Event()
    release = threading.Event()

    def hold_the_lock() -> None:  # what a `sync now` in a terminal holds while it runs
        with locked(engine.root, engine.files.directory / "sync"):
            holding.set()
            release.wait(WAIT_MS / 1000)

    holder = threading.Thread(target=hold_the_lock)
    holder.start()
    assert holding.wait(10)
    try:
        service.sync_now()
        qtbot.waitUntil(lambda: service.view.running, timeout=WAIT_MS)
        for _ in range(3):
            service.sync_now()
        pair.laptop.store.put(make_record(id="decision-laptop-4", problem="Made meanwhile"))
        qtbot.wait(300)  # the sync waits on the lock; nothing else starts beside it
        assert engine.syncs == first + 1  # type: ignore[attr-defined]
    finally:
        release.set()
        holder.join()
    qtbot.waitUntil(lambda: engine.syncs == first + 2, timeout=WAIT_MS)  # type: ignore[attr-defined]
    qtbot.waitUntil(lambda: service.view.state == SYNCED and not service.view.running)
    qtbot.wait(500)
    assert engine.syncs == first + 2  # type: ignore[attr-defined]
    assert service.view.pending_commits == 0


def test_a_terminal_sync_now_beside_the_apps_leaves_both_journals_whole(
    qtbot: QtBot, pair: Pair, services: list[SyncService]
) -> None:
    service = started(qtbot, services, pair.desk)
    for number in range(5):
        pair.desk.store.put(make_record(id=f"decision-desk-{number}", problem=f"Item {number}"))
    terminal = subprocess.Popen(
        [sys.executable, "-m", "app.cli.main", "--journal", str(pair.desk.root), "sync", "now"],
        cwd=ROOT,
        env=cli_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    service.sync_now()
    out, err = terminal.communicate(timeout=120)
    assert terminal.returncode == 0, (out, err)
    qtbot.waitUntil(lambda: service.view.state == SYNCED and not service.view.running)
    SyncEngine(pair.laptop.root).sync()
    got = {r.id for r in pair.laptop.store.list_with_issues().records}
    assert {f"decision-desk-{n}" for n in range(5)} <= got
    assert pair.laptop.store.list_with_issues().issues == []
    assert pair.desk.store.list_with_issues().issues == []


def test_a_journal_that_does_not_sync_never_syncs_until_it_is_set_up(
    qtbot: QtBot, tmp_path: Path, services: list[SyncService]
) -> None:
    journal = Journal(tmp_path / "solo")
    journal.store.put(make_record(id="decision-solo-1", problem="Alone"))
    service = service_for(services, journal, FAST)
    shown: list[object] = []
    service.view_changed.connect(shown.append)
    service.start()
    journal.store.put(make_record(id="decision-solo-2", problem="Still alone"))
    service.sync_now()
    qtbot.wait(700)
    assert service.engine.syncs == 0  # type: ignore[attr-defined]
    assert service.view.state == OFF and shown == []
    assert not (journal.root / "sync").exists()

    _, url = bare_remote(tmp_path, "solo.git")
    SyncEngine(journal.root).init(url, encrypt=False)
    service.note_external_change()  # `sync init` in a terminal tells the app
    synced_once(qtbot, service)
    SyncEngine(journal.root).off(forget_key=False)  # `sync off` in a terminal
    service.note_external_change()
    qtbot.waitUntil(lambda: service.view.state == OFF, timeout=WAIT_MS)


def test_a_key_that_cannot_be_read_is_an_error_told_once_and_retried(
    qtbot: QtBot, pair: Pair, tmp_path: Path, services: list[SyncService]
) -> None:
    service = service_for(services, pair.desk, FAST)
    told: list[tuple[str, str]] = []
    service.error_started.connect(lambda entry, message: told.append((entry, message)))
    (tmp_path / "desk" / "sync.key").chmod(0o644)
    service.start()
    qtbot.waitUntil(lambda: service.view.state == ERROR, timeout=WAIT_MS)
    assert service.view.entry == "sync-key-unavailable"
    assert headline(service.view) == "Sync error: sync-key-unavailable"
    assert "is readable by others (mode 0644)" in service.view.detail
    qtbot.waitUntil(lambda: service.schedule.failures >= 3, timeout=WAIT_MS)
    assert [entry for entry, _ in told] == ["sync-key-unavailable"]
    (tmp_path / "desk" / "sync.key").chmod(0o600)
    qtbot.waitUntil(lambda: service.view.state == SYNCED, timeout=WAIT_MS)


def _commits(remote: Path) -> int:
    return len(remote_commits(remote))


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
