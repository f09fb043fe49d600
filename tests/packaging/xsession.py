"""A throwaway X display with a system tray, for driving the frozen app like a person would.

Why here: the smoke tests and `packaging/budget.py` both need Xvfb plus a tray host
(trayer, an XEmbed tray) and a way to tell when our icon has been embedded in it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

TRAYER_ARGS = ("--edge", "top", "--align", "right", "--widthtype", "request", "--height", "32")


@dataclass(frozen=True)
class XSession:
    display: str
    tray_window: str | None

    def env(self, base: dict[str, str]) -> dict[str, str]:
        """`base` pointed at this display, with no session bus: the tray must be XEmbed."""
        env = dict(base, DISPLAY=self.display)
        for name in ("WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "XDG_SESSION_TYPE"):
            env.pop(name, None)
        return env

    def tray_windows(self) -> int:
        """How many windows trayer's panel holds; embedding an icon adds two (socket, icon)."""
        if self.tray_window is None:
            return 0
        out = subprocess.run(
            ["xwininfo", "-tree", "-id", self.tray_window],
            env={"DISPLAY": self.display, "PATH": os.environ.get("PATH", "")},
            capture_output=True,
            text=True,
            check=False,
        ).stdout
        return sum(1 for line in out.splitlines() if line.strip().startswith("0x"))


def missing_tools(*, tray: bool) -> list[str]:
    needed = ["Xvfb", "xdotool", "xwininfo"] + (["trayer"] if tray else [])
    return [tool for tool in needed if shutil.which(tool) is None]


def _start_xvfb() -> tuple[subprocess.Popen[bytes], str]:
    read_end, write_end = os.pipe()
    server = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write_end), "-screen", "0", "1280x1024x24", "-nolisten", "tcp"],
        pass_fds=(write_end,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write_end)
    with os.fdopen(read_end) as pipe:
        number = pipe.readline().strip()
    if not number:
        server.kill()
        raise RuntimeError("Xvfb did not report a display number")
    return server, f":{number}"


def _find_window(display: str, *args: str, timeout: float = 10.0) -> str | None:
    env = {"DISPLAY": display, "PATH": os.environ.get("PATH", "")}
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        out = subprocess.run(
            ["xdotool", "search", *args], env=env, capture_output=True, text=True, check=False
        ).stdout.split()
        if out:
            return out[0]
        time.sleep(0.05)
    return None


def _start_trayer(display: str) -> tuple[subprocess.Popen[bytes], str]:
    """trayer and its window id; started again once, as it rarely fails to map in time."""
    env = {"DISPLAY": display, "PATH": os.environ.get("PATH", "")}
    errors = []
    for _attempt in range(2):
        with tempfile.TemporaryFile() as log:
            host = subprocess.Popen(
                ["trayer", *TRAYER_ARGS], env=env, stdout=subprocess.DEVNULL, stderr=log
            )
            window = _find_window(display, "--classname", "panel", timeout=15.0)
            if window is not None:
                return host, window
            _stop(host)
            log.seek(0)
            errors.append(log.read().decode(errors="replace").strip() or f"exit {host.returncode}")
    raise RuntimeError(f"trayer did not map its window: {errors}")


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextmanager
def x_session(*, tray: bool = True) -> Iterator[XSession]:
    """Xvfb on a free display and, when `tray`, trayer docked on it; both stopped afterwards."""
    server, display = _start_xvfb()
    host: subprocess.Popen[bytes] | None = None
    try:
        tray_window = None
        if tray:
            host, tray_window = _start_trayer(display)
        yield XSession(display, tray_window)
    finally:
        if host is not None:
            _stop(host)
        _stop(server)
