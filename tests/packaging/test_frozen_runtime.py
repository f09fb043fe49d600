"""app.frozen without a bundle: what child processes inherit, and the start-up probe.

These run in `make test` (no packaging marker); the frozen smoke tests check the same
behaviour end to end against the real bundle.
"""

from __future__ import annotations

import sys

import pytest

from app import frozen

BUNDLE_LIBS = "/opt/decision-journal/_internal"


def test_outside_a_bundle_the_environment_is_passed_on_unchanged() -> None:
    environ = {"LD_LIBRARY_PATH": "/x", "LD_LIBRARY_PATH_ORIG": "/y", "_PYI_ARCHIVE_FILE": "a"}
    assert frozen.child_env(environ, frozen=False) == environ


def test_a_bundle_hands_children_the_users_library_path_back() -> None:
    environ = {
        "LD_LIBRARY_PATH": f"{BUNDLE_LIBS}:/home/me/lib",
        "LD_LIBRARY_PATH_ORIG": "/home/me/lib",
        "_PYI_ARCHIVE_FILE": "/opt/decision-journal/decision-journal",
        "_PYI_PARENT_PROCESS_LEVEL": "-1",
        "PATH": "/usr/bin",
    }
    assert frozen.child_env(environ, frozen=True) == {
        "LD_LIBRARY_PATH": "/home/me/lib",
        "PATH": "/usr/bin",
    }


def test_a_user_without_a_library_path_gets_none() -> None:
    environ = {"LD_LIBRARY_PATH": BUNDLE_LIBS, "HOME": "/home/me"}
    assert frozen.child_env(environ, frozen=True) == {"HOME": "/home/me"}


def test_child_env_copies_rather_than_edits() -> None:
    environ = {"LD_LIBRARY_PATH": BUNDLE_LIBS}
    frozen.child_env(environ, frozen=True)
    assert environ == {"LD_LIBRARY_PATH": BUNDLE_LIBS}


def test_self_command_reruns_the_bundle_or_this_interpreter(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert frozen.self_command() == [sys.executable, "-m", "app.cli.main"]
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "executable", "/opt/decision-journal/decision-journal")
    assert frozen.self_command() == ["/opt/decision-journal/decision-journal"]


def test_start_up_probe_prints_only_when_asked(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv(frozen.STARTUP_PROBE_ENV, raising=False)
    frozen.report_startup("tray-visible")
    assert capsys.readouterr() == ("", "")
    monkeypatch.setenv(frozen.STARTUP_PROBE_ENV, "1")
    frozen.report_startup("tray-visible")
    event, ms = capsys.readouterr().err.split()
    assert event == "tray-visible"
    assert 0 <= int(ms) < 24 * 3600 * 1000
