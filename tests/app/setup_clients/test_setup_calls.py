"""Every `decision-journal setup …` call that setup prints is the one this user must repeat.

Why: a user who pinned `--journal` (or set up project scope) and then ran a printed hint as
written (`decision-journal setup codex --write --trust-hook`) rewrote the entries for the
default journal and user scope; the hook and the server then looked at another journal than
the app. Seen when a person new to the project set it up by following the printed hints.
"""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from app.cli.main import main
from app.setup_clients.command import Launcher
from app.setup_clients.context import SetupContext


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    monkeypatch.setenv("HOME", str(path))
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    monkeypatch.delenv("CODEX_HOME", raising=False)
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    return path


def printed_calls(out: str) -> list[list[str]]:
    """Each quoted `decision-journal setup …` call in setup's output, as argv."""
    return [
        shlex.split(part)
        for part in out.split("`")[1::2]
        if part.startswith("decision-journal ") and " setup " in f" {part} "
    ]


def test_a_pinned_journal_is_repeated_in_every_hint(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    journal = tmp_path / "pinned journal"
    assert main(["--journal", str(journal), "setup", "codex", "--write"]) == 0
    calls = printed_calls(capsys.readouterr().out)
    assert calls, "setup codex printed no setup call to run"
    for call in calls:
        assert call[:3] == ["decision-journal", "--journal", str(journal)], call
        assert "--scope" not in call, call


def test_project_scope_is_repeated_in_every_hint(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "repo"
    project.mkdir()
    args = ["setup", "codex", "--write", "--scope", "project", "--project-dir", str(project)]
    assert main(args) == 0
    calls = printed_calls(capsys.readouterr().out)
    assert calls
    for call in calls:
        assert call[1] == "setup" and "--journal" not in call, call
        assert call[-4:] == ["--scope", "project", "--project-dir", str(project)], call


def test_own_calls_leaves_other_text_alone(tmp_path: Path) -> None:
    ctx = SetupContext("user", tmp_path, tmp_path, Launcher("decision-journal"), None)
    text = "run `decision-journal setup codex --check` or `decision-journal doctor`"
    assert ctx.own_calls(text) == text
