"""The real opencode (`opencode run`) against a scripted model, with our setup, plugin, app and
hook.

Why the real client: opencode has no command hook; the only gate is our plugin, which opencode
must load from its plugin folder and run before every tool, and whose thrown error must reach
the model as the tool's result. It spells our tools `decision-journal_<tool>`. A model of the
client shows none of that. The model is `fake_chat.FakeChat` on 127.0.0.1, a custom
OpenAI-compatible provider in the user's own opencode.json (its `baseURL` read from the
environment, so one HOME serves every fake); HOME is a temporary directory with that config
and nothing else until our own `setup opencode --write`; the human is a person at the real
window under Xvfb.

Nothing reaches beyond loopback but the npm registry: models.dev, update checks, LSP downloads
and the default auth plugins are off (`OPENCODE_DISABLE_*`); opencode installs its plugin SDK
into each config folder it loads plugins from once, through npm, whose cache the test clients'
cache keeps. `opencode run` auto-approves nothing it would ask about, and asks about nothing a
scripted session here does (all inside the project), so the only thing between a scripted edit
and the disk is our plugin.
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
from tests.clients.support.npm_clients import cache_root
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

pytestmark = [pytest.mark.xvfb, pytest.mark.timeout(240)]

MODEL_URL_ENV = "DJ_FAKE_MODEL_URL"
USER_CONFIG = {
    "$schema": "https://opencode.ai/config.json",
    "provider": {
        "loopback": {
            "npm": "@ai-sdk/openai-compatible",
            "name": "Loopback",
            "options": {"baseURL": f"{{env:{MODEL_URL_ENV}}}", "apiKey": "test"},
            "models": {MODEL: {"name": "Scripted coder", "tool_call": True}},
        }
    },
    "model": f"loopback/{MODEL}",
    "small_model": f"loopback/{MODEL}",
    "autoupdate": False,
    "share": "disabled",
}
"""A user's own opencode.json: an OpenAI-compatible provider of their own, no sharing, no
updates."""
OFFLINE = {
    "OPENCODE_DISABLE_MODELS_FETCH": "1",
    "OPENCODE_DISABLE_AUTOUPDATE": "1",
    "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
    "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
}


def ours(tool: str) -> str:
    return client_tool_name("opencode", tool)


def user_home(home: Path) -> Path:
    """`home` with a user's own opencode.json."""
    config = home / ".config" / "opencode" / "opencode.json"
    config.parent.mkdir(parents=True)
    config.write_text(json.dumps(USER_CONFIG, indent=2), encoding="utf-8")
    return home


@pytest.fixture(scope="module")
def opencode_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A user's HOME, then `setup opencode --write` (user scope)."""
    home = user_home(tmp_path_factory.mktemp("opencode-home"))
    configure("opencode", home, home)
    return home


@pytest.fixture(scope="module")
def opencode_desktop(opencode_home: Path) -> Iterator[Desktop]:
    with desktop_for(opencode_home) as desk:
        yield desk


def run_opencode(
    executable: Path, env: dict[str, str], workspace: Path, fake: FakeChat
) -> subprocess.CompletedProcess[str]:
    """One `opencode run` session of `fake`'s script in `workspace`, bounded in time; PWD is
    the workspace, as a shell started there has it (opencode takes its project from PWD)."""
    command = [
        str(executable), "run", "--format", "json", "--print-logs", "--log-level", "WARN",
        f"{fake.script.marker}: follow the scripted session.",
    ]  # fmt: skip
    extra = {
        **OFFLINE,
        MODEL_URL_ENV: fake.base_url,
        "PWD": str(workspace),
        "npm_config_cache": str(cache_root() / "opencode-npm-cache"),
        "NO_COLOR": "1",
    }
    return run_bounded(command, workspace, env | extra, timeout=180.0)


def unattended(executable: Path, home: Path, workspace: Path, **env: str) -> list[ToolResult]:
    """A session with no app and nobody at a window: present (it stays pending), then a
    shell command the plugin must block; `env` adds to the user's environment."""
    script = unattended_script(
        "opencode", FunctionCall("bash", {"command": SHELL_COMMAND, "description": "probe"})
    )
    with short_runtime_dir() as runtime, FakeChat(script) as fake:
        done = run_opencode(executable, home_env(home, runtime, **env), workspace, fake)
        return finished("opencode", done, fake)


