"""Shared pieces of the agent-integration tests: environments, Xvfb, a scripted fake app.

Every environment built here points XDG_RUNTIME_DIR at a short private temporary directory, so
sockets never meet a real user's app, and drops DISPLAY unless a test starts Xvfb itself.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters

from core.errors import ErrorCode, ProtocolError
from core.ipc.framing import FrameDecoder, encode_frame
from core.ipc.protocol import error_message, parse_request, result_message
from core.ipc.runtime_paths import ensure_runtime_dir, socket_path

KEY_GUARD_MS = 400
"""`app.gui.widgets.window_behaviour.KEY_GUARD_MS` (this module imports no Qt); a test keeps them
equal."""

ROOT = Path(__file__).resolve().parents[2]
_DROPPED = ("DISPLAY", "WAYLAND_DISPLAY", "DECISION_JOURNAL_HOME", "CLAUDE_PROJECT_DIR")


@contextlib.contextmanager
def short_runtime_dir() -> Iterator[Path]:
    """A 0700 directory with a path short enough for a socket name (sun_path is 104 bytes)."""
    path = Path(tempfile.mkdtemp(prefix="dj-", dir="/tmp"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def agent_env(runtime: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _DROPPED}
    env.update(PYTHONPATH=str(ROOT), XDG_RUNTIME_DIR=str(runtime), QT_QPA_PLATFORM="xcb")
    env.update(extra)
    return env


def cli_command(journal: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "app.cli.main", "--journal", str(journal), *args]


# --- Xvfb and the real app -----------------------------------------------------------------


@dataclass
class Desktop:
    """An Xvfb display with the real tray app serving one journal."""

    display: str
    env: dict[str, str]
    journal: Path
    processes: list[subprocess.Popen[str]] = field(default_factory=list)

    def xdotool(self, *args: str, timeout: float = 20.0) -> str:
        run = subprocess.run(
            ["xdotool", *args], env=self.env, capture_output=True, text=True, timeout=timeout
        )
        if run.returncode != 0:
            raise AssertionError(f"xdotool {args} failed: {run.stderr}")
        return run.stdout

    def find_window(self, timeout: float = 20.0) -> str:
        """The capture window, once mapped; its title starts with "Decision: "."""
        return self.xdotool(
            "search", "--sync", "--onlyvisible", "--name", "^Decision: ", timeout=timeout
        ).split()[0]

    def window_gone(self) -> bool:
        run = subprocess.run(
            ["xdotool", "search", "--onlyvisible", "--name", "^Decision: "],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=10,
        )
        return not run.stdout.strip()

    def answer(self, window: str, *steps: tuple[str, str]) -> None:
        """Focus the window, then type like a person: ("key", "2"), ("type", "text").

        A person reads the window before typing: keys in its first moments after it appears
        or gains focus are ignored on purpose (`app.gui.widgets.window_behaviour.KEY_GUARD_MS`), so
        the first key waits past that guard.
        """
        self.xdotool("windowfocus", "--sync", window)
        time.sleep(KEY_GUARD_MS / 1000 + 0.3)
        for kind, value in steps:
            if kind == "key":
                self.xdotool("key", "--delay", "30", value)
            else:
                self.xdotool("type", "--delay", "5", value)
            time.sleep(0.15)


@contextlib.contextmanager
def running_desktop(journal: Path) -> Iterator[Desktop]:
    """Xvfb, a private runtime directory and the real tray app on `journal`, stopped after."""
    with short_runtime_dir() as runtime, _patched_runtime(runtime):
        xvfb, display = start_xvfb()
        env = agent_env(runtime, DISPLAY=display, DECISION_JOURNAL_PROGRESS_SECONDS="0.2")
        desk = Desktop(display, env, journal)
        try:
            desk.processes.append(start_app(env, journal))
            yield desk
        finally:
            for process in desk.processes:
                stop(process)
            stop(xvfb)


@contextlib.contextmanager
def _patched_runtime(runtime: Path) -> Iterator[None]:
    before = os.environ.get("XDG_RUNTIME_DIR")
    os.environ["XDG_RUNTIME_DIR"] = str(runtime)
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("XDG_RUNTIME_DIR", None)
        else:
            os.environ["XDG_RUNTIME_DIR"] = before


MCP_INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test-client", "version": "1"},
    },
}
"""A client's opening request to `decision-journal mcp` (id 1), as a raw JSON-RPC message."""
MCP_INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def mcp_process(journal: Path, runtime: Path) -> subprocess.Popen[str]:
    """`decision-journal mcp` as a client starts it, with pipes for its stdio."""
    return subprocess.Popen(
        cli_command(journal, "mcp"),
        cwd=ROOT,
        env=agent_env(runtime),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@contextlib.asynccontextmanager
async def mcp_client(desk: Desktop, journal: Path, workspace: Path) -> AsyncIterator[Client]:
    """The MCP SDK's own client on `decision-journal mcp`, run for an agent in `workspace`."""
    command, *args = cli_command(journal, "mcp")
    env = dict(desk.env, CLAUDE_PROJECT_DIR=str(workspace))
    params = StdioServerParameters(command=command, args=args, env=env, cwd=str(ROOT))
    async with Client(params) as client:
        yield client


def start_xvfb() -> tuple[subprocess.Popen[bytes], str]:
    """Xvfb on the first free display (-displayfd), so parallel runs never collide."""
    read_fd, write_fd = os.pipe()
    process = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write_fd), "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
        pass_fds=(write_fd,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write_fd)
    number = b""
    deadline = time.monotonic() + 15
    while not number.endswith(b"\n") and time.monotonic() < deadline:
        chunk = os.read(read_fd, 16)
        if not chunk:
            break
        number += chunk
    os.close(read_fd)
    if not number.strip():
        process.kill()
        raise RuntimeError("Xvfb did not report a display number")
    return process, ":" + number.decode().strip()


