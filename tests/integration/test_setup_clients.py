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

from app.cli.agent_cmds import SETUP_CLIENTS
from app.cli.main import main
from core.agents.tools import TOOL_NAMES
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
    monkeypatch.delenv("COPILOT_HOME", raising=False)
    monkeypatch.delenv("QWEN_HOME", raising=False)
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


def place(path: Path, text: str) -> None:
    """Someone else's config file, already there before `setup` runs."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


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
        "cursor",
        "project",
        lambda h: h.project / ".cursor" / "hooks.json",
        json.dumps({"version": 1, "hooks": {"afterFileEdit": [{"command": "./format.sh"}]}}),
        lambda t: json.loads(t)["hooks"]["beforeShellExecution"][0]["command"],
        _json("hooks", "afterFileEdit"),
    ),
    Case(
        "copilot",
        "user",
        lambda h: h.home / ".copilot" / "mcp-config.json",
        json.dumps(
            {"mcpServers": {"context7": {"type": "local", "command": "npx", "tools": ["*"]}}}
        ),
        _json("mcpServers", "decision-journal"),
        _json("mcpServers", "context7"),
    ),
    Case(
        "copilot",
        "project",
        lambda h: h.project / ".github" / "hooks" / "decision-journal.json",
        json.dumps(
            {
                "version": 1,
                "hooks": {"preToolUse": [{"type": "command", "bash": "./audit.sh"}]},
            }
        ),
        lambda t: json.loads(t)["hooks"]["preToolUse"][1]["bash"],
        lambda t: json.loads(t)["hooks"]["preToolUse"][0],
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
    place(path, case.original)
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
    # Codex gives servers only a few variables: ours must find the app's socket and display.
    assert {"DISPLAY", "XDG_RUNTIME_DIR", "DECISION_JOURNAL_HOME"} <= set(table["env_vars"])
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


# --- what each scope writes -----------------------------------------------------------------


def written_files(home: Home, scope: str) -> dict[str, list[Path]]:
    """The files `setup CLIENT --write --scope SCOPE` merges into, per client."""
    base = home.home if scope == "user" else home.project
    vscode = home.home / ".config" / "Code" / "User" if scope == "user" else base / ".vscode"
    claude = [base / ".claude.json"] if scope == "user" else [base / ".mcp.json"]
    copilot = base / (".copilot" if scope == "user" else ".github")
    copilot_servers = "mcp-config.json" if scope == "user" else "mcp.json"
    opencode = base / ".config" / "opencode" if scope == "user" else base
    opencode_dir = opencode if scope == "user" else base / ".opencode"
    return {
        "claude-code": [*claude, base / ".claude" / "settings.json"],
        "codex": [base / ".codex" / "config.toml", base / ".codex" / "hooks.json"],
        "gemini": [base / ".gemini" / "settings.json"],
        "cursor": [base / ".cursor" / "mcp.json", base / ".cursor" / "hooks.json"],
        "vscode": [vscode / "mcp.json"],
        "copilot": [copilot / copilot_servers, copilot / "hooks" / "decision-journal.json"],
        "qwen": [base / ".qwen" / "settings.json"],
        "opencode": [opencode / "opencode.json", opencode_dir / "plugin" / "decision-journal.js"],
    }


def commands_in(path: Path) -> list[str]:
    """Every server and hook `command` in a config file we wrote (Copilot's hooks name theirs
    `bash`; opencode's server has an array, whose program counts, and its plugin a `HOOK`
    line)."""
    text = path.read_text(encoding="utf-8")
    found: list[str] = []
    if path.suffix == ".js":
        hook = json.loads(text.split("\nconst HOOK = ", 1)[1].split(";\n", 1)[0])
        return [" ".join([hook["program"], *hook["args"]])]

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            found.extend(
                value[key] for key in ("command", "bash") if isinstance(value.get(key), str)
            )
            if isinstance(value.get("command"), list):
                found.append(value["command"][0])
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(tomllib.loads(text) if path.suffix == ".toml" else json.loads(text))
    return found


@pytest.mark.parametrize("client", SETUP_CLIENTS)
def test_project_scope_writes_the_bare_command_every_teammate_has(
    home: Home, client: str, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["setup", client, "--write", "--scope", "project", "--project-dir", str(home.project)]
    code = main(args)
    out = capsys.readouterr().out
    assert code == 0, out
    for path in written_files(home, "project")[client]:
        commands = commands_in(path)
        assert commands, path
        for command in commands:
            assert command in ("decision-journal", f"decision-journal hook {client}")
        assert sys.executable not in path.read_text(encoding="utf-8")
    assert "run the bare `decision-journal` command" in out
    assert "`decision-journal` is on PATH" in out
    assert "--journal" not in out


def test_a_project_file_linking_outside_the_project_is_refused_before_any_write(
    home: Home, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A cloned repository's `.mcp.json` linking to another tool's config must not get our
    entry merged into that file."""
    victim = tmp_path / "elsewhere" / "config.json"
    place(victim, '{"theirs": true}\n')
    (home.project / ".mcp.json").symlink_to(victim)
    code, out = run_setup(home, "claude-code", "--write", "--scope", "project", capsys=capsys)
    assert code != 0
    assert f"leads outside the project, to {victim}" in out
    assert victim.read_text(encoding="utf-8") == '{"theirs": true}\n'
    assert not backups(victim)
    assert not (home.project / ".claude" / "settings.json").exists()


