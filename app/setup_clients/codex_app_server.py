"""A minimal client of `codex app-server`: JSON-RPC, one JSON object per line, on stdio.

Why ask Codex instead of reading its files: whether Codex runs a hook depends on a hash of the
hook's normalized definition that Codex computes internally and does not document; its own
`/hooks` screen reads `hooks/list` (each hook's `key`, `currentHash`, `trustStatus`) and trusts
through `config/batchWrite`. Going through the same requests means we never compute that hash
and stay right when its algorithm changes. The app server is labelled experimental, so every
failure here is reported, never taken as "trusted".
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import subprocess
import time
from collections.abc import Iterator, Mapping
from typing import IO, Any

from app.setup_clients.files import SetupError

CLIENT_INFO = {"name": "decision-journal-setup", "version": "1"}
REPLY_SECONDS = 30.0
"""How long one request may take, Codex's own start-up included."""


class CodexUnavailable(SetupError):
    """`codex app-server` could not be started or did not answer as expected."""


class AppServer:
    """One running `codex app-server`, spoken to over its stdin and stdout."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self._process = process
        self._next_id = 0

    def request(self, method: str, params: Mapping[str, Any]) -> Any:
        """Sends one request and returns its `result`.

        Raises:
            CodexUnavailable: Codex answered with an error, exited, or stayed silent.
        """
        self._next_id += 1
        self._send({"jsonrpc": "2.0", "id": self._next_id, "method": method, "params": params})
        reply = self._reply(self._next_id, method)
        if "error" in reply:
            message = reply["error"].get("message", reply["error"])
            raise CodexUnavailable(f"codex app-server refused {method}: {message}")
        return reply.get("result")

    def notify(self, method: str) -> None:
        self._send({"jsonrpc": "2.0", "method": method})

    def _send(self, message: Mapping[str, Any]) -> None:
        stdin = self._stream(self._process.stdin)
        try:
            stdin.write(json.dumps(message) + "\n")
            stdin.flush()
        except OSError as exc:
            raise CodexUnavailable(f"codex app-server stopped reading ({exc})") from exc

    def _reply(self, request_id: int, method: str) -> dict[str, Any]:
        """Reads lines until the reply to `request_id`; notifications on the way are skipped."""
        stdout = self._stream(self._process.stdout)
        deadline = time.monotonic() + REPLY_SECONDS
        with selectors.DefaultSelector() as selector:
            selector.register(stdout, selectors.EVENT_READ)
            while (left := deadline - time.monotonic()) > 0:
                if not selector.select(left):
                    break
                line = stdout.readline()
                if not line:
                    raise CodexUnavailable(f"codex app-server exited before answering {method}")
                with contextlib.suppress(ValueError):
                    message = json.loads(line)
                    if isinstance(message, dict) and message.get("id") == request_id:
                        return message
        raise CodexUnavailable(
            f"codex app-server did not answer {method} within {REPLY_SECONDS:.0f} s"
        )

    @staticmethod
    def _stream(stream: IO[str] | None) -> IO[str]:
        if stream is None:
            raise CodexUnavailable("codex app-server has no pipe to talk through")
        return stream


@contextlib.contextmanager
def app_server(codex: str, cwd: str, env: Mapping[str, str] | None = None) -> Iterator[AppServer]:
    """Starts `codex app-server` in `cwd`, initializes it, and stops it afterwards.

    Raises:
        CodexUnavailable: the program cannot be started or does not initialize.
    """
    try:
        process = subprocess.Popen(
            [codex, "app-server"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            cwd=cwd,
            env=dict(env if env is not None else os.environ),
        )
    except OSError as exc:
        raise CodexUnavailable(f"cannot start {codex} app-server ({exc})") from exc
    try:
        server = AppServer(process)
        server.request("initialize", {"clientInfo": CLIENT_INFO})
        server.notify("initialized")
        yield server
    finally:
        _stop(process)


def _stop(process: subprocess.Popen[str]) -> None:
    """Closes stdin (the app server exits at end of input), then terminates if it lingers."""
    with contextlib.suppress(OSError):
        if process.stdin is not None:
            process.stdin.close()
    try:
        process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    if process.stdout is not None:
        process.stdout.close()
