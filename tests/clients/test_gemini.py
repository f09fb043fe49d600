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
from tests.clients.support.fake_gemini import (
    MODEL,
    FakeGemini,
    FunctionCall,
    FunctionResponse,
    Script,
    declared_tools,
    function_responses,
    parameters_of,
)
from tests.clients.support.sessions import (
    SHELL_COMMAND,
    SHELL_PROBE,
    check_chosen_first,
    check_clean,
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
    "security": {"auth": {"selectedType": "gemini-api-key"}},
    "privacy": {"usageStatisticsEnabled": False},
    "telemetry": {"enabled": False},
    "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
    "tools": {"useRipgrep": False},
}
"""A user's own settings, with nothing that reaches beyond loopback (telemetry, usage
statistics, update checks, the ripgrep download)."""


def ours(tool: str) -> str:
    return client_tool_name("gemini", tool)


def user_home(home: Path) -> Path:
    """`home` with a user's own Gemini settings (API key auth, nothing beyond loopback)."""
    settings = home / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps(USER_SETTINGS, indent=2), encoding="utf-8")
    return home


@pytest.fixture(scope="module")
def gemini_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A user's HOME, then `setup gemini --write` (user scope)."""
    home = user_home(tmp_path_factory.mktemp("gemini-home"))
    configure("gemini", home, home)
    return home


@pytest.fixture(scope="module")
def gemini_desktop(gemini_home: Path) -> Iterator[Desktop]:
    with desktop_for(gemini_home) as desk:
        yield desk


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


def finished(
    done: subprocess.CompletedProcess[str], fake: FakeGemini, person: Person | None = None
) -> list[FunctionResponse]:
    """The function responses of the session's last request, oldest first, once it ended
    cleanly."""
    contents = fake.main_requests[-1]["contents"] if fake.main_requests else []
    responses = function_responses(contents)
    check_clean("gemini", done, fake, responses, person)
    return responses


def unattended(executable: Path, home: Path, workspace: Path, **env: str) -> list[FunctionResponse]:
    """A session with no app and nobody at a window: present (it stays pending), then a
    shell command the hook must block; `env` adds to the user's environment."""
    script = Script(
        "DJ-UNATTENDED",
        [
            FunctionCall(ours(PRESENT_TOOL), proposal_dict()),
            FunctionCall("run_shell_command", {"command": SHELL_COMMAND}),
            "Stopped.",
        ],
    )
    with short_runtime_dir() as runtime, FakeGemini(script) as fake:
        done = run_gemini(executable, home_env(home, runtime, **env), workspace, fake)
        return finished(done, fake)


def test_every_tool_reaches_the_model_request(
    gemini_executable: Path, gemini_home: Path, tmp_path: Path
) -> None:
    workspace = trusted_project(gemini_home, tmp_path)
    with short_runtime_dir() as runtime, FakeGemini(Script("DJ-TOOLS", ["Nothing to do."])) as fake:
        finished(
            run_gemini(gemini_executable, home_env(gemini_home, runtime), workspace, fake), fake
        )
    offered = declared_tools(fake.main_requests[0])
    missing = [ours(name) for name in TOOL_NAMES if ours(name) not in offered]
    assert not missing, f"missing {missing}; offered {sorted(offered)}"
    for name in TOOL_NAMES:
        assert parameters_of(offered[ours(name)]).get("properties"), f"{name} has no fields"
    fields = parameters_of(offered[ours(PRESENT_TOOL)])["properties"]
    assert {"decision_id", "options", "problem"} <= set(fields), sorted(fields)
    assert {"write_file", "run_shell_command"} <= set(offered), sorted(offered)


def test_our_tools_reach_the_model_without_yolo(
    gemini_executable: Path, gemini_home: Path, tmp_path: Path
) -> None:
    """Headless Gemini offers the model only tools it may run without asking; in the default
    approval mode ours must still be there (they only ask the human or read the journal)."""
    workspace = trusted_project(gemini_home, tmp_path)
    with short_runtime_dir() as runtime, FakeGemini(Script("DJ-DEFAULT", ["Nothing."])) as fake:
        env = home_env(gemini_home, runtime)
        finished(run_gemini(gemini_executable, env, workspace, fake, "default"), fake)
    offered = declared_tools(fake.main_requests[0])
    missing = [ours(name) for name in TOOL_NAMES if ours(name) not in offered]
    assert not missing, f"missing {missing}; offered {sorted(offered)}"


