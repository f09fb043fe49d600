"""Running sync services in tests: two synced journals, a counting engine, short timings."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QTimer
from pytestqt.qtbot import QtBot

from app.sync_service import SyncService
from core.journal import Journal
from core.sync.engine import SyncEngine
from core.sync.keystore import KeyLocation, load_key
from core.sync.report import SyncReport
from core.sync.schedule import SyncTiming
from tests.app.support.teardown import settle
from tests.factories import make_record
from tests.integration.sync_machines import bare_remote

QUIET = SyncTiming(debounce=0.2, max_delay=1.0, start_delay=0.0, poll=3600, retry_first=0.3)
"""No poll: only what the test asks for runs."""
WAIT_MS = 30_000


class CountingEngine(SyncEngine):
    """The real engine, counting its syncs."""

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.syncs = 0

    def sync(self) -> SyncReport:
        self.syncs += 1
        return super().sync()


@dataclass
class Pair:
    laptop: Journal
    desk: Journal
    remote: Path
    url: str


def make_pair(tmp_path: Path) -> Pair:
    """A laptop whose journal `sync init` pushed and a desk that joined, through a bare remote."""
    remote, url = bare_remote(tmp_path)
    laptop = Journal(tmp_path / "laptop" / "journal")
    desk = Journal(tmp_path / "desk" / "journal")
    laptop.store.put(make_record(id="decision-shared-1", problem="Pick the cache policy"))
    key_file = tmp_path / "laptop" / "sync.key"
    SyncEngine(laptop.root).init(url, encrypt=True, key_file=str(key_file))
    key = load_key(KeyLocation("file", "", str(key_file)))
    SyncEngine(desk.root).join(url, key=key, key_file=str(tmp_path / "desk" / "sync.key"))
    return Pair(laptop, desk, remote, url)


def service_for(
    made: list[SyncService], journal: Journal, timing: SyncTiming = QUIET
) -> SyncService:
    """A service for the journal with a counting engine, told of the journal's commits."""
    service = SyncService(journal.root, timing=timing, engine=CountingEngine(journal.root))
    journal.store.add_listener(service.listener)
    made.append(service)
    return service


def stop_services(qtbot: QtBot, made: list[SyncService]) -> None:
    """Stops each service as quit does, checks its timer stopped, and frees it."""
    for service in made:
        service.stop()
        timer = service.findChild(QTimer, "sync-timer")
        assert timer is not None and not timer.isActive()
        service.deleteLater()
    settle(qtbot)
