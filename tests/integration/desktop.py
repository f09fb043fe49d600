"""Starts real processes for end-to-end tests: an X server with a tray host, and the app."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.main_app import APP_ID
from core.ipc.client import app_is_running
from core.ipc.runtime_paths import socket_path
from tests.integration.agent_support import ROOT, agent_env, start_xvfb, stop


@contextlib.contextmanager
def xvfb_with_tray() -> Iterator[dict[str, str]]:
    """An Xvfb screen (agent_support.start_xvfb) plus trayer as the tray; yields the env."""
    for tool in ("Xvfb", "trayer", "xdotool"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed (make test installs it)")
    xvfb, display = start_xvfb()
    env = dict(os.environ, DISPLAY=display)
    env.pop("QT_QPA_PLATFORM", None)
    tray = subprocess.Popen(
        ["trayer", "--edge", "top", "--align", "right", "--widthtype", "request",
         "--height", "24", "--SetDockType", "true", "--transparent", "false"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        time.sleep(0.5)
        yield env
    finally:
        stop(tray)
        stop(xvfb)


def _wait_for(predicate: object, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():  # type: ignore[operator]
            return
        time.sleep(0.05)
    raise TimeoutError("condition not met in time")


def app_env(runtime_dir: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    """agent_support.agent_env, headless unless `extra` names a display and platform."""
    return agent_env(runtime_dir, **{"QT_QPA_PLATFORM": "offscreen", **(extra or {})})


@contextlib.contextmanager
def running_app(
    journal: Path,
    env: dict[str, str],
    *,
    launcher: tuple[str, ...] = ("-m", "app.cli.main"),
    options: tuple[str, ...] = (),
) -> Iterator[subprocess.Popen[str]]:
    """The real `decision-journal app` process, stopped (SIGTERM) when the block ends.

    Its output goes to `app.log` beside the journal (a pipe nobody reads could fill and stall it).

    Args:
        launcher: what Python runs, the command line's arguments after it (a probe that wraps
            the app, such as `journal_probe`, goes here).
        options: the `app` command's options (`--show`).
    """
    log_path = journal.parent / "app.log"
    log = open(log_path, "a", encoding="utf-8")  # noqa: SIM115 - closed in finally
    proc = subprocess.Popen(
        [sys.executable, *launcher, "--journal", str(journal), "app", *options],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        text=True,
    )
    old = os.environ.get("XDG_RUNTIME_DIR")
    os.environ["XDG_RUNTIME_DIR"] = env["XDG_RUNTIME_DIR"]
    try:
        _wait_for(lambda: app_is_running(socket_path(journal)) or proc.poll() is not None, 20)
        assert proc.poll() is None, log_path.read_text()
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
        log.close()
        if old is None:
            os.environ.pop("XDG_RUNTIME_DIR", None)
        else:
            os.environ["XDG_RUNTIME_DIR"] = old


def xdotool(env: dict[str, str], *args: str) -> str:
    """xdotool in `env`; returns its output even when it fails (callers assert on it)."""
    result = subprocess.run(["xdotool", *args], env=env, capture_output=True, text=True, timeout=30)
    return result.stdout.strip()


def tray_embeds_our_icon(env: dict[str, str]) -> bool:
    """trayer's 'panel' window must hold a child window named like our app (its
    application name, which is also its window class)."""
    tree = subprocess.run(
        ["xwininfo", "-root", "-tree"], env=env, capture_output=True, text=True, timeout=10
    ).stdout.splitlines()
    for index, line in enumerate(tree):
        if '"panel"' not in line:
            continue
        depth = len(line) - len(line.lstrip())
        for child in tree[index + 1 :]:
            if child.strip() and len(child) - len(child.lstrip()) <= depth:
                break
            if f'"{APP_ID}"' in child:
                return True
    return False
