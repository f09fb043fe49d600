"""`decision-journal setup CLIENT`: merges into existing configs, keeps everything else,
backs up first, is idempotent, and what it writes really starts our server and hook.

HOME points at a temporary directory in every test: the real home is never read or written.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters

from app.cli.main import main
from tests.integration.agent_support import agent_env, short_runtime_dir

pytestmark = pytest.mark.timeout(60)

CODEX_ORIGINAL = """# my Codex settings
model = "gpt-5-codex"   # keep this comment

[mcp_servers.memory]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-memory"]

# profiles below
[profiles.fast]
model_reasoning_effort = "low"
"""


@dataclass
class Home:
    home: Path
    project: Path
    journal: Path


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Home:
    paths = Home(tmp_path / "home", tmp_path / "project", tmp_path / "journal")
    paths.home.mkdir()
    paths.project.mkdir()
    monkeypatch.setenv("HOME", str(paths.home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("CODEX_HOME", raising=False)
    return paths


def run_setup(home: Home, *args: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(
        ["--journal", str(home.journal), "setup", *args, "--project-dir", str(home.project)]
    )
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def setup(home: Home, *args: str, capsys: pytest.CaptureFixture[str]) -> str:
    code, out = run_setup(home, *args, capsys=capsys)
    assert code == 0, out
    return out


def backups(path: Path) -> list[Path]:
    return sorted(path.parent.glob(path.name + ".bak-*"))


@dataclass(frozen=True)
class Case:
    """A client, the file that already exists with someone else's content, and how to read
    our entry back out of it."""

    client: str
    scope: str
    path: Callable[[Home], Path]
    original: str
    ours: Callable[[str], Any]
    theirs: Callable[[str], Any]


def _json(*keys: str) -> Callable[[str], Any]:
    def read(text: str) -> Any:
        value: Any = json.loads(text)
        for key in keys:
            value = value[key]
        return value

    return read


CASES = [
    Case(
        "claude-code",
        "user",
        lambda h: h.home / ".claude.json",
        json.dumps({"numStartups": 7, "mcpServers": {"github": {"command": "gh-mcp"}}}),
        _json("mcpServers", "decision-journal"),
        lambda t: (json.loads(t)["numStartups"], json.loads(t)["mcpServers"]["github"]),
    ),
    Case(
        "claude-code",
        "project",
        lambda h: h.project / ".claude" / "settings.json",
        json.dumps(
            {
                "permissions": {"allow": ["Bash(npm test)"]},
                "hooks": {
                    "PreToolUse": [
                        {"matcher": "Bash", "hooks": [{"type": "command", "command": "lint.sh"}]}
                    ]
                },
            }
        ),
        lambda t: json.loads(t)["hooks"]["PreToolUse"][1],
        lambda t: (json.loads(t)["permissions"], json.loads(t)["hooks"]["PreToolUse"][0]),
    ),
    Case(
        "codex",
        "user",
        lambda h: h.home / ".codex" / "config.toml",
        CODEX_ORIGINAL,
        lambda t: tomllib.loads(t)["mcp_servers"]["decision-journal"],
        lambda t: t.startswith(CODEX_ORIGINAL),
    ),
    Case(
        "cursor",
        "user",
        lambda h: h.home / ".cursor" / "mcp.json",
        json.dumps({"mcpServers": {"other": {"url": "http://localhost:1"}}}),
        _json("mcpServers", "decision-journal"),
        _json("mcpServers", "other"),
    ),
    Case(
        "gemini",
        "user",
        lambda h: h.home / ".gemini" / "settings.json",
        json.dumps({"theme": "GitHub", "mcpServers": {}}),
        _json("mcpServers", "decision-journal"),
        _json("theme"),
    ),
    Case(
        "vscode",
        "project",
        lambda h: h.project / ".vscode" / "mcp.json",
        json.dumps({"inputs": [{"id": "token", "type": "promptString"}], "servers": {}}),
        _json("servers", "decision-journal"),
        _json("inputs"),
    ),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.client}-{c.scope}")
def test_write_merges_keeps_the_rest_backs_up_and_is_idempotent(
    home: Home, case: Case, capsys: pytest.CaptureFixture[str]
) -> None:
    path = case.path(home)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(case.original, encoding="utf-8")
    before = case.theirs(case.original)

    out = setup(home, case.client, "--write", "--scope", case.scope, capsys=capsys)
    text = path.read_text(encoding="utf-8")
    assert f"updated {path}" in out
    assert case.theirs(text) == before
    assert case.ours(text)
    (backup,) = backups(path)
    assert backup.read_text(encoding="utf-8") == case.original

    again = setup(home, case.client, "--write", "--scope", case.scope, capsys=capsys)
    assert f"unchanged {path}" in again
    assert "updated" not in again
    assert path.read_text(encoding="utf-8") == text
    assert backups(path) == [backup]


def test_claude_code_entries_have_raised_timeouts_and_absolute_commands(
    home: Home, capsys: pytest.CaptureFixture[str]
) -> None:
    setup(home, "claude-code", "--write", capsys=capsys)
    server = json.loads((home.home / ".claude.json").read_text())["mcpServers"]["decision-journal"]
    assert server["type"] == "stdio"
    assert server["timeout"] == 3_600_000
    assert os.path.isabs(server["command"])
    assert server["args"][-3:] == ["--journal", str(home.journal), "mcp"]
    settings = json.loads((home.home / ".claude" / "settings.json").read_text())
    (group,) = settings["hooks"]["PreToolUse"]
    assert group["matcher"] == "*"
    (handler,) = group["hooks"]
    assert handler["timeout"] == 3600
    assert handler["command"].endswith(" hook claude-code")
    assert (home.home / ".claude.json").stat().st_mode & 0o077 == 0


def test_codex_table_has_tool_timeout_and_hook(
    home: Home, capsys: pytest.CaptureFixture[str]
) -> None:
    setup(home, "codex", "--write", capsys=capsys)
    config = tomllib.loads((home.home / ".codex" / "config.toml").read_text())
    table = config["mcp_servers"]["decision-journal"]
    assert table["tool_timeout_sec"] == 3600
    assert table["args"][-1] == "mcp"
    hooks = json.loads((home.home / ".codex" / "hooks.json").read_text())
    assert hooks["hooks"]["PreToolUse"][0]["hooks"][0]["command"].endswith(" hook codex")


def test_print_shows_without_writing(home: Home, capsys: pytest.CaptureFixture[str]) -> None:
    out = setup(home, "gemini", capsys=capsys)
    assert f"# merge into {home.home / '.gemini' / 'settings.json'}" in out
    assert '"timeout": 3600000' in out
    assert not (home.home / ".gemini").exists()


def test_unparsable_config_is_refused_untouched(
    home: Home, capsys: pytest.CaptureFixture[str]
) -> None:
    path = home.project / ".vscode" / "mcp.json"
    path.parent.mkdir()
    original = '{\n  // a comment VS Code allows\n  "servers": {}\n}\n'
    path.write_text(original, encoding="utf-8")
    code = main(
        [
            "--journal",
            str(home.journal),
            "setup",
            "vscode",
            "--write",
            "--scope",
            "project",
            "--project-dir",
            str(home.project),
        ]
    )
    captured = capsys.readouterr()
    assert code != 0
    assert "not plain JSON" in captured.err
    assert path.read_text(encoding="utf-8") == original
    assert backups(path) == []


@pytest.fixture
def runtime(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    with short_runtime_dir() as path:
        monkeypatch.setenv("XDG_RUNTIME_DIR", str(path))
        yield path


def test_what_setup_writes_starts_the_server_and_the_hook(
    home: Home, runtime: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An agent configured by `setup` reaches our server; the hook command runs in a shell."""
    setup(home, "claude-code", "--write", "--scope", "project", capsys=capsys)
    server = json.loads((home.project / ".mcp.json").read_text())["mcpServers"]["decision-journal"]
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    env = agent_env(
        runtime, **server.get("env", {}), CLAUDE_PROJECT_DIR=str(home.project), PATH=path
    )
    params = StdioServerParameters(
        command=server["command"], args=server["args"], env=env, cwd=str(home.project)
    )

    async def tools() -> list[str]:
        async with Client(params) as client:
            return [tool.name for tool in (await client.list_tools()).tools]

    assert "present_implementation_decision" in anyio.run(tools)

    settings = json.loads((home.project / ".claude" / "settings.json").read_text())
    command = settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
    event = {"session_id": "s", "cwd": str(home.project), "tool_name": "Edit", "tool_input": {}}
    run = subprocess.run(
        ["/bin/sh", "-c", command],
        input=json.dumps(event),
        env=agent_env(runtime, PATH=path),
        cwd=home.project,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert (run.returncode, run.stdout) == (0, ""), run.stderr
