"""Runs the real `claude -p` once against the fake Anthropic API, in a home set up by us.

Why a fake home configured by our own `decision-journal setup claude-code --write`: the test
then checks what a user gets after following the README, not a config the test wrote to suit
itself. Everything the client could reach outside loopback is switched off (telemetry,
auto-update, error reports, non-essential traffic), and a dead loopback proxy catches anything
that still tries.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.agent_tools import TOOL_NAMES, client_tool_name
from tests.clients.support.fake_anthropic import FakeAnthropic, Script
from tests.integration.agent_support import ROOT, agent_env

RUN_TIMEOUT = 120.0
"""Seconds one scripted session may take before the test fails."""
PROMPT_MARKER = "DJ-SCRIPTED-SESSION"
"""Starts every prompt, so the fake knows the main conversation from side requests."""
OUR_TOOLS = tuple(client_tool_name("claude-code", tool) for tool in TOOL_NAMES)
QUIET = {
    "DISABLE_TELEMETRY": "1",
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_ERROR_REPORTING": "1",
    "DISABLE_BUG_COMMAND": "1",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "CLAUDE_CODE_DISABLE_TERMINAL_TITLE": "1",
    "HTTPS_PROXY": "http://127.0.0.1:9",
    "HTTP_PROXY": "http://127.0.0.1:9",
    "NO_PROXY": "127.0.0.1,localhost",
}
_FOREIGN_PREFIXES = ("ANTHROPIC_", "CLAUDE_", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY")


@dataclass(frozen=True)
class ClaudeHome:
    """A user's machine in miniature: home, journal, project folder, runtime dir, display."""

    home: Path
    journal: Path
    workspace: Path
    runtime: Path
    display: str = ""

    @classmethod
    def create(cls, root: Path, runtime: Path, display: str = "") -> ClaudeHome:
        """Makes the folders and runs our setup in the new home."""
        place = cls(root / "home", root / "journal", root / "repo", runtime, display)
        place.home.mkdir(parents=True)
        place.workspace.mkdir()
        place.setup()
        return place

    def env(self, **extra: str) -> dict[str, str]:
        """The environment of a process started by this user, with no real home in sight."""
        base = agent_env(self.runtime, **({"DISPLAY": self.display} if self.display else {}))
        env = {k: v for k, v in base.items() if not k.upper().startswith(_FOREIGN_PREFIXES)}
        env.update(
            HOME=str(self.home),
            XDG_CONFIG_HOME=str(self.home / ".config"),
            XDG_DATA_HOME=str(self.home / ".local" / "share"),
            XDG_CACHE_HOME=str(self.home / ".cache"),
            XDG_STATE_HOME=str(self.home / ".local" / "state"),
        )
        env.update(extra)
        return env

    def setup(self) -> None:
        """`decision-journal --journal J setup claude-code --write`, as the README says."""
        command = [sys.executable, "-m", "app.cli.main", "--journal", str(self.journal)]
        result = subprocess.run(
            [*command, "setup", "claude-code", "--write"],
            env=self.env(),
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
        if result.returncode != 0:
            raise AssertionError(f"setup claude-code --write failed:\n{result.stderr}")


@dataclass(frozen=True)
class ClaudeRun:
    """What one session left behind: its JSON result, exit code, output and debug log."""

    returncode: int
    result: dict[str, Any]
    stdout: str
    stderr: str
    debug_log: str

    def debug_lines(self, *needles: str) -> list[str]:
        """The debug log's lines that contain every one of `needles`."""
        return [line for line in self.debug_log.splitlines() if all(n in line for n in needles)]

    def describe(self) -> str:
        """Enough of the run to diagnose a failure from the test report alone."""
        ours = self.debug_lines("decision-journal") + self.debug_lines("Hooks:")
        return (
            f"exit {self.returncode}; result {json.dumps(self.result)[:1500]}\n"
            f"stderr: {self.stderr[-1500:]}\n" + "\n".join(ours[-40:])
        )


def run_claude(
    claude: Path,
    place: ClaudeHome,
    fake: FakeAnthropic,
    prompt: str,
    *,
    allowed_tools: Sequence[str],
    log_name: str = "debug.log",
) -> ClaudeRun:
    """One `claude -p` session in `place.workspace`, talking only to `fake`.

    Args:
        claude: the client's executable (`npm_clients.install(CLAUDE_CODE)`).
        place: the configured home.
        fake: the model; its script's marker must start `prompt`.
        prompt: the user's message.
        allowed_tools: tool names allowed without asking (root may not bypass permissions).
        log_name: the debug log's file name beside the home.
    """
    debug_file = place.home.parent / log_name
    env = place.env(ANTHROPIC_BASE_URL=fake.base_url, ANTHROPIC_API_KEY="test", **QUIET)
    command = [
        str(claude), "-p", prompt, "--output-format", "json",
        "--debug-file", str(debug_file), "--allowedTools", ",".join(allowed_tools),
    ]  # fmt: skip
    completed = subprocess.run(
        command,
        env=env,
        cwd=place.workspace,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
    )
    debug_log = debug_file.read_text(encoding="utf-8") if debug_file.exists() else ""
    return ClaudeRun(
        completed.returncode,
        _last_json(completed.stdout),
        completed.stdout,
        completed.stderr,
        debug_log,
    )


def _last_json(stdout: str) -> dict[str, Any]:
    for line in reversed(stdout.strip().splitlines()):
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return {}


def scripted(steps: list[Any]) -> Script:
    """A script for the conversation our prompts start (see PROMPT_MARKER)."""
    return Script(PROMPT_MARKER, steps)


__all__ = ["OUR_TOOLS", "PROMPT_MARKER", "ClaudeHome", "ClaudeRun", "run_claude", "scripted"]
