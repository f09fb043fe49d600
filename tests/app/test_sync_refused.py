"""Automatic sync against a tampered remote: the service tells it with its runbook entry, the
tray and the status bar say "remote tampered" (never "Synced"), and quit never waits for an
engine that does not exist yet."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from app.gui.journal.sync_status import SyncStatusButton
from app.sync_service import SyncService
from core.errors import TAMPERED_ENTRY
from core.sync.crypto import AgeCodec, SyncKey
from core.sync.indicator import REFUSED, headline
from tests.app.support.sync_support import WAIT_MS, make_pair, service_for, stop_services
from tests.integration import hostile_remote as hostile

pytestmark = [pytest.mark.qt_log_level_fail("WARNING")]


def test_refused_files_show_remote_tampered_with_the_runbook_entry(
    qtbot: QtBot, tmp_path: Path
) -> None:
    pair = make_pair(tmp_path)
    stranger = AgeCodec(SyncKey.generate()).seal(b"{}")
    hostile.plant(pair.remote, {"d/ab/" + "c" * 30 + ".age": stranger})
    made: list[SyncService] = []
    service = service_for(made, pair.desk)
    told: list[tuple[str, str]] = []
    service.error_started.connect(lambda entry, message: told.append((entry, message)))
    button = SyncStatusButton()
    service.view_changed.connect(button.set_view)
    try:
        service.start()
        qtbot.waitUntil(lambda: service.view.state == REFUSED, timeout=WAIT_MS)
        assert told and told[0][0] == TAMPERED_ENTRY  # no manifest a key holder wrote lists it
        assert "tampered" in told[0][1] and "d/ab/" in told[0][1]
        assert headline(service.view) == "Sync: remote tampered, files refused"
        assert button.text() == "Sync: remote tampered, files refused"
        assert "Synced" not in button.text()
        with qtbot.waitSignal(button.help_requested, timeout=WAIT_MS) as asked:
            button.click()
        assert asked.args == [TAMPERED_ENTRY]
    finally:
        stop_services(qtbot, made)
        button.deleteLater()


def test_quit_does_not_wait_when_no_engine_exists_yet(qtbot: QtBot, tmp_path: Path) -> None:
    service = SyncService(tmp_path / "journal")
    service._workers.submit(lambda: time.sleep(1.5), lambda _: None)
    started = time.monotonic()
    service.stop()
    assert time.monotonic() - started < 0.5
    service._workers.wait_idle(5_000)
    service.deleteLater()