def test_present_is_answered_in_the_window_and_reaches_the_next_request(
    gemini_executable: Path, gemini_desktop: Desktop, gemini_home: Path, tmp_path: Path
) -> None:
    workspace = trusted_project(gemini_home, tmp_path)
    script = Script(
        "DJ-PRESENT",
        [FunctionCall(ours(PRESENT_TOOL), proposal_dict()), "The human chose; proceeding."],
    )
    with FakeGemini(script) as fake, Person(gemini_desktop, CHOOSE_FIRST) as person:
        done = run_gemini(gemini_executable, gemini_desktop.env, workspace, fake)
        responses = finished(done, fake, person)
    assert len(responses) == 1, responses
    check_chosen_first(structured(responses[0]))


def test_pending_blocks_shell_and_write_but_not_our_tools(
    gemini_executable: Path, gemini_desktop: Desktop, gemini_home: Path, tmp_path: Path
) -> None:
    workspace = trusted_project(gemini_home, tmp_path)

    def resume(responses: list[FunctionResponse]) -> FunctionCall:
        return FunctionCall(
            ours(PRESENT_TOOL), {"decision_id": structured(responses[0])["decision_id"]}
        )

    written = workspace / "written.txt"
    script = Script(
        "DJ-GATING",
        [
            FunctionCall(ours(PRESENT_TOOL), proposal_dict()),
            FunctionCall("run_shell_command", {"command": SHELL_COMMAND}),
            FunctionCall("write_file", {"file_path": str(written), "content": "pending\n"}),
            FunctionCall(ours(RECENT_TOOL), {}),
            resume,
            resume,
            "Resumed with the human's answer.",
        ],
    )
    with FakeGemini(script) as fake, Person(gemini_desktop, CLOSE, CHOOSE_FIRST) as person:
        done = run_gemini(gemini_executable, gemini_desktop.env, workspace, fake)
        responses = finished(done, fake, person)
    check_gated(responses, ["run_shell_command", "write_file"], ours(PRESENT_TOOL))
    assert not (workspace / SHELL_PROBE).exists()
    assert not written.exists()


def test_a_pinned_journal_is_the_one_our_server_and_hook_share(
    gemini_executable: Path, gemini_home: Path, tmp_path: Path
) -> None:
    """A user who pins DECISION_JOURNAL_HOME in their shell: Gemini's MCP server and hook must
    both use that journal. No app runs for it, so the present call stays pending, and the
    shell call must be blocked."""
    workspace = trusted_project(gemini_home, tmp_path)
    pinned = tmp_path / "pinned-journal"
    env = {"DECISION_JOURNAL_HOME": str(pinned)}
    responses = unattended(gemini_executable, gemini_home, workspace, **env)
    check_pending_then_blocked(pinned, responses, workspace)


def test_project_scope_works_for_a_teammate_with_decision_journal_on_path(
    gemini_executable: Path, tmp_path: Path
) -> None:
    """`setup gemini --write --scope project` writes the bare `decision-journal` into the
    project's .gemini/settings.json; a teammate who has it on PATH and trusted the folder
    gets our server and the gating, with no app running."""
    home = user_home(tmp_path / "home")
    workspace = trusted_project(home, tmp_path)
    configure("gemini", home, workspace, "--scope", "project")
    responses = unattended(gemini_executable, home, workspace, PATH=path_with_installed())
    check_pending_then_blocked(home_journal(home), responses, workspace)


def test_setup_check_tells_whether_gemini_trusts_the_folder(
    gemini_home: Path, tmp_path: Path
) -> None:
    project = tmp_path / "untrusted"
    project.mkdir()
    untrusted = run_setup("gemini", gemini_home, project, "--check")
    report = untrusted.stdout + untrusted.stderr
    assert untrusted.returncode == 1, report
    assert str(project) in report and "trust" in report, report
    trusted = run_setup("gemini", gemini_home, trusted_project(gemini_home, tmp_path), "--check")
    assert trusted.returncode == 0, trusted.stdout + trusted.stderr
