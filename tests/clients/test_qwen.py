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
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from core.agents.tools import PRESENT_TOOL, RECENT_TOOL
from tests.clients.support import scenarios
from tests.clients.support.agent_desktop import configure, run_setup, with_settings
from tests.clients.support.chat_sessions import chat_rig, check_gating_with_a_read
from tests.clients.support.fake_chat import MODEL, FakeChat, offered_tools
from tests.clients.support.sessions import SHELL_COMMAND, run_bounded, structured
from tests.integration.agent_support import Desktop

pytestmark = [pytest.mark.xvfb, pytest.mark.timeout(180)]

USER_SETTINGS = {
    "security": {"auth": {"selectedType": "openai"}},
    "privacy": {"usageStatisticsEnabled": False},
    "telemetry": {"enabled": False},
    "general": {"enableAutoUpdate": False},
    "tools": {"useRipgrep": False},
}
"""A user's own settings: OpenAI-compatible auth, nothing that reaches beyond loopback."""


def user_home(home: Path) -> Path:
    """`home` with a user's own Qwen Code settings."""
    return with_settings(home, ".qwen/settings.json", USER_SETTINGS)


@pytest.fixture(scope="module")
def client_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A user's HOME, then `setup qwen --write` (user scope)."""
    home = user_home(tmp_path_factory.mktemp("qwen-home"))
    configure("qwen", home, home)
    return home


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


QWEN = chat_rig("qwen", run_qwen, ("run_shell_command", {"command": SHELL_COMMAND}))


def test_every_tool_reaches_the_model_and_runs_without_yolo(
    qwen_executable: Path, client_home: Path, tmp_path: Path
) -> None:
    """All five declared from the first request (no tool search), with their fields; in the
    default approval mode, where headless Qwen offers none of the tools that would need a
    confirmation (its edits and shell), ours are offered and run unconfirmed."""

    def run(executable: Path, env: dict[str, str], workspace: Path, fake: FakeChat) -> Any:
        return run_qwen(executable, env, workspace, fake, "default")

    rig = replace(QWEN, run=run)
    steps = [rig.our_call(RECENT_TOOL, {}), "Nothing to do."]
    fake, results = scenarios.offered_session(
        rig,
        qwen_executable,
        client_home,
        scenarios.project(tmp_path),
        steps=steps,
        marker="DJ-TOOLS",
    )
    offered = offered_tools(fake.main_requests[0])
    scenarios.check_our_tools_offered(rig, offered, lambda tool: tool["parameters"])
    assert "read_file" in offered and "run_shell_command" not in offered, sorted(offered)
    assert structured(results[0])["pending"] == [], results


def test_present_is_answered_in_the_window_and_reaches_the_next_request(
    qwen_executable: Path, client_desktop: Desktop, tmp_path: Path
) -> None:
    scenarios.check_present_answered(
        QWEN, qwen_executable, client_desktop, scenarios.project(tmp_path)
    )


def test_pending_blocks_shell_and_edits_but_not_reads_or_our_tools_and_resume_works(
    qwen_executable: Path, client_desktop: Desktop, tmp_path: Path
) -> None:
    check_gating_with_a_read(
        QWEN, qwen_executable, client_desktop, tmp_path,
        write=("write_file", lambda path: {"file_path": str(path), "content": "pending\n"}),
        read=("read_file", lambda path: {"file_path": str(path)}),
    )  # fmt: skip


def test_a_pinned_journal_is_the_one_our_server_and_hook_share(
    qwen_executable: Path, client_home: Path, tmp_path: Path
) -> None:
    pinned = tmp_path / "pinned-journal"
    scenarios.check_pinned_journal(
        QWEN, qwen_executable, client_home, scenarios.project(tmp_path), pinned
    )


def test_project_scope_works_for_a_teammate_with_decision_journal_on_path(
    qwen_executable: Path, tmp_path: Path
) -> None:
    """`setup qwen --write --scope project` writes the bare `decision-journal` into the
    project's .qwen/settings.json; a teammate who has it on PATH gets our server and the
    gating, with no app running."""
    home = user_home(tmp_path / "home")
    workspace = scenarios.project(tmp_path)
    configure("qwen", home, workspace, "--scope", "project")
    scenarios.check_teammate_on_path(QWEN, qwen_executable, home, workspace)


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
    workspace = scenarios.project(tmp_path)
    configure("qwen", home, workspace)
    offered: list[set[str]] = []
    checks: list[int] = []
    for trust in (False, True):
        if trust:
            rules = {str(workspace): "TRUST_FOLDER"}
            (home / ".qwen" / "trustedFolders.json").write_text(json.dumps(rules), "utf-8")
        checks.append(run_setup("qwen", home, workspace, "--check").returncode)
        fake, _ = scenarios.offered_session(
            QWEN, qwen_executable, home, workspace, steps=["Nothing."], marker="DJ-TRUST"
        )
        offered.append(set(offered_tools(fake.main_requests[0])))
    assert checks == [1, 0]
    assert QWEN.ours(PRESENT_TOOL) not in offered[0], sorted(offered[0])
    assert QWEN.ours(PRESENT_TOOL) in offered[1], sorted(offered[1])
