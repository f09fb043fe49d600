"""An X desktop for end-to-end tests: Xvfb with a window manager, agents asking through the
CLI, and keys typed with xdotool into whichever window has the focus."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.agent_support import start_xvfb, stop
from tests.integration.cli_runner import ROOT
from tests.integration.desktop import xdotool


@contextlib.contextmanager
def xvfb_with_window_manager() -> Iterator[dict[str, str]]:
    """An Xvfb screen managed by openbox; yields the environment that points at it."""
    for tool in ("Xvfb", "openbox", "xdotool", "xprop"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed (make test installs it)")
    xvfb, display = start_xvfb()
    env = dict(os.environ, DISPLAY=display)
    env.pop("QT_QPA_PLATFORM", None)
    manager = subprocess.Popen(
        ["openbox", "--sm-disable"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not wm_running(env):
            time.sleep(0.1)
        yield env
    finally:
        stop(manager)
        stop(xvfb)


def wm_running(env: dict[str, str]) -> bool:
    result = subprocess.run(
        ["xprop", "-root", "_NET_SUPPORTING_WM_CHECK"],
        env=env,
        capture_output=True,
        text=True,
        timeout=10,
    )
    return "window id" in result.stdout


def wait_window(env: dict[str, str], title_prefix: str) -> str:
    found = xdotool(
        env, "search", "--sync", "--onlyvisible", "--name", f"^{re.escape(title_prefix)}"
    )
    assert found, f"no window titled {title_prefix!r}"
    return found.splitlines()[0]


def ask_process(
    journal: Path, env: dict[str, str], proposal: Path, session: str, workspace: Path = ROOT
) -> subprocess.Popen[str]:
    """`decision-journal ask` as an agent runs it; each agent works in its own workspace."""
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "app.cli.main",
            "--journal",
            str(journal),
            "ask",
            str(proposal),
            "--session",
            session,
            "--workspace",
            str(workspace),
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def keys(env: dict[str, str], *names: str) -> None:
    """Press keys (xdotool names: "Return", "ctrl+Return") in the focused window."""
    xdotool(env, "key", "--clearmodifiers", *names)


def type_text(env: dict[str, str], text: str) -> None:
    """Type text into the focused window, a few milliseconds per character."""
    xdotool(env, "type", "--delay", "5", text)


def answer_second_option(env: dict[str, str], reason: str, rejection: str) -> None:
    """In the focused capture window, once its key guard has passed: option 2, its reason and
    the reason the other option was rejected, then record (Ctrl+Return)."""
    keys(env, "2", "Return")
    time.sleep(0.3)
    type_text(env, reason)
    keys(env, "Tab")
    type_text(env, rejection)
    keys(env, "ctrl+Return")
