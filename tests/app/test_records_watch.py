"""The records folder's own change notice: every writer's record reaches the app, told or not."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from app.records_watch import SETTLE_MS, RecordsWatch

pytestmark = [pytest.mark.qt_log_level_fail("WARNING")]


def _write_record(folder: Path, name: str) -> None:
    """As the store writes: a temporary file renamed into place."""
    partial = folder / f".{name}.tmp"
    partial.write_text("{}", encoding="utf-8")
    os.replace(partial, folder / name)


@pytest.fixture
def watch(qtbot: QtBot, tmp_path: Path) -> Iterator[RecordsWatch]:
    watch = RecordsWatch(tmp_path / "journal")
    yield watch
    watch.stop()
    watch.deleteLater()


def test_a_record_written_by_anyone_is_told_once_the_burst_settles(
    qtbot: QtBot, tmp_path: Path, watch: RecordsWatch
) -> None:
    records = tmp_path / "journal" / "records"
    records.mkdir(parents=True)
    watch.start()
    told: list[bool] = []
    watch.changed.connect(lambda: told.append(True))
    with qtbot.waitSignal(watch.changed, timeout=SETTLE_MS + 1500):
        for number in range(5):
            _write_record(records, f"decision-{number}.json")
    qtbot.wait(SETTLE_MS + 200)
    assert told == [True]


def test_a_journal_without_records_yet_is_watched_from_its_first_record(
    qtbot: QtBot, tmp_path: Path, watch: RecordsWatch
) -> None:
    watch.start()
    assert watch.watching == []  # nothing exists yet, and nothing warned
    root = tmp_path / "journal"
    root.mkdir()
    watch.start()
    assert watch.watching == [str(root)]
    (root / "pending").mkdir()
    with qtbot.assertNotEmitted(watch.changed, wait=SETTLE_MS + 300):
        pass
    with qtbot.waitSignal(watch.changed, timeout=SETTLE_MS + 1500):
        (root / "records").mkdir()
    with qtbot.waitSignal(watch.changed, timeout=SETTLE_MS + 1500):
        _write_record(root / "records", "decision-1.json")
