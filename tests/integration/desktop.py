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

from core.ipc_client import app_is_running
from core.runtime_paths import socket_path

ROOT = Path(__file__).resolve().parents[2]


def _free_display() -> int:
    for number in range(150, 250):
        if (
            not Path(f"/tmp/.X11-unix/X{number}").exists()
            and not Path(f"/tmp/.X{number}-lock").exists()
        ):
            return number
    raise RuntimeError("no free X display number")


@contextlib.contextmanager
def xvfb_with_tray() -> Iterator[dict[str, str]]:
    """An Xvfb screen plus trayer as the system tray; yields the environment to use."""
    for tool in ("Xvfb", "trayer", "xdotool"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed (make test installs it)")
    display = f":{_free_display()}"
    xvfb = subprocess.Popen(
        ["Xvfb", display, "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    env = dict(os.environ, DISPLAY=display)
    env.pop("QT_QPA_PLATFORM", None)
    tray = None
    try:
        _wait_for(
            lambda: (
                subprocess.run(
                    ["xdotool", "getmouselocation"], env=env, capture_output=True
                ).returncode
                == 0
            ),
            10,
        )
        tray = subprocess.Popen(
            [
                "trayer",
                "--edge",
                "top",
                "--align",
                "right",
                "--widthtype",
                "request",
                "--height",
                "24",
                "--SetDockType",
                "true",
                "--transparent",
                "false",
            ],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(0.5)
        yield env
    finally:
        for proc in (tray, xvfb):
            if proc is not None:
                proc.terminate()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(5)


def _wait_for(predicate: object, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():  # type: ignore[operator]
            return
        time.sleep(0.05)
    raise TimeoutError("condition not met in time")


def app_env(runtime_dir: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("DECISION_JOURNAL_HOME", None)
    env["XDG_RUNTIME_DIR"] = str(runtime_dir)
    env["PYTHONPATH"] = str(ROOT)
    env.setdefault("QT_QPA_PLATFORM", "offscreen")
    env.update(extra or {})
    return env


@contextlib.contextmanager
def running_app(journal: Path, env: dict[str, str]) -> Iterator[subprocess.Popen[str]]:
    """The real `decision-journal app` process, stopped (SIGTERM) when the block ends.

    Its output goes to `app.log` beside the journal (a pipe nobody reads could fill and stall it).
    """
    log_path = journal.parent / "app.log"
    log = open(log_path, "a", encoding="utf-8")  # noqa: SIM115 - closed in finally
    proc = subprocess.Popen(
        [sys.executable, "-m", "app.cli.main", "--journal", str(journal), "app"],
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
    result = subprocess.run(["xdotool", *args], env=env, capture_output=True, text=True, timeout=30)
    return result.stdout.strip()