def start_app(env: dict[str, str], journal: Path) -> subprocess.Popen[str]:
    process = subprocess.Popen(
        cli_command(journal, "app"),
        env=env,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    if "running" not in line:
        process.kill()
        raise RuntimeError(
            f"the app did not start: {line!r} {process.stderr.read() if process.stderr else ''}"
        )
    return process


def stop(process: subprocess.Popen[Any], grace: float = 2.0) -> None:
    """Terminates, waits `grace` seconds, kills, and closes the pipes (an open pipe is a
    ResourceWarning, which the strict warning filter turns into an error)."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)
    for stream in (process.stdin, process.stdout, process.stderr):
        if stream is not None:
            stream.close()


def xvfb_missing_reason() -> str | None:
    for tool in ("Xvfb", "xdotool"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (apt install xvfb xdotool)"
    return None


# --- a scripted stand-in for the app's socket ------------------------------------------------

Handler = Callable[[str, dict[str, Any]], dict[str, Any] | ProtocolError]


class FakeApp:
    """Listens where the app would for one journal and answers by a script (no Qt).

    Used for AskUserQuestion replies a person at the real window cannot produce on demand
    (errors, a missing method, answers that do not fit); `test_hooks_ask_window` drives the real
    app. `handler(method, params)` returns a result or a ProtocolError.
    """

    def __init__(self, journal: Path, handler: Handler) -> None:
        self.path = socket_path(journal)
        ensure_runtime_dir(self.path.parent)
        self.handler = handler
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self._server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._server.bind(str(self.path))
        self._server.listen(8)
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self._server.accept()
            except OSError:
                return
            threading.Thread(target=self._talk, args=(conn,), daemon=True).start()

    def _talk(self, conn: socket.socket) -> None:
        decoder = FrameDecoder()
        with conn:
            while data := conn.recv(65536):
                for body in decoder.feed(data):
                    request = parse_request(body)
                    self.requests.append((request.method, dict(request.params)))
                    reply: dict[str, Any] | ProtocolError
                    if request.method == "hello":
                        reply = {"protocol": 1, "app_version": "fake", "journal": "x"}
                    else:
                        reply = self.handler(request.method, dict(request.params))
                    if isinstance(reply, ProtocolError):
                        conn.sendall(encode_frame(error_message(request.id, reply)))
                    else:
                        conn.sendall(encode_frame(result_message(request.id, reply)))

    def close(self) -> None:
        self._server.close()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)


def method_not_found(method: str, params: dict[str, Any]) -> ProtocolError:
    return ProtocolError(ErrorCode.METHOD_NOT_FOUND, f"unknown method {method!r}", "method")
