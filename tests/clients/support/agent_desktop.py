"""The human's side of a real-client test: a fake HOME our own setup configured, the real tray
app under Xvfb serving that HOME's journal, and a person answering its window with xdotool.

Why a fake HOME: the clients read their config and the journal resolves its default location
from HOME, so `decision-journal setup <client> --write` run with that HOME sets up exactly what
a new user gets, and nothing touches the real user's files. The app gets the HOME's default
journal explicitly; the clients' MCP servers and hooks find it through HOME alone (Codex passes
them only a few variables), as they would on a user's machine.
"""

from __future__ import annotations

import contextlib
import json
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from tests.integration.agent_support import ROOT, Desktop, agent_env, short_runtime_dir
from tests.integration.desktop import running_app, xvfb_with_tray

SETUP_TIMEOUT = 60.0
WINDOW_WAIT = 90.0
"""How long the person waits for the next window: the client starts, then calls the tool."""
SETTLE_SECONDS = 1.0
"""A person's pause between focusing the window and typing: longer than the window's key
guard, which drops keys that arrive just after it appears or gains focus."""

_FROM_USER_SESSION = ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME")

CHOOSE_FIRST: tuple[tuple[str, str], ...] = (
    ("key", "1"),
    ("key", "Return"),
    ("type", "independent files never lose updates"),
    ("key", "Tab"),
    ("type", "one document is a rewrite bottleneck"),
    ("key", "ctrl+Return"),
)
"""Choose option 1 with both reasons, as a person types them."""
CLOSE: tuple[tuple[str, str], ...] = (("key", "Escape"),)
"""Close the window unanswered: the decision stays pending."""
QUIT: tuple[tuple[str, str], ...] = (("quit", ""),)
"""Quit the app (SIGTERM, what the tray's Quit runs) while its window waits for the answer."""


def home_journal(home: Path) -> Path:
    """The default journal for `home` on Linux (platformdirs' user data dir)."""
    return home / ".local" / "share" / "decision-journal"


def with_settings(home: Path, relative: str, settings: dict[str, Any]) -> Path:
    """`home` with a user's own settings file of a client (JSON) at `relative`, as they left
    it before our setup."""
    path = home / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(settings, indent=2), encoding="utf-8")
    return home


def home_env(home: Path, runtime: Path, **extra: str) -> dict[str, str]:
    """agent_support.agent_env with HOME pointing at `home` and no XDG base dirs of our own
    session, so every process resolves the journal and config from that HOME."""
    env = agent_env(runtime, HOME=str(home), **extra)
    for name in _FROM_USER_SESSION:
        env.pop(name, None)
    return env


def run_setup(client: str, home: Path, cwd: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    """`decision-journal setup <client> [flags]` as the user whose HOME is `home`."""
    with short_runtime_dir() as runtime:
        return subprocess.run(
            [sys.executable, "-m", "app.cli.main", "setup", client, *flags],
            cwd=cwd,
            env=home_env(home, runtime, PYTHONPATH=str(ROOT)),
            capture_output=True,
            text=True,
            timeout=SETUP_TIMEOUT,
        )


def configure(client: str, home: Path, cwd: Path, *flags: str) -> str:
    """`setup <client> --write [flags]` for `home`; its output, after checking it succeeded."""
    done = run_setup(client, home, cwd, "--write", *flags)
    assert done.returncode == 0, f"setup {client} --write failed:\n{done.stdout}{done.stderr}"
    return done.stdout


@contextlib.contextmanager
def desktop_for(home: Path) -> Iterator[Desktop]:
    """Xvfb with a tray and the real app serving `home`'s default journal."""
    journal = home_journal(home)
    journal.mkdir(parents=True, exist_ok=True)
    with short_runtime_dir() as runtime, xvfb_with_tray() as screen:
        env = home_env(home, runtime, DISPLAY=screen["DISPLAY"], QT_QPA_PLATFORM="xcb")
        with running_app(journal, env) as app:
            yield Desktop(screen["DISPLAY"], env, journal, [app])


class Person:
    """Answers the next windows in turn, in a thread: one keystroke sequence per window.

    `problem()` stops the person and says what went wrong (no window in time, xdotool
    failing), so a test never passes with an unanswered window; leaving the block stops the
    person too, so no keystroke reaches a later test's window.
    """

    def __init__(self, desk: Desktop, *answers: Sequence[tuple[str, str]]) -> None:
        self.desk = desk
        self.answers = answers
        self.answered = 0
        self.error: BaseException | None = None
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._work, daemon=True)

    def __enter__(self) -> Person:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stopped.set()
        self._thread.join(15)

    def problem(self) -> str:
        """Why not every window was answered, or "" when all were."""
        self._stopped.set()
        self._thread.join(15)
        if self.error is not None:
            return f"the person at the window failed: {self.error!r}"
        if self.answered != len(self.answers):
            return f"the person answered {self.answered} of {len(self.answers)} windows"
        return ""

    def _work(self) -> None:
        try:
            for steps in self.answers:
                window = self._next_window()
                self.desk.xdotool("windowfocus", "--sync", window)
                time.sleep(SETTLE_SECONDS)
                if steps == QUIT:
                    self.desk.processes[0].send_signal(signal.SIGTERM)
                else:
                    self.desk.answer(window, *steps)
                self._wait_gone()
                self.answered += 1
        except BaseException as exc:  # reported by join()
            self.error = exc

    def _next_window(self) -> str:
        deadline = time.monotonic() + WINDOW_WAIT
        while not self._stopped.is_set():
            try:
                return self.desk.find_window(timeout=3.0)
            except (subprocess.TimeoutExpired, AssertionError, IndexError):
                if time.monotonic() > deadline:
                    raise TimeoutError(f"no decision window within {WINDOW_WAIT:.0f} s") from None
        raise TimeoutError("the session ended before the next decision window appeared")

    def _wait_gone(self) -> None:
        deadline = time.monotonic() + 15.0
        while not self.desk.window_gone():
            if time.monotonic() > deadline:
                raise TimeoutError("the decision window stayed open after the answer")
            time.sleep(0.1)
