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

import subprocess
from pathlib import Path

import pytest

from core.agents.tools import RECENT_TOOL
from tests.clients.support import scenarios
from tests.clients.support.agent_desktop import configure, with_settings
from tests.clients.support.chat_sessions import chat_rig, check_gating_with_a_read
from tests.clients.support.fake_chat import MODEL, FakeChat, offered_tools
from tests.clients.support.npm_clients import cache_root
from tests.clients.support.sessions import SHELL_COMMAND, run_bounded, structured
from tests.integration.agent_support import Desktop

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


def user_home(home: Path) -> Path:
    """`home` with a user's own opencode.json."""
    return with_settings(home, ".config/opencode/opencode.json", USER_CONFIG)


@pytest.fixture(scope="module")
def client_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A user's HOME, then `setup opencode --write` (user scope)."""
    home = user_home(tmp_path_factory.mktemp("opencode-home"))
    configure("opencode", home, home)
    return home


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


OPENCODE = chat_rig(
    "opencode", run_opencode, ("bash", {"command": SHELL_COMMAND, "description": "probe"})
)


def test_every_tool_reaches_the_model_request(
    opencode_executable: Path, client_home: Path, tmp_path: Path
) -> None:
    steps = [OPENCODE.our_call(RECENT_TOOL, {}), "Nothing to do."]
    fake, results = scenarios.offered_session(
        OPENCODE, opencode_executable, client_home, scenarios.project(tmp_path), steps=steps,
        marker="DJ-TOOLS",
    )  # fmt: skip
    offered = offered_tools(fake.main_requests[0])
    scenarios.check_our_tools_offered(OPENCODE, offered, lambda tool: tool["parameters"])
    assert {"bash", "edit", "write", "read"} <= set(offered), sorted(offered)
    assert structured(results[0])["pending"] == [], results


def test_present_is_answered_in_the_window_and_reaches_the_next_request(
    opencode_executable: Path, client_desktop: Desktop, tmp_path: Path
) -> None:
    scenarios.check_present_answered(
        OPENCODE, opencode_executable, client_desktop, scenarios.project(tmp_path)
    )


def test_pending_blocks_shell_and_edits_but_not_reads_or_our_tools_and_resume_works(
    opencode_executable: Path, client_desktop: Desktop, tmp_path: Path
) -> None:
    check_gating_with_a_read(
        OPENCODE, opencode_executable, client_desktop, tmp_path,
        write=("write", lambda path: {"filePath": str(path), "content": "pending\n"}),
        read=("read", lambda path: {"filePath": str(path)}),
    )  # fmt: skip


def test_a_pinned_journal_is_the_one_our_server_and_plugin_share(
    opencode_executable: Path, client_home: Path, tmp_path: Path
) -> None:
    """The gate here is our plugin, which runs our hook: both it and the MCP server must use
    the pinned journal."""
    pinned = tmp_path / "pinned-journal"
    scenarios.check_pinned_journal(
        OPENCODE, opencode_executable, client_home, scenarios.project(tmp_path), pinned
    )


def test_project_scope_works_for_a_teammate_with_decision_journal_on_path(
    opencode_executable: Path, tmp_path: Path
) -> None:
    """`setup opencode --write --scope project` writes the project's opencode.json and
    .opencode/plugin/ with the bare `decision-journal`; a teammate who has it on PATH gets our
    server and the gating, with no app running."""
    home = user_home(tmp_path / "home")
    workspace = scenarios.project(tmp_path)
    configure("opencode", home, workspace, "--scope", "project")
    scenarios.check_teammate_on_path(OPENCODE, opencode_executable, home, workspace)
