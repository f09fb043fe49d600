"""The hook's own entry: the exact argument forms clients use, and the journal directory the
CLI would pick, found without platformdirs."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from app.hooks import entry
from core.store import location


@pytest.mark.parametrize(
    ("argv", "parsed"),
    [
        (["hook", "claude-code"], (None, "claude-code")),
        (["--journal", "/j", "hook", "codex"], ("/j", "codex")),
        (["--journal=/j", "hook", "gemini"], ("/j", "gemini")),
        (["hook", "cursor"], (None, "cursor")),
        (["hook", "copilot"], (None, "copilot")),
        (["hook", "vscode"], None),
        (["hook"], None),
        (["hook", "codex", "extra"], None),
        (["--help", "hook", "codex"], None),
        (["--jour", "/j", "hook", "codex"], None),
        (["hook", "--help"], None),
    ],
)
def test_only_the_configured_forms_skip_the_parser(
    argv: list[str], parsed: tuple[str | None, str] | None
) -> None:
    assert entry.parse_argv(argv) == parsed


def test_names_match_core_location() -> None:
    assert (entry.ENV_HOME, entry.APP_NAME) == (location.ENV_HOME, location.APP_NAME)


@pytest.mark.parametrize(
    "env",
    [
        {"HOME": "/home/dev"},
        {"HOME": "/home/dev/"},
        {"HOME": "/"},
        {"HOME": "/home/dev", "XDG_DATA_HOME": "/data"},
        {"HOME": "/home/dev", "XDG_DATA_HOME": "/data/"},
        {"HOME": "/home/dev", "XDG_DATA_HOME": "relative/data"},
        {"HOME": "/home/dev", "XDG_DATA_HOME": ""},
        {"HOME": "/home/dev", "XDG_DATA_HOME": " /data"},
        {"HOME": "relative"},
        {},
        {"HOME": "/home/dev", "DECISION_JOURNAL_HOME": "~/journal"},
        {"HOME": "/home/dev", "DECISION_JOURNAL_HOME": "  "},
        {"HOME": "/home/dev", "DECISION_JOURNAL_HOME": "rel/j"},
    ],
)
@pytest.mark.parametrize("explicit", [None, "", "~/x", "rel"])
def test_journal_dir_is_the_clis(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], explicit: str | None
) -> None:
    for name in ("HOME", "XDG_DATA_HOME", "DECISION_JOURNAL_HOME", "ANDROID_DATA"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert entry.journal_dir(explicit) == location.resolve_journal_dir(explicit)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the shortcut is Linux only")
def test_the_linux_shortcut_is_taken(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("DECISION_JOURNAL_HOME", raising=False)
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setattr(location, "resolve_journal_dir", lambda _explicit: pytest.fail("slow"))
    assert entry.journal_dir(None) == tmp_path / ".local" / "share" / "decision-journal"
