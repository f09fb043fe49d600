"""`setup qwen` and `setup opencode`: their entries in the shapes the real clients read, a
user's own settings kept, their timeouts never lowered, and opencode's plugin written from the
shipped resource with this machine's hook command (the real clients run them in
tests/clients/test_qwen.py and test_opencode.py)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from app.cli.main import main
from app.setup_clients import opencode
from tests.integration.agent_support import agent_env, short_runtime_dir
from tests.integration.hook_support import make_pending

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("QWEN_HOME", raising=False)
    return home


def setup(*args: str, capsys: pytest.CaptureFixture[str]) -> str:
    code = main(["setup", *args])
    captured = capsys.readouterr()
    assert code == 0, captured.out + captured.err
    return captured.out


def place(path: Path, value: object) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(value, indent=2)
    path.write_text(text, encoding="utf-8")
    return text


def backups(path: Path) -> list[Path]:
    return sorted(path.parent.glob(path.name + ".bak-*"))


def test_qwen_gets_a_trusted_always_loaded_server_and_the_claude_style_hook(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = home / ".qwen" / "settings.json"
    theirs = {
        "security": {"auth": {"selectedType": "openai"}},
        "mcpServers": {"github": {"command": "gh-mcp"}},
        "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"command": "lint.sh"}]}]},
    }
    original = place(path, theirs)
    setup("qwen", "--write", capsys=capsys)
    settings = json.loads(path.read_text(encoding="utf-8"))
    assert settings["security"] == theirs["security"]
    assert settings["mcpServers"]["github"] == {"command": "gh-mcp"}
    server = settings["mcpServers"]["decision-journal"]
    assert (server["timeout"], server["trust"], server["alwaysLoadTools"]) == (
        3_600_000,
        True,
        True,
    )
    assert server["args"][-1] == "mcp"
    first, ours = settings["hooks"]["PreToolUse"]
    assert first == theirs["hooks"]["PreToolUse"][0]
    assert ours["matcher"] == "*"
    (handler,) = ours["hooks"]
    assert handler["type"] == "command" and handler["timeout"] == 60
    assert handler["command"].endswith(" hook qwen")
    (backup,) = backups(path)
    assert backup.read_text(encoding="utf-8") == original
    assert "unchanged" in setup("qwen", "--write", capsys=capsys)


def test_qwen_replaces_our_claude_code_hook_set_up_by_hand(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before `setup qwen`, users pointed Qwen at `hook claude-code`, which blocks read_file
    and names Claude's tools, or `hook gemini`, whose event Qwen never sends: setup takes
    both out and keeps the user's own hooks."""
    path = home / ".qwen" / "settings.json"
    mine = {"type": "command", "command": "lint.sh"}
    old = {"type": "command", "command": "/opt/dj/bin/decision-journal hook claude-code"}
    gemini = {"type": "command", "command": "/opt/dj/bin/decision-journal hook gemini"}
    place(
        path,
        {
            "hooks": {
                "PreToolUse": [
                    {"matcher": "*", "hooks": [old]},
                    {"matcher": "Bash", "hooks": [mine, old]},
                ],
                "BeforeTool": [{"matcher": ".*", "hooks": [gemini]}],
            }
        },
    )
    out = setup("qwen", "--write", capsys=capsys)
    assert "removed hooks.PreToolUse (hook claude-code: it blocks read_file in Qwen Code)" in out
    assert "removed hooks.BeforeTool (hook gemini: Qwen Code has no BeforeTool event)" in out
    assert "BeforeTool" not in json.loads(path.read_text(encoding="utf-8"))["hooks"]
    groups = json.loads(path.read_text(encoding="utf-8"))["hooks"]["PreToolUse"]
    assert groups[0] == {"matcher": "Bash", "hooks": [mine]}
    (ours,) = groups[1]["hooks"]
    assert ours["command"].endswith(" hook qwen")
    assert len(groups) == 2