def test_every_tool_reaches_the_model_request(
    opencode_executable: Path, opencode_home: Path, tmp_path: Path
) -> None:
    script = Script("DJ-TOOLS", [FunctionCall(ours(RECENT_TOOL), {}), "Nothing to do."])
    with short_runtime_dir() as runtime, FakeChat(script) as fake:
        env = home_env(opencode_home, runtime)
        done = run_opencode(opencode_executable, env, project(tmp_path), fake)
        results = finished("opencode", done, fake)
    offered = offered_tools(fake.main_requests[0])
    missing = [ours(name) for name in TOOL_NAMES if ours(name) not in offered]
    assert not missing, f"missing {missing}; offered {sorted(offered)}"
    fields = offered[ours(PRESENT_TOOL)]["parameters"]["properties"]
    assert {"decision_id", "options", "problem"} <= set(fields), sorted(fields)
    assert {"bash", "edit", "write", "read"} <= set(offered), sorted(offered)
    assert structured(results[0])["pending"] == [], results


def test_present_is_answered_in_the_window_and_reaches_the_next_request(
    opencode_executable: Path, opencode_desktop: Desktop, tmp_path: Path
) -> None:
    script = Script(
        "DJ-PRESENT", [FunctionCall(ours(PRESENT_TOOL), proposal_dict()), "The human chose."]
    )
    with FakeChat(script) as fake, Person(opencode_desktop, CHOOSE_FIRST) as person:
        done = run_opencode(opencode_executable, opencode_desktop.env, project(tmp_path), fake)
        results = finished("opencode", done, fake, person)
    assert len(results) == 1, results
    check_chosen_first(structured(results[0]))


def test_pending_blocks_shell_and_edits_but_not_reads_or_our_tools_and_resume_works(
    opencode_executable: Path, opencode_desktop: Desktop, tmp_path: Path
) -> None:
    workspace = project(tmp_path)
    notes = workspace / "notes.txt"
    notes.write_text("read while pending\n", encoding="utf-8")
    written = workspace / "written.txt"

    def resume(results: list[ToolResult]) -> FunctionCall:
        decision_id = structured(results[0])["decision_id"]
        return FunctionCall(ours(PRESENT_TOOL), {"decision_id": decision_id})

    script = Script(
        "DJ-GATING",
        [
            FunctionCall(ours(PRESENT_TOOL), proposal_dict()),
            FunctionCall("bash", {"command": SHELL_COMMAND, "description": "probe"}),
            FunctionCall("write", {"filePath": str(written), "content": "pending\n"}),
            FunctionCall("read", {"filePath": str(notes)}),
            FunctionCall(ours(RECENT_TOOL), {}),
            resume,
            resume,
            "Resumed with the human's answer.",
        ],
    )
    with FakeChat(script) as fake, Person(opencode_desktop, CLOSE, CHOOSE_FIRST) as person:
        done = run_opencode(opencode_executable, opencode_desktop.env, workspace, fake)
        results = finished("opencode", done, fake, person)
    read = results.pop(3)
    assert "read while pending" in read.text, read.text
    check_gated(results, ["bash", "write"], ours(PRESENT_TOOL))
    assert not (workspace / SHELL_PROBE).exists()
    assert not written.exists()


def test_a_pinned_journal_is_the_one_our_server_and_plugin_share(
    opencode_executable: Path, opencode_home: Path, tmp_path: Path
) -> None:
    """A user who pins DECISION_JOURNAL_HOME in their shell: opencode's MCP server and our
    plugin's hook must both use that journal; with no app the present stays pending and the
    shell call after it is blocked."""
    workspace = project(tmp_path)
    pinned = tmp_path / "pinned-journal"
    results = unattended(
        opencode_executable, opencode_home, workspace, DECISION_JOURNAL_HOME=str(pinned)
    )
    check_pending_then_blocked(pinned, results, workspace)


def test_project_scope_works_for_a_teammate_with_decision_journal_on_path(
    opencode_executable: Path, tmp_path: Path
) -> None:
    """`setup opencode --write --scope project` writes the project's opencode.json and
    .opencode/plugin/ with the bare `decision-journal`; a teammate who has it on PATH gets our
    server and the gating, with no app running."""
    home = user_home(tmp_path / "home")
    workspace = project(tmp_path)
    configure("opencode", home, workspace, "--scope", "project")
    results = unattended(opencode_executable, home, workspace, PATH=path_with_installed())
    check_pending_then_blocked(home_journal(home), results, workspace)
