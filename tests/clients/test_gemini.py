"""The real Gemini CLI (`gemini -p`) against a scripted model, with our setup, app and hook.

Why the real client: Gemini spells our tools `mcp_decision-journal_<tool>`, loads servers and
runs hooks only in a folder the user trusted, and offers its edit and shell tools to the model
only when it will run them; a model of the client cannot show any of that. The model is
`fake_gemini.FakeGemini` on 127.0.0.1 (`GOOGLE_GEMINI_BASE_URL`); HOME is a temporary
directory with a user's settings (API-key auth, no telemetry or update checks) that our own
`setup gemini --write` then configured, and a trustedFolders.json trusting each project, as a
user who chose to trust it has; the human is a person at the real window under Xvfb.

Gemini runs with `--approval-mode yolo`, so the only thing between a scripted edit and the
disk is our BeforeTool hook.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from core.agents.tools import TOOL_NAMES
from tests.clients.support import scenarios
from tests.clients.support.agent_desktop import configure, run_setup, with_settings
from tests.clients.support.fake_gemini import (
    MODEL,
    FakeGemini,
    FunctionCall,
    Script,
    declared_tools,
    function_responses,
    parameters_of,
)
from tests.clients.support.sessions import SHELL_COMMAND, run_bounded
from tests.integration.agent_support import Desktop

pytestmark = [pytest.mark.xvfb, pytest.mark.timeout(180)]

USER_SETTINGS = {
    "security": {"auth": {"selectedType": "gemini-api-key"}},
    "privacy": {"usageStatisticsEnabled": False},
    "telemetry": {"enabled": False},
    "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
    "tools": {"useRipgrep": False},
}
"""A user's own settings, with nothing that reaches beyond loopback (telemetry, usage
statistics, update checks, the ripgrep download)."""


def user_home(home: Path) -> Path:
    """`home` with a user's own Gemini settings (API key auth, nothing beyond loopback)."""
    return with_settings(home, ".gemini/settings.json", USER_SETTINGS)


@pytest.fixture(scope="module")
def client_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A user's HOME, then `setup gemini --write` (user scope)."""
    home = user_home(tmp_path_factory.mktemp("gemini-home"))
    configure("gemini", home, home)
    return home


def trusted_project(home: Path, tmp_path: Path) -> Path:
    """A project folder the user chose to trust (Gemini's trustedFolders.json)."""
    project = tmp_path / "project"
    project.mkdir()
    trust = home / ".gemini" / "trustedFolders.json"
    rules = json.loads(trust.read_text(encoding="utf-8")) if trust.exists() else {}
    rules[str(project)] = "TRUST_FOLDER"
    trust.write_text(json.dumps(rules, indent=2), encoding="utf-8")
    return project


def run_gemini(
    executable: Path,
    env: dict[str, str],
    workspace: Path,
    fake: FakeGemini,
    approval: str = "yolo",
) -> subprocess.CompletedProcess[str]:
    """One headless `gemini -p` session of `fake`'s script in `workspace`, bounded in time."""
    command = [
        str(executable), "-p", f"{fake.script.marker}: follow the scripted session.",
        "--output-format", "json", "-m", MODEL, "--approval-mode", approval,
    ]  # fmt: skip
    extra = {"GEMINI_API_KEY": "test", "GOOGLE_GEMINI_BASE_URL": fake.base_url, "NO_COLOR": "1"}
    return run_bounded(command, workspace, env | extra)


GEMINI = scenarios.Rig(
    client="gemini",
    server=FakeGemini,
    script=Script,
    run=run_gemini,
    outputs=scenarios.from_last_request(lambda body: function_responses(body["contents"])),
    call=FunctionCall,
    shell=("run_shell_command", {"command": SHELL_COMMAND}),
)


def test_every_tool_reaches_the_model_request(
    gemini_executable: Path, client_home: Path, tmp_path: Path
) -> None:
    workspace = trusted_project(client_home, tmp_path)
    fake, _ = scenarios.offered_session(
        GEMINI, gemini_executable, client_home, workspace, steps=["Nothing to do."],
        marker="DJ-TOOLS",
    )  # fmt: skip
    offered = declared_tools(fake.main_requests[0])
    scenarios.check_our_tools_offered(GEMINI, offered, parameters_of)
    for name in TOOL_NAMES:
        assert parameters_of(offered[GEMINI.ours(name)]).get("properties"), f"{name}: no fields"
    assert {"write_file", "run_shell_command"} <= set(offered), sorted(offered)


def test_our_tools_reach_the_model_without_yolo(
    gemini_executable: Path, client_home: Path, tmp_path: Path
) -> None:
    """Headless Gemini offers the model only tools it may run without asking; in the default
    approval mode ours must still be there (they only ask the human or read the journal)."""

    def run(executable: Path, env: dict[str, str], workspace: Path, fake: FakeGemini) -> Any:
        return run_gemini(executable, env, workspace, fake, "default")

    rig = replace(GEMINI, run=run)
    workspace = trusted_project(client_home, tmp_path)
    fake, _ = scenarios.offered_session(
        rig, gemini_executable, client_home, workspace, steps=["Nothing."], marker="DJ-DEFAULT"
    )
    scenarios.check_our_tools_offered(rig, declared_tools(fake.main_requests[0]), parameters_of)


def test_present_is_answered_in_the_window_and_reaches_the_next_request(
    gemini_executable: Path, client_desktop: Desktop, client_home: Path, tmp_path: Path
) -> None:
    workspace = trusted_project(client_home, tmp_path)
    scenarios.check_present_answered(GEMINI, gemini_executable, client_desktop, workspace)


def test_pending_blocks_shell_and_write_but_not_our_tools(
    gemini_executable: Path, client_desktop: Desktop, client_home: Path, tmp_path: Path
) -> None:
    workspace = trusted_project(client_home, tmp_path)
    written = workspace / "written.txt"
    write = FunctionCall("write_file", {"file_path": str(written), "content": "pending\n"})
    scenarios.check_pending_gates(
        GEMINI, gemini_executable, client_desktop, workspace, edits={"write_file": write}
    )
    assert not written.exists()


def test_a_pinned_journal_is_the_one_our_server_and_hook_share(
    gemini_executable: Path, client_home: Path, tmp_path: Path
) -> None:
    workspace = trusted_project(client_home, tmp_path)
    pinned = tmp_path / "pinned-journal"
    scenarios.check_pinned_journal(GEMINI, gemini_executable, client_home, workspace, pinned)


def test_project_scope_works_for_a_teammate_with_decision_journal_on_path(
    gemini_executable: Path, tmp_path: Path
) -> None:
    """`setup gemini --write --scope project` writes the bare `decision-journal` into the
    project's .gemini/settings.json; a teammate who has it on PATH and trusted the folder
    gets our server and the gating, with no app running."""
    home = user_home(tmp_path / "home")
    workspace = trusted_project(home, tmp_path)
    configure("gemini", home, workspace, "--scope", "project")
    scenarios.check_teammate_on_path(GEMINI, gemini_executable, home, workspace)


def test_setup_check_tells_whether_gemini_trusts_the_folder(
    client_home: Path, tmp_path: Path
) -> None:
    project = tmp_path / "untrusted"
    project.mkdir()
    untrusted = run_setup("gemini", client_home, project, "--check")
    report = untrusted.stdout + untrusted.stderr
    assert untrusted.returncode == 1, report
    assert str(project) in report and "trust" in report, report
    trusted = run_setup("gemini", client_home, trusted_project(client_home, tmp_path), "--check")
    assert trusted.returncode == 0, trusted.stdout + trusted.stderr
