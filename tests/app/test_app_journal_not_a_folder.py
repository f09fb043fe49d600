"""`decision-journal app` on a journal path that is a file shows the error in a window (a start
from the menu has no terminal) and exits 6, instead of a tray icon over an empty journal."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from app import main_app
from app.cli.app_cmds import cmd_app
from core.journal import Journal


def test_the_app_shows_why_it_cannot_start_and_exits_6(
    qtbot: QtBot,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = tmp_path / "journal"
    path.write_text("not a journal\n")
    shown: list[tuple[str, str]] = []

    def exec_box(box: QMessageBox) -> int:
        qtbot.addWidget(box)
        shown.append((box.text(), box.informativeText()))
        return 0

    monkeypatch.setattr(QMessageBox, "exec", exec_box)
    monkeypatch.setattr(main_app, "run_app", lambda *_, **__: pytest.fail("the app started"))
    code = cmd_app(Journal(path), argparse.Namespace(show=False))
    assert code == 6
    [(text, informative)] = shown
    assert text.startswith(f"the journal {path} is a file, not a folder; ")
    assert "decision-journal help runbook journal-not-a-folder" in text
    assert informative == "Decision Journal did not start. Nothing was read or written."
    err = capsys.readouterr().err
    assert err.startswith(f"decision-journal: error: the journal {path} is a file")
    assert path.read_text() == "not a journal\n"