def test_qwen_follows_qwen_home_and_never_lowers_a_raised_timeout(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    qwen_home = tmp_path / "qwen-home"
    monkeypatch.setenv("QWEN_HOME", str(qwen_home))
    path = qwen_home / "settings.json"
    place(path, {"mcpServers": {"decision-journal": {"command": "old", "timeout": 7_200_000}}})
    setup("qwen", "--write", capsys=capsys)
    server = json.loads(path.read_text(encoding="utf-8"))["mcpServers"]["decision-journal"]
    assert server["timeout"] == 7_200_000
    assert not (home / ".qwen").exists()


def test_opencode_gets_a_local_server_and_keeps_the_users_config(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = home / ".config" / "opencode" / "opencode.json"
    theirs = {
        "$schema": "https://opencode.ai/config.json",
        "model": "anthropic/claude-sonnet-4-5",
        "mcp": {"playwright": {"type": "local", "command": ["npx", "@playwright/mcp"]}},
    }
    original = place(path, theirs)
    out = setup("opencode", "--write", capsys=capsys)
    config = json.loads(path.read_text(encoding="utf-8"))
    assert {k: config[k] for k in ("$schema", "model")} == {
        k: theirs[k] for k in ("$schema", "model")
    }
    assert config["mcp"]["playwright"] == theirs["mcp"]["playwright"]
    server = config["mcp"]["decision-journal"]
    assert (server["type"], server["enabled"], server["timeout"]) == ("local", True, 3_600_000)
    assert Path(server["command"][0]).is_absolute() and server["command"][-1] == "mcp"
    (backup,) = backups(path)
    assert backup.read_text(encoding="utf-8") == original
    assert "restart any running opencode" in out


def test_opencode_edits_an_existing_jsonc_and_refuses_one_with_comments(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = home / ".config" / "opencode"
    jsonc = folder / "opencode.jsonc"
    place(jsonc, {"theme": "opencode"})
    setup("opencode", "--write", capsys=capsys)
    assert "decision-journal" in json.loads(jsonc.read_text(encoding="utf-8"))["mcp"]
    assert not (folder / "opencode.json").exists()

    commented = '{\n  // my theme\n  "theme": "opencode"\n}\n'
    jsonc.write_text(commented, encoding="utf-8")
    assert main(["setup", "opencode", "--write"]) != 0
    assert "not plain JSON" in capsys.readouterr().err
    assert jsonc.read_text(encoding="utf-8") == commented


def plugin_hook(path: Path) -> dict[str, object]:
    line = next(
        line
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.startswith("const HOOK = ")
    )
    value = json.loads(line.removeprefix("const HOOK = ").removesuffix(";"))
    assert isinstance(value, dict)
    return value


def test_the_plugin_is_the_shipped_one_with_this_machines_command(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    journal = tmp_path / "journal"
    setup("opencode", "--write", capsys=capsys)
    plugin = home / ".config" / "opencode" / "plugin" / "decision-journal.js"
    hook = plugin_hook(plugin)
    assert Path(str(hook["program"])).is_absolute()
    assert hook["args"] == ["hook", "opencode"]
    shipped = opencode.PLUGIN.read_text(encoding="utf-8").splitlines()
    written = plugin.read_text(encoding="utf-8").splitlines()
    assert [a for a, b in zip(shipped, written, strict=True) if a != b] == [
        line for line in shipped if line.startswith("const HOOK = ")
    ]
    assert main(["--journal", str(journal), "setup", "opencode", "--write"]) == 0
    assert plugin_hook(plugin)["args"] == ["--journal", str(journal), "hook", "opencode"]
    assert len(backups(plugin)) == 1


def test_a_plugin_the_user_changed_is_backed_up_and_rewritten(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    setup("opencode", "--write", capsys=capsys)
    plugin = home / ".config" / "opencode" / "plugin" / "decision-journal.js"
    written = plugin.read_text(encoding="utf-8")
    plugin.write_text("// gutted\n", encoding="utf-8")
    assert main(["setup", "opencode", "--check"]) == 1
    assert "updated the plugin" in capsys.readouterr().out
    setup("opencode", "--write", capsys=capsys)
    assert plugin.read_text(encoding="utf-8") == written
    (backup,) = backups(plugin)
    assert backup.read_text(encoding="utf-8") == "// gutted\n"


def test_project_scope_puts_the_plugin_in_the_projects_opencode_folder(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    setup("opencode", "--write", "--scope", "project", "--project-dir", str(project), capsys=capsys)
    assert plugin_hook(project / ".opencode" / "plugin" / "decision-journal.js") == {
        "program": "decision-journal",
        "args": ["hook", "opencode"],
        "env": {},
    }
    server = json.loads((project / "opencode.json").read_text(encoding="utf-8"))["mcp"]
    assert server["decision-journal"]["command"] == ["decision-journal", "mcp"]
    assert not (home / ".config").exists()


DRIVER = """
import { DecisionJournal } from "./plugin.mjs";
const hooks = await DecisionJournal({ directory: process.argv[2] });
const results = [];
for (const tool of process.argv.slice(3)) {
  try {
    const input = { tool, sessionID: "ses_1", callID: "call_1" };
    await hooks["tool.execute.before"](input, { args: {} });
    results.push({ tool, ran: true });
  } catch (error) {
    results.push({ tool, ran: false, reason: error.message });
  }
}
console.log(JSON.stringify(results));
"""


def run_plugin(
    plugin: Path, folder: Path, workspace: Path, *tools: str, env: dict[str, str] | None = None
) -> list[dict[str, object]]:
    """The written plugin's `tool.execute.before` for each tool, run by Node as opencode's
    runtime would (an ES module), with its real `HOOK` line."""
    if shutil.which("node") is None:
        pytest.skip("node is not installed (make test installs it)")
    (folder / "plugin.mjs").write_text(plugin.read_text(encoding="utf-8"), encoding="utf-8")
    (folder / "driver.mjs").write_text(DRIVER, encoding="utf-8")
    done = subprocess.run(
        ["node", str(folder / "driver.mjs"), str(workspace), *tools],
        capture_output=True, text=True, timeout=60, env=env, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    value = json.loads(done.stdout.splitlines()[-1])
    assert isinstance(value, list)
    return value


def test_the_plugin_throws_the_hooks_reason_and_lets_reads_and_our_tools_run(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The written plugin with the real `decision-journal hook opencode` while a decision is
    pending in the workspace: bash and write are refused with the decision and opencode's own
    resume call, read and our tool run."""
    workspace = tmp_path / "repo"
    workspace.mkdir()
    journal = tmp_path / "journal"
    decision_id = make_pending(journal, workspace)
    assert main(["--journal", str(journal), "setup", "opencode", "--write"]) == 0
    capsys.readouterr()
    plugin = home / ".config" / "opencode" / "plugin" / "decision-journal.js"
    with short_runtime_dir() as runtime:
        env = agent_env(runtime, HOME=str(home))
        results = run_plugin(
            plugin, tmp_path, workspace, "bash", "write", "read",
            "decision-journal_recent_decisions", env=env,
        )  # fmt: skip
    by_tool = {str(r["tool"]): r for r in results}
    for tool in ("bash", "write"):
        assert by_tool[tool]["ran"] is False, results
        reason = str(by_tool[tool]["reason"])
        assert decision_id in reason
        resume = "decision-journal_present_implementation_decision with only"
        assert f'{resume} {{"decision_id": "{decision_id}"}}' in reason
    assert by_tool["read"]["ran"] is True, results
    assert by_tool["decision-journal_recent_decisions"]["ran"] is True, results


def with_hook(tmp_path: Path, program: str, *args: str) -> Path:
    """The shipped plugin with its `HOOK` line pointing at `program args`."""
    hook = {"program": program, "args": list(args), "env": {}}
    lines = [
        f"const HOOK = {json.dumps(hook)};" if line.startswith(opencode.HOOK_LINE) else line
        for line in opencode.PLUGIN.read_text(encoding="utf-8").splitlines()
    ]
    plugin = tmp_path / "rendered.js"
    plugin.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return plugin


@pytest.mark.parametrize(
    ("script", "ran"),
    [
        ("import sys; sys.stderr.write('the gate failed'); sys.exit(2)", False),
        ("import sys; sys.exit(1)", True),
        ("print('not json')", True),
        ("pass", True),
    ],
)
def test_the_plugin_reads_the_hooks_exit_as_other_clients_do(
    tmp_path: Path, script: str, ran: bool
) -> None:
    """Exit 2 refuses with stderr as the reason; a hook that crashes or prints no answer lets
    the tool run (with a warning), as every other client treats a failing hook."""
    plugin = with_hook(tmp_path, sys.executable, "-c", script)
    (result,) = run_plugin(plugin, tmp_path, tmp_path, "bash")
    assert result["ran"] is ran, result
    if not ran:
        assert result["reason"] == "the gate failed"


def test_a_plugin_whose_program_is_gone_lets_the_tool_run(tmp_path: Path) -> None:
    """Decision Journal uninstalled, its plugin left behind: opencode still works."""
    plugin = with_hook(tmp_path, str(tmp_path / "uninstalled"))
    (result,) = run_plugin(plugin, tmp_path, tmp_path, "bash")
    assert result["ran"] is True, result


def test_the_shipped_plugin_has_one_hook_line() -> None:
    lines = opencode.PLUGIN.read_text(encoding="utf-8").splitlines()
    assert sum(line.startswith(opencode.HOOK_LINE) for line in lines) == 1


def test_opencode_check_says_when_opencode_would_load_no_plugin(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    setup("opencode", "--write", capsys=capsys)
    assert main(["setup", "opencode", "--check"]) == 0
    capsys.readouterr()
    monkeypatch.setenv("OPENCODE_PURE", "1")
    assert main(["setup", "opencode", "--check"]) == 1
    out = capsys.readouterr().out
    assert "problem: OPENCODE_PURE is set, so opencode loads no plugin" in out, out
    assert "warning: OPENCODE_PURE is set" in setup("opencode", "--write", capsys=capsys)


def folder_trust_on(home: Path, rules: dict[str, str]) -> None:
    place(home / ".qwen" / "settings.json", {"security": {"folderTrust": {"enabled": True}}})
    place(home / ".qwen" / "trustedFolders.json", rules)


def test_qwen_check_needs_no_trust_while_folder_trust_is_off(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    setup("qwen", "--write", "--project-dir", str(tmp_path), capsys=capsys)
    assert main(["setup", "qwen", "--check", "--project-dir", str(tmp_path)]) == 0


@pytest.mark.parametrize(
    ("rules", "ok"),
    [
        ({}, False),
        ({"<P>": "TRUST_FOLDER"}, True),
        ({"<P>/child": "TRUST_PARENT"}, True),
        ({"<T>": "TRUST_FOLDER", "<P>": "DO_NOT_TRUST"}, False),
        ({"<T>": "DO_NOT_TRUST", "<P>": "TRUST_FOLDER"}, True),
        ({"<P>": "TRUST_FOLDER", "<T>/project/other": "TRUST_PARENT"}, True),
        ({"<T>/project/x": "TRUST_PARENT", "<P>/": "DO_NOT_TRUST"}, False),
    ],
)
def test_qwen_check_with_folder_trust_on_follows_qwens_rules(
    home: Path,
    tmp_path: Path,
    rules: dict[str, str],
    ok: bool,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The deepest rule covering the project wins, DO_NOT_TRUST on a tie; no rule, no MCP."""
    project = tmp_path / "project"
    project.mkdir()
    filled = {
        k.replace("<P>", str(project)).replace("<T>", str(tmp_path)): v for k, v in rules.items()
    }
    folder_trust_on(home, filled)
    setup("qwen", "--write", "--project-dir", str(project), capsys=capsys)
    code = main(["setup", "qwen", "--check", "--project-dir", str(project)])
    out = capsys.readouterr().out
    assert code == (0 if ok else 1), out
    if not ok:
        assert f"will start no MCP server in {project}, ours included" in out, out
