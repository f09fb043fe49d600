"""The real Qwen Code (`qwen "<prompt>"`, headless) against a scripted model, with our setup,
app and hook.

Why the real client: Qwen Code spells our tools as Claude Code does but names its own tools
as Gemini CLI does (read_file, run_shell_command), declares MCP tools to the model only when
the server says `alwaysLoadTools`, reads Claude Code's hook answer and puts an MCP tool's
structured result before its text; a model of the client shows none of that. The model is
`fake_chat.FakeChat` on 127.0.0.1 (`OPENAI_BASE_URL`, OpenAI auth); HOME is a temporary
directory with a user's settings (OpenAI auth, no telemetry, usage statistics or update checks)
that our own `setup qwen --write` then configured; the human is a person at the real window
under Xvfb.

Qwen runs with `--approval-mode yolo`, so the only thing between a scripted edit and the disk
is our PreToolUse hook.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.agents.tools import PRESENT_TOOL, RECENT_TOOL, TOOL_NAMES, client_tool_name
from tests.clients.support.agent_desktop import (
    CHOOSE_FIRST,
    CLOSE,
    Person,
    configure,
    desktop_for,
    home_env,
    home_journal,
    run_setup,
)
from tests.clients.support.chat_sessions import finished, project, unattended_script
from tests.clients.support.fake_chat import (
    MODEL,
    FakeChat,
    FunctionCall,
    Script,
    ToolResult,
    offered_tools,
)
from tests.clients.support.sessions import (
    SHELL_COMMAND,
    SHELL_PROBE,
    check_chosen_first,
    check_gated,
    check_pending_then_blocked,
    path_with_installed,
    run_bounded,
    structured,
)
from tests.factories import proposal_dict
from tests.integration.agent_support import Desktop, short_runtime_dir

pytestmark = [pytest.mark.xvfb, pytest.mark.timeout(180)]

USER_SETTINGS = {
    "security": {"auth": {"selectedType": "openai"}},
    "privacy": {"usageStatisticsEnabled": False},
    "telemetry": {"enabled": False},
    "general": {"enableAutoUpdate": False},
    "tools": {"useRipgrep": False},
}
"""A user's own settings: OpenAI-compatible auth, nothing that reaches beyond loopback."""


def ours(tool: str) -> str:
    return client_tool_name("qwen", tool)


def user_home(home: Path) -> Path:
    """`home` with a user's own Qwen Code settings."""
    settings = home / ".qwen" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps(USER_SETTINGS, indent=2), encoding="utf-8")
    return home


@pytest.fixture(scope="module")
def qwen_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A user's HOME, then `setup qwen --write` (user scope)."""
    home = user_home(tmp_path_factory.mktemp("qwen-home"))
    configure("qwen", home, home)
    return home


@pytest.fixture(scope="module")
def qwen_desktop(qwen_home: Path) -> Iterator[Desktop]:
    with desktop_for(qwen_home) as desk:
        yield desk


def run_qwen(
    executable: Path,
    env: dict[str, str],
    workspace: Path,
    fake: FakeChat,
    approval: str = "yolo",
) -> subprocess.CompletedProcess[str]:
    """One headless session of `fake`'s script in `workspace`, bounded in time."""
    command = [
        str(executable), f"{fake.script.marker}: follow the scripted session.",
        "--output-format", "json", "--approval-mode", approval,
    ]  # fmt: skip
    extra = {
        "OPENAI_BASE_URL": fake.base_url,
        "OPENAI_API_KEY": "test",
        "OPENAI_MODEL": MODEL,
        "QWEN_CODE_SUPPRESS_YOLO_WARNING": "1",
        "NO_COLOR": "1",
    }
    return run_bounded(command, workspace, env | extra)


def unattended(executable: Path, home: Path, workspace: Path, **env: str) -> list[ToolResult]:
    """A session with no app and nobody at a window: present (it stays pending), then a
    shell command the hook must block; `env` adds to the user's environment."""
    script = unattended_script(
        "qwen", FunctionCall("run_shell_command", {"command": SHELL_COMMAND})
    )
    with short_runtime_dir() as runtime, FakeChat(script) as fake:
        done = run_qwen(executable, home_env(home, runtime, **env), workspace, fake)
        return finished("qwen", done, fake)


def test_every_tool_reaches_the_model_and_runs_without_yolo(
    qwen_executable: Path, qwen_home: Path, tmp_path: Path
) -> None:
    """All five declared from the first request (no tool search), with their fields; in the
    default approval mode, where headless Qwen offers none of the tools that would need a
    confirmation (its edits and shell), ours are offered and run unconfirmed."""
    script = Script("DJ-TOOLS", [FunctionCall(ours(RECENT_TOOL), {}), "Nothing to do."])
    with short_runtime_dir() as runtime, FakeChat(script) as fake:
        env = home_env(qwen_home, runtime)
        done = run_qwen(qwen_executable, env, project(tmp_path), fake, "default")
        results = finished("qwen", done, fake)
    offered = offered_tools(fake.main_requests[0])
    missing = [ours(name) for name in TOOL_NAMES if ours(name) not in offered]
    assert not missing, f"missing {missing}; offered {sorted(offered)}"
    fields = offered[ours(PRESENT_TOOL)]["parameters"]["properties"]
    assert {"decision_id", "options", "problem"} <= set(fields), sorted(fields)
    assert "read_file" in offered and "run_shell_command" not in offered, sorted(offered)
    assert structured(results[0])["pending"] == [], results


