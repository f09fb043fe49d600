"""Finding and starting the tray app on behalf of an adapter: one place for `ask`, `app` and MCP.

Why a module of its own: the CLI's `ask`, its `app` command and the MCP server all decide
whether a window can be shown here and, when no app answers on the journal's socket, start one
detached and wait for it. Kept in the CLI, the MCP server had to import the CLI to do the same;
here no adapter imports another (import-linter's independence contract). No Qt is imported.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

from app.frozen import child_env, self_command
from core.ipc.client import app_is_running
from core.ipc.runtime_paths import socket_path
from core.journal import Journal

APP_START_SECONDS = 15.0
"""How long a started app may take to answer on its socket before the caller gives up."""
POLL_SECONDS = 0.1


def display_available() -> bool:
    """True where a window can be shown: macOS, Windows, or a session with X11 or Wayland."""
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def start_app(journal: Journal) -> bool:
    """Starts the tray app detached and waits until it answers on its socket."""
    command = [*self_command(), "--journal", str(journal.root), "app"]
    subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        env=child_env(),
    )
    deadline = time.monotonic() + APP_START_SECONDS
    path = socket_path(journal.root)
    while time.monotonic() < deadline:
        if app_is_running(path):
            return True
        time.sleep(POLL_SECONDS)
    return False
