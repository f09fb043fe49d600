"""Runs the real `claude -p` once against the fake Anthropic API, in a home set up by us.

Why a HOME configured by our own `decision-journal setup claude-code --write`
(`agent_desktop.configure`): the test then checks what a user gets after following the
README, not a config the test wrote to suit itself. Everything the client could reach outside
loopback is switched off (telemetry, auto-update, error reports, non-essential traffic), and a
dead loopback proxy catches anything that still tries.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.agents.tools import TOOL_NAMES, client_tool_name
from tests.clients.support.agent_desktop import configure, home_journal
from tests.clients.support.fake_anthropic import FakeAnthropic, Script
from tests.clients.support.sessions import path_with_installed

RUN_TIMEOUT = 120.0
"""Seconds one scripted session may take before the test fails."""
TIMED_OUT = -1
"""The exit code a run reports when it was killed at RUN_TIMEOUT."""
PROMPT_MARKER = "DJ-SCRIPTED-SESSION"
"""Starts every prompt, so the fake knows the main conversation from side requests."""
OUR_TOOLS = tuple(client_tool_name("claude-code", tool) for tool in TOOL_NAMES)
SESSION_ENV = {
    # Connect MCP servers before the first model request: in -p mode Claude Code otherwise
    # sends it while a server still starts, and what the test sees would race the machine load.
    "MCP_CONNECTION_NONBLOCKING": "0",
    # Tool search as a user of Anthropic's own endpoint has it: some versions switch it off for
    # any other ANTHROPIC_BASE_URL, and then defer nothing and offer no ToolSearch.
    "ENABLE_TOOL_SEARCH": "true",
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
SDK_MODE = (
    "--input-format", "stream-json", "--output-format", "stream-json", "--verbose",
    "--permission-prompt-tool", "stdio",
)  # fmt: skip
_FOREIGN_PREFIXES = ("ANTHROPIC_", "CLAUDE_", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY")


@dataclass(frozen=True)
class ClaudeHome:
    """A user's HOME configured by `setup claude-code --write`, and the project they work in."""

    home: Path
    workspace: Path
    scope: str = "user"

    @property
    def journal(self) -> Path:
        """Where every process of this user finds the journal: the HOME's default."""
        return home_journal(self.home)

    @classmethod
    def create(cls, root: Path, scope: str = "user") -> ClaudeHome:
        """Makes the folders under `root` and runs our setup as that user, in the project.

        Project scope writes the bare `decision-journal` command (the files are committed for
        the whole team), so `env` then puts our installed script's folder on PATH, as an
        install does.
        """
        place = cls(root / "home", root / "repo", scope)
        place.home.mkdir(parents=True)
        place.workspace.mkdir()
        configure("claude-code", place.home, place.workspace, "--scope", scope)
        return place

    def env(self, base: dict[str, str]) -> dict[str, str]:
        """`base` (the user's environment) with PATH as this scope's setup expects it."""
        if self.scope != "project":
            return dict(base)
        return base | {"PATH": path_with_installed()}


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
    env: dict[str, str],
    fake: FakeAnthropic,
    *,
    allowed_tools: Sequence[str],
    sdk: bool = False,
) -> ClaudeRun:
    """One `claude -p` session of `fake`'s script in `place.workspace`, talking only to `fake`.

    Args:
        claude: the client's executable (`npm_clients.install(CLAUDE_CODE)`).
        place: the configured home.
        env: the user's environment (`agent_desktop.home_env`, or a desktop's), without the
            client's own settings, which this adds.
        fake: the model.
        allowed_tools: tool names allowed without asking (root may not bypass permissions).
        sdk: talk stream-json on stdin and stdout, as the Agent SDK does, with permission
            prompts on stdio; only then does `-p` offer AskUserQuestion.
    """
    debug_file = place.home.parent / "claude-debug.log"
    prompt = f"{fake.script.marker} Follow the scripted session."
    env = {k: v for k, v in place.env(env).items() if not k.upper().startswith(_FOREIGN_PREFIXES)}
    env |= {"ANTHROPIC_BASE_URL": fake.base_url, "ANTHROPIC_API_KEY": "test", **SESSION_ENV}
    mode, stdin = ["--output-format", "json"], ""
    if sdk:
        message = {"type": "user", "message": {"role": "user", "content": prompt}}
        mode, stdin = [*SDK_MODE], json.dumps(message) + "\n"
    command = [
        str(claude), "-p", *([] if sdk else [prompt]), *mode,
        "--debug-file", str(debug_file), "--allowedTools", ",".join(allowed_tools),
    ]  # fmt: skip
    try:
        completed = subprocess.run(
            command,
            env=env,
            cwd=place.workspace,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT,
        )
    except subprocess.TimeoutExpired as expired:
        completed = subprocess.CompletedProcess(
            command, TIMED_OUT, _text(expired.stdout), f"timed out after {RUN_TIMEOUT:.0f} s"
        )
    debug_log = debug_file.read_text(encoding="utf-8") if debug_file.exists() else ""
    return ClaudeRun(
        completed.returncode,
        _last_json(completed.stdout),
        completed.stdout,
        completed.stderr,
        debug_log,
    )


def _text(output: str | bytes | None) -> str:
    if isinstance(output, bytes):
        return output.decode("utf-8", "replace")
    return output or ""


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


__all__ = ["OUR_TOOLS", "ClaudeHome", "ClaudeRun", "run_claude", "scripted"]
