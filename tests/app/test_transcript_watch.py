"""Turning on "Import Claude Code answers" keeps importing; turning it off stops the thread."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from app.transcript_watch import TranscriptWatcher, claude_projects_dir
from app.tray import TrayController
from core.journal import Journal

DATA = Path(__file__).resolve().parents[1] / "data" / "importers" / "claude" / "projects"


def test_watcher_imports_answers_and_stops(qtbot: QtBot, tmp_path: Path) -> None:
    projects = tmp_path / "projects"
    projects.mkdir()
    journal = Journal(tmp_path / "journal")
    watcher = TranscriptWatcher(journal, source=projects, interval=0.1)
    counts: list[int] = []
    watcher.imported.connect(counts.append)
    watcher.start()
    try:
        shutil.copytree(DATA, projects, dirs_exist_ok=True)  # answers appear while watching
        qtbot.waitUntil(lambda: bool(counts), timeout=20_000)
        assert list((journal.root / "records").glob("*.json"))
    finally:
        watcher.stop()
    assert not watcher.running


def test_tray_action_toggles_the_watch(qtbot: QtBot) -> None:
    tray = TrayController(autostart_enabled=False, transcript_watch_enabled=False)
    with qtbot.waitSignal(tray.transcript_watch_toggled) as blocker:
        tray.transcript_watch_action.trigger()
    assert blocker.args == [True]
    assert tray.transcript_watch_action in tray.menu.actions()


def test_projects_dir_follows_claude_config_dir(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    assert claude_projects_dir() == tmp_path / "claude" / "projects"