def test_present_is_answered_in_the_window_and_reaches_the_next_request(
    qwen_executable: Path, qwen_desktop: Desktop, tmp_path: Path
) -> None:
    script = Script(
        "DJ-PRESENT", [FunctionCall(ours(PRESENT_TOOL), proposal_dict()), "The human chose."]
    )
    with FakeChat(script) as fake, Person(qwen_desktop, CHOOSE_FIRST) as person:
        done = run_qwen(qwen_executable, qwen_desktop.env, project(tmp_path), fake)
        results = finished("qwen", done, fake, person)
    assert len(results) == 1, results
    check_chosen_first(structured(results[0]))


def test_pending_blocks_shell_and_edits_but_not_reads_or_our_tools_and_resume_works(
    qwen_executable: Path, qwen_desktop: Desktop, tmp_path: Path
) -> None:
    workspace = project(tmp_path)
    notes = workspace / "notes.txt"
    notes.write_text("read while pending\n", encoding="utf-8")
    written = workspace / "written.txt"

    def resume(results: list[ToolResult]) -> FunctionCall:
        return FunctionCall(
            ours(PRESENT_TOOL), {"decision_id": structured(results[0])["decision_id"]}
        )

    script = Script(
        "DJ-GATING",
        [
            FunctionCall(ours(PRESENT_TOOL), proposal_dict()),
            FunctionCall("run_shell_command", {"command": SHELL_COMMAND}),
            FunctionCall("write_file", {"file_path": str(written), "content": "pending\n"}),
            FunctionCall("read_file", {"file_path": str(notes)}),
            FunctionCall(ours(RECENT_TOOL), {}),
            resume,
            resume,
            "Resumed with the human's answer.",
        ],
    )
    with FakeChat(script) as fake, Person(qwen_desktop, CLOSE, CHOOSE_FIRST) as person:
        done = run_qwen(qwen_executable, qwen_desktop.env, workspace, fake)
        results = finished("qwen", done, fake, person)
    read = results.pop(3)
    assert "read while pending" in read.text, read.text
    check_gated(results, ["run_shell_command", "write_file"], ours(PRESENT_TOOL))
    assert not (workspace / SHELL_PROBE).exists()
    assert not written.exists()


def test_a_pinned_journal_is_the_one_our_server_and_hook_share(
    qwen_executable: Path, qwen_home: Path, tmp_path: Path
) -> None:
    """A user who pins DECISION_JOURNAL_HOME in their shell: Qwen's MCP server and hook must
    both use that journal; with no app the present stays pending and the shell call after it
    is blocked."""
    workspace = project(tmp_path)
    pinned = tmp_path / "pinned-journal"
    results = unattended(qwen_executable, qwen_home, workspace, DECISION_JOURNAL_HOME=str(pinned))
    check_pending_then_blocked(pinned, results, workspace)


def test_project_scope_works_for_a_teammate_with_decision_journal_on_path(
    qwen_executable: Path, tmp_path: Path
) -> None:
    """`setup qwen --write --scope project` writes the bare `decision-journal` into the
    project's .qwen/settings.json; a teammate who has it on PATH gets our server and the
    gating, with no app running."""
    home = user_home(tmp_path / "home")
    workspace = project(tmp_path)
    configure("qwen", home, workspace, "--scope", "project")
    results = unattended(qwen_executable, home, workspace, PATH=path_with_installed())
    check_pending_then_blocked(home_journal(home), results, workspace)


def test_with_folder_trust_on_setup_check_and_qwen_agree_on_the_folder(
    qwen_executable: Path, tmp_path: Path
) -> None:
    """A user who turned folder trust on: in a folder they did not trust Qwen starts no MCP
    server, ours included, and `setup qwen --check` says so; once trusted, both agree again."""
    home = user_home(tmp_path / "home")
    settings = home / ".qwen" / "settings.json"
    own = json.loads(settings.read_text(encoding="utf-8"))
    own["security"]["folderTrust"] = {"enabled": True}
    settings.write_text(json.dumps(own), encoding="utf-8")
    workspace = project(tmp_path)
    configure("qwen", home, workspace)
    offered: list[set[str]] = []
    checks: list[int] = []
    for trust in (False, True):
        if trust:
            rules = {str(workspace): "TRUST_FOLDER"}
            (home / ".qwen" / "trustedFolders.json").write_text(json.dumps(rules), "utf-8")
        checks.append(run_setup("qwen", home, workspace, "--check").returncode)
        with short_runtime_dir() as runtime, FakeChat(Script("DJ-TRUST", ["Nothing."])) as fake:
            done = run_qwen(qwen_executable, home_env(home, runtime), workspace, fake)
            finished("qwen", done, fake)
        offered.append(set(offered_tools(fake.main_requests[0])))
    assert checks == [1, 0]
    assert ours(PRESENT_TOOL) not in offered[0], sorted(offered[0])
    assert ours(PRESENT_TOOL) in offered[1], sorted(offered[1])