def test_project_scope_with_a_pinned_journal_says_it_is_machine_specific(
    home: Home, capsys: pytest.CaptureFixture[str]
) -> None:
    out = setup(home, "cursor", "--write", "--scope", "project", capsys=capsys)
    assert f"--journal {home.journal} is written into these project files" in out


@pytest.mark.parametrize("client", SETUP_CLIENTS)
def test_user_scope_writes_the_absolute_command_of_this_machine(
    home: Home, client: str, capsys: pytest.CaptureFixture[str]
) -> None:
    out = setup(home, client, "--write", capsys=capsys)
    for path in written_files(home, "user")[client]:
        commands = commands_in(path)
        assert commands, path
        for command in commands:
            program = command.split()[0]
            program = program if "=" not in program else command.split()[1]
            assert os.path.isabs(program), command
    assert "bare `decision-journal`" not in out


# --- a user's settings survive ------------------------------------------------------------


@dataclass(frozen=True)
class Raised:
    """A file holding our entry with a timeout the user set, and where that timeout lives."""

    client: str
    path: Callable[[Home], Path]
    original: Callable[[Home], str]
    timeout: Callable[[str], Any]


def _ours_claude_hook(timeout: int) -> str:
    handler = {"type": "command", "command": "old/dj hook claude-code", "timeout": timeout}
    return json.dumps({"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [handler]}]}})


def _ours_gemini(server_timeout: int, hook_timeout: int) -> str:
    handler = {"type": "command", "command": "old/dj hook gemini", "timeout": hook_timeout}
    return json.dumps(
        {
            "mcpServers": {"decision-journal": {"command": "old", "timeout": server_timeout}},
            "hooks": {"BeforeTool": [{"matcher": ".*", "hooks": [handler]}]},
        }
    )


RAISED = [
    Raised(
        "claude-code",
        lambda h: h.home / ".claude.json",
        lambda h: json.dumps({"mcpServers": {"decision-journal": {"timeout": 7_200_000}}}),
        lambda t: json.loads(t)["mcpServers"]["decision-journal"]["timeout"],
    ),
    Raised(
        "claude-code",
        lambda h: h.home / ".claude" / "settings.json",
        lambda h: _ours_claude_hook(7200),
        lambda t: json.loads(t)["hooks"]["PreToolUse"][0]["hooks"][0]["timeout"],
    ),
    Raised(
        "codex",
        lambda h: h.home / ".codex" / "config.toml",
        lambda h: '[mcp_servers.decision-journal]\ncommand = "old"\ntool_timeout_sec = 7200\n',
        lambda t: tomllib.loads(t)["mcp_servers"]["decision-journal"]["tool_timeout_sec"],
    ),
    Raised(
        "copilot",
        lambda h: h.home / ".copilot" / "mcp-config.json",
        lambda h: json.dumps({"mcpServers": {"decision-journal": {"timeout": 7_200_000}}}),
        lambda t: json.loads(t)["mcpServers"]["decision-journal"]["timeout"],
    ),
    Raised(
        "copilot",
        lambda h: h.home / ".copilot" / "hooks" / "decision-journal.json",
        lambda h: json.dumps(
            {
                "version": 1,
                "hooks": {"preToolUse": [{"bash": "old/dj hook copilot", "timeoutSec": 600}]},
            }
        ),
        lambda t: json.loads(t)["hooks"]["preToolUse"][0]["timeoutSec"],
    ),
    Raised(
        "gemini",
        lambda h: h.home / ".gemini" / "settings.json",
        lambda h: _ours_gemini(7_200_000, 1000),
        lambda t: json.loads(t)["mcpServers"]["decision-journal"]["timeout"],
    ),
    Raised(
        "gemini",
        lambda h: h.home / ".gemini" / "settings.json",
        lambda h: _ours_gemini(1000, 600_000),
        lambda t: json.loads(t)["hooks"]["BeforeTool"][0]["hooks"][0]["timeout"],
    ),
]


@pytest.mark.parametrize("case", RAISED, ids=lambda c: f"{c.client}-{c.path(Home(*[Path()] * 3))}")
def test_a_timeout_the_user_raised_is_never_lowered(
    home: Home, case: Raised, capsys: pytest.CaptureFixture[str]
) -> None:
    path = case.path(home)
    original = case.original(home)
    place(path, original)

    setup(home, case.client, "--write", capsys=capsys)

    assert case.timeout(path.read_text(encoding="utf-8")) == case.timeout(original)
    assert "unchanged" in setup(home, case.client, "--write", capsys=capsys)


def test_a_lower_timeout_is_raised_to_ours(home: Home, capsys: pytest.CaptureFixture[str]) -> None:
    path = home.home / ".gemini" / "settings.json"
    path.parent.mkdir()
    path.write_text(_ours_gemini(1000, 1000), encoding="utf-8")
    setup(home, "gemini", "--write", capsys=capsys)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["mcpServers"]["decision-journal"]["timeout"] == 3_600_000
    assert data["hooks"]["BeforeTool"][0]["hooks"][0]["timeout"] == 60_000


def test_codex_keeps_a_pinned_env_table_inline_servers_and_comments(
    home: Home, capsys: pytest.CaptureFixture[str]
) -> None:
    path = home.home / ".codex" / "config.toml"
    path.parent.mkdir()
    pinned = (
        "[mcp_servers.decision-journal]\n"
        'command = "decision-journal"  # mine\n'
        'args = ["mcp"]\n'
        "\n"
        "# pinned by hand\n"
        "[mcp_servers.decision-journal.env]\n"
        'DECISION_JOURNAL_HOME = "/home/me/journal"\n'
    )
    path.write_text(pinned, encoding="utf-8")
    setup(home, "codex", "--write", capsys=capsys)
    text = path.read_text(encoding="utf-8")
    entry = tomllib.loads(text)["mcp_servers"]["decision-journal"]
    assert entry["env"]["DECISION_JOURNAL_HOME"] == "/home/me/journal"
    assert "# pinned by hand\n[mcp_servers.decision-journal.env]\n" in text
    assert "  # mine\n" in text

    path.write_text('mcp_servers = { other = { command = "other-mcp" } }\n', encoding="utf-8")
    out = setup(home, "codex", "--write", capsys=capsys)
    servers = tomllib.loads(path.read_text(encoding="utf-8"))["mcp_servers"]
    assert servers["other"] == {"command": "other-mcp"}
    assert servers["decision-journal"]["tool_timeout_sec"] == 3600
    assert "not valid TOML" not in out


def test_gemini_gets_the_before_tool_hook_in_its_documented_shape(
    home: Home, capsys: pytest.CaptureFixture[str]
) -> None:
    out = setup(home, "gemini", "--write", capsys=capsys)
    settings = json.loads((home.home / ".gemini" / "settings.json").read_text())
    (group,) = settings["hooks"]["BeforeTool"]
    assert group["matcher"] == ".*"
    (handler,) = group["hooks"]
    assert handler["type"] == "command"
    assert handler["name"] == "decision-journal"
    assert handler["command"].endswith(" hook gemini")
    assert handler["timeout"] == 60_000
    assert "trustedFolders.json" in out


def test_gemini_trusts_our_server_and_keeps_the_users_allowed_tools(
    home: Home, capsys: pytest.CaptureFixture[str]
) -> None:
    """Headless `gemini -p` offers the model no tool that would need a confirmation; our
    server is trusted instead of listed in the deprecated `tools.allowed`, and the five names
    an earlier setup listed there go again."""
    path = home.home / ".gemini" / "settings.json"
    earlier = [f"mcp_decision-journal_{tool}" for tool in TOOL_NAMES]
    mine = "run_shell_command(git status)"
    place(path, json.dumps({"tools": {"allowed": [earlier[0], mine, *earlier[1:]]}}))
    setup(home, "gemini", "--write", capsys=capsys)
    written = json.loads(path.read_text())
    assert written["tools"]["allowed"] == [mine]
    assert written["mcpServers"]["decision-journal"]["trust"] is True
    assert "removed" not in setup(home, "gemini", "--write", capsys=capsys)
    assert json.loads(path.read_text()) == written


def test_codex_waits_for_our_server_before_the_first_request(
    home: Home, capsys: pytest.CaptureFixture[str]
) -> None:
    setup(home, "codex", "--write", capsys=capsys)
    config = tomllib.loads((home.home / ".codex" / "config.toml").read_text())
    assert config["mcp_servers"]["decision-journal"]["required"] is True


# --- --check, Gemini folder trust, Codex hook trust ----------------------------------------


@pytest.mark.parametrize(
    "client", ["claude-code", "copilot", "cursor", "vscode", "qwen", "opencode"]
)
def test_check_fails_until_written_then_passes(
    home: Home, client: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = run_setup(home, client, "--check", capsys=capsys)
    assert code == 1
    assert "is not set up: --write would change it (added" in out
    assert not any(path.exists() for path in written_files(home, "user")[client])

    setup(home, client, "--write", capsys=capsys)
    code, out = run_setup(home, client, "--check", capsys=capsys)
    assert (code, out.splitlines()[-1]) == (0, f"ok: {client} is set up")


def trust_gemini_folders(home: Home, rules: dict[str, str]) -> None:
    path = home.home / ".gemini" / "trustedFolders.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(rules), encoding="utf-8")


@pytest.mark.parametrize(
    ("rules", "ok"),
    [
        ({}, False),
        ({"{project}": "TRUST_FOLDER"}, True),
        ({"{project}/any-child": "TRUST_PARENT"}, True),
        ({"{tmp}": "TRUST_FOLDER", "{project}": "DO_NOT_TRUST"}, False),
        ({"{project}-other": "TRUST_FOLDER"}, False),
    ],
)
def test_gemini_check_needs_the_folder_trusted(
    home: Home, rules: dict[str, str], ok: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    setup(home, "gemini", "--write", capsys=capsys)
    names = {"project": str(home.project), "tmp": str(home.project.parent)}
    trust_gemini_folders(home, {rule.format(**names): level for rule, level in rules.items()})

    code, out = run_setup(home, "gemini", "--check", capsys=capsys)

    assert code == (0 if ok else 1), out
    assert (
        f"Gemini CLI will neither start our server nor run our hook in {home.project}" in out
    ) is not ok


def test_gemini_trust_from_the_environment_wins(
    home: Home, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    setup(home, "gemini", "--write", capsys=capsys)
    monkeypatch.setenv("GEMINI_CLI_TRUST_WORKSPACE", "true")
    assert run_setup(home, "gemini", "--check", capsys=capsys)[0] == 0
    trust_gemini_folders(home, {str(home.project): "TRUST_FOLDER"})
    monkeypatch.setenv("GEMINI_CLI_TRUST_WORKSPACE", "false")
    code, out = run_setup(home, "gemini", "--check", capsys=capsys)
    assert code == 1
    assert "is told not to trust" in out


def test_gemini_write_warns_about_an_untrusted_folder_without_failing(
    home: Home, capsys: pytest.CaptureFixture[str]
) -> None:
    out = setup(home, "gemini", "--write", capsys=capsys)
    assert (
        f"warning: Gemini CLI will neither start our server nor run our hook in {home.project}"
        in out
    )


def test_codex_check_without_codex_says_how_to_point_at_it(
    home: Home, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PATH", str(home.home))
    setup(home, "codex", "--write", capsys=capsys)
    code, out = run_setup(home, "codex", "--check", capsys=capsys)
    assert code == 1
    assert "`codex` is not on PATH (pass --codex PROGRAM)" in out
    code, out = run_setup(home, "codex", "--check", "--codex", "/nonexistent/codex", capsys=capsys)
    assert code == 1
    assert "cannot start /nonexistent/codex app-server" in out


CLIENT_HOMES = {
    "codex": ("CODEX_HOME", ["config.toml", "hooks.json"], ".codex"),
    "copilot": ("COPILOT_HOME", ["mcp-config.json", "hooks/decision-journal.json"], ".copilot"),
}
"""The variable that moves each client's user folder, the files setup writes there, and the
default folder in HOME."""


@pytest.mark.parametrize("client", sorted(CLIENT_HOMES))
def test_user_scope_follows_the_clients_home_variable(
    home: Home, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], client: str
) -> None:
    variable, files, default = CLIENT_HOMES[client]
    elsewhere = home.home / "elsewhere"
    monkeypatch.setenv(variable, str(elsewhere))
    setup(home, client, "--write", capsys=capsys)
    for name in files:
        assert (elsewhere / name).is_file(), name
    assert not (home.home / default).exists()


def test_trust_hook_goes_only_with_codex_write(
    home: Home, capsys: pytest.CaptureFixture[str]
) -> None:
    for args in (("codex", "--trust-hook"), ("gemini", "--write", "--trust-hook")):
        code, out = run_setup(home, *args, capsys=capsys)
        assert code != 0
        assert "--trust-hook goes with `setup codex --write`" in out
    assert not (home.home / ".codex").exists()


@pytest.fixture(scope="session")
def codex_program() -> Path:
    """The pinned real Codex CLI (installed once into the shared client cache)."""
    from tests.clients.support.npm_clients import CODEX, install

    return install(CODEX)


@pytest.mark.timeout(960)
def test_codex_reports_an_untrusted_hook_and_trusts_it_on_request(
    codex_program: Path, home: Home, capsys: pytest.CaptureFixture[str]
) -> None:
    codex = str(codex_program)
    setup(home, "codex", "--write", capsys=capsys)
    hooks = home.home / ".codex" / "hooks.json"

    code, out = run_setup(home, "codex", "--check", "--codex", codex, capsys=capsys)
    assert code == 1
    assert f"problem: Codex will not run the hook in {hooks}: it is not trusted yet" in out

    out = setup(home, "codex", "--write", "--trust-hook", "--codex", codex, capsys=capsys)
    assert f"ok: Codex runs the decision-journal hook from {hooks}" in out
    assert "trust the decision-journal PreToolUse hook" not in out, out  # it just was
    state = tomllib.loads((home.home / ".codex" / "config.toml").read_text())["hooks"]["state"]
    assert list(state) == [f"{hooks}:pre_tool_use:0:0"]
    assert state[f"{hooks}:pre_tool_use:0:0"]["trusted_hash"].startswith("sha256:")
    code, out = run_setup(home, "codex", "--check", "--codex", codex, capsys=capsys)
    assert code == 0, out

    moved = ["--journal", str(home.journal / "moved"), "setup", "codex"]
    assert main([*moved, "--write"]) == 0
    code = main([*moved, "--check", "--codex", codex])
    out = capsys.readouterr().out
    assert code == 1
    assert (
        f"problem: Codex will not run the hook in {hooks}: it changed since you trusted it" in out
    )


@pytest.mark.timeout(960)
def test_codex_project_hook_needs_the_project_trusted(
    codex_program: Path, home: Home, capsys: pytest.CaptureFixture[str]
) -> None:
    codex = str(codex_program)
    subprocess.run(["git", "init", "-q", str(home.project)], check=True)
    setup(home, "codex", "--write", "--scope", "project", capsys=capsys)

    code, out = run_setup(
        home, "codex", "--check", "--scope", "project", "--codex", codex, capsys=capsys
    )
    assert code == 1
    assert f"trust the folder {home.project} when Codex asks" in out

    config = home.home / ".codex" / "config.toml"
    config.parent.mkdir(exist_ok=True)
    config.write_text(f'[projects."{home.project}"]\ntrust_level = "trusted"\n', encoding="utf-8")
    out = setup(
        home, "codex", "--write", "--scope", "project", "--trust-hook", "--codex", codex,
        capsys=capsys,
    )  # fmt: skip
    assert "ok: Codex runs the decision-journal hook" in out
    assert tomllib.loads(config.read_text())["projects"][str(home.project)]["trust_level"]


@pytest.mark.timeout(960)
def test_codex_write_warns_when_codex_on_path_would_skip_the_hook(
    codex_program: Path,
    home: Home,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("PATH", f"{codex_program.parent}{os.pathsep}{os.environ['PATH']}")
    out = setup(home, "codex", "--write", capsys=capsys)
    assert "warning: Codex will not run the hook in" in out
    assert "it is not trusted yet, so edits are not blocked while a decision is pending" in out


# --- what setup says ----------------------------------------------------------------------


@pytest.mark.parametrize("client", SETUP_CLIENTS)
def test_user_scope_prints_no_project_scope_note(
    home: Home, client: str, capsys: pytest.CaptureFixture[str]
) -> None:
    out = setup(home, client, "--write", capsys=capsys)
    assert "Project scope" not in out, out
    assert "Project scope" not in setup(home, client, "--print", capsys=capsys)


@pytest.mark.parametrize("client", ["claude-code", "codex", "copilot"])
def test_project_scope_prints_the_clients_project_note(
    home: Home, client: str, capsys: pytest.CaptureFixture[str]
) -> None:
    out = setup(home, client, "--write", "--scope", "project", capsys=capsys)
    notes = [line for line in out.splitlines() if line.startswith("note: Project scope")]
    assert len(notes) == 2, out  # the client's own, and the bare-command note


def test_codex_write_without_codex_still_says_how_to_trust_the_hook(
    home: Home, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PATH", str(home.home))
    out = setup(home, "codex", "--write", capsys=capsys)
    assert "note: Codex runs a new or changed hook only once you trust it" in out, out


def test_copilot_project_check_needs_the_folder_trusted(
    home: Home, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Copilot CLI loads a project's .github files only in a trusted folder; it keeps the list
    in ~/.copilot/config.json, a JSON file with `//` comment lines that it writes itself."""
    monkeypatch.delenv("COPILOT_ALLOW_ALL", raising=False)
    setup(home, "copilot", "--write", "--scope", "project", capsys=capsys)
    code, out = run_setup(home, "copilot", "--check", "--scope", "project", capsys=capsys)
    assert code == 1
    assert f"from {home.project}/.github" in out and "does not list the folder" in out
    config = home.home / ".copilot" / "config.json"
    place(config, "// managed\n" + json.dumps({"trustedFolders": [str(home.project.parent)]}))
    code, out = run_setup(home, "copilot", "--check", "--scope", "project", capsys=capsys)
    assert code == 0, out
    place(config, json.dumps({"trusted_folders": [f"{home.project}-other"]}))
    assert run_setup(home, "copilot", "--check", "--scope", "project", capsys=capsys)[0] == 1
    monkeypatch.setenv("COPILOT_ALLOW_ALL", "true")
    assert run_setup(home, "copilot", "--check", "--scope", "project", capsys=capsys)[0] == 0


def test_copilot_hooks_file_has_copilots_documented_shape(
    home: Home, capsys: pytest.CaptureFixture[str]
) -> None:
    setup(home, "copilot", "--write", capsys=capsys)
    hooks = json.loads((home.home / ".copilot" / "hooks" / "decision-journal.json").read_text())
    assert hooks["version"] == 1
    (handler,) = hooks["hooks"]["preToolUse"]
    assert handler["type"] == "command" and handler["bash"].endswith(" hook copilot")
    assert handler["timeoutSec"] == 60


def test_a_hooks_file_of_another_version_is_refused_untouched(
    home: Home, capsys: pytest.CaptureFixture[str]
) -> None:
    path = home.home / ".copilot" / "hooks" / "decision-journal.json"
    place(path, '{"version": 2, "hooks": {}}')
    code, out = run_setup(home, "copilot", "--write", capsys=capsys)
    assert code != 0 and "version is 2, not 1; nothing was written" in out, out
    assert path.read_text() == '{"version": 2, "hooks": {}}'
