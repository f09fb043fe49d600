"""The real GitHub Copilot CLI (`copilot -p`) against a scripted model, with our setup, app and
hook.

Why the real client: Copilot spells our tools `decision-journal-<tool>`, sends its
`preToolUse` hook an event of its own (`toolName`/`toolArgs`, no `tool_name`), and denies the
tool on any hook answer it cannot read, our resume included; a model of the client shows none
of that. Copilot runs without GitHub: `COPILOT_OFFLINE=true` with a custom model provider
(`COPILOT_PROVIDER_BASE_URL`, type `anthropic`) pointed at `fake_anthropic.FakeAnthropic` on
127.0.0.1. HOME is a temporary directory configured only by our `setup copilot --write`; the
human is a person at the real window under Xvfb. `--allow-all-tools` (which headless runs
need) leaves our hook as the only thing between a scripted edit and the disk.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from app.hooks.clients import COPILOT
from app.hooks.event import parse_event
from tests.clients.support import scenarios
from tests.clients.support.agent_desktop import configure, run_setup
from tests.clients.support.fake_anthropic import Exchange, FakeAnthropic, Script, call, say
from tests.clients.support.fake_http import first_json
from tests.clients.support.npm_clients import cache_root
from tests.clients.support.sessions import SHELL_COMMAND, run_bounded
from tests.integration.agent_support import Desktop
from tests.integration.hook_support import DATA

pytestmark = [pytest.mark.xvfb, pytest.mark.timeout(180)]

MODEL = "claude-sonnet-4.5"
"""A model in Copilot CLI's own catalog, so it gets its usual tools and prompts."""


@pytest.fixture(scope="module")
def client_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new user's HOME after `setup copilot --write` (user scope), and nothing else."""
    home = tmp_path_factory.mktemp("copilot-home")
    configure("copilot", home, home)
    return home


def run_copilot(
    executable: Path, env: dict[str, str], workspace: Path, fake: FakeAnthropic, *flags: str
) -> subprocess.CompletedProcess[str]:
    """One headless `copilot -p` session of `fake`'s script in `workspace`, bounded in time.

    Copilot unpacks its bundled package into `$XDG_CACHE_HOME/copilot` on first start; the
    test clients' cache keeps one unpacked copy for every fresh HOME.
    """
    command = [
        str(executable), "-p", f"{fake.script.marker}: follow the scripted session.",
        "--allow-all-tools", "--no-auto-update", *flags,
    ]  # fmt: skip
    extra = {
        "COPILOT_OFFLINE": "true",
        "COPILOT_PROVIDER_BASE_URL": fake.base_url,
        "COPILOT_PROVIDER_TYPE": "anthropic",
        "COPILOT_PROVIDER_API_KEY": "test",
        "COPILOT_MODEL": MODEL,
        "COPILOT_AUTO_UPDATE": "false",
        "XDG_CACHE_HOME": str(cache_root() / "copilot-xdg-cache"),
        "NO_COLOR": "1",
    }
    return run_bounded(command, workspace, env | extra)


@dataclass(frozen=True, slots=True)
class Output:
    """A tool result as Copilot hands it to the model: an MCP tool's text content, then its
    structured content as a second JSON text, in one string."""

    text: str

    def json(self) -> Any:
        """The first JSON document of the text: our tool's own result."""
        return first_json(self.text)


def last_outputs(fake: FakeAnthropic) -> list[Output]:
    """The tool results of the scripted conversation's last request, oldest first."""
    return [Output(result.text) for result in fake.results().values()]


def first_output(exchange: Exchange) -> Output:
    return Output(exchange.results[0].text)


COPILOT_RIG = scenarios.Rig(
    client="copilot",
    server=FakeAnthropic,
    script=Script,
    run=run_copilot,
    outputs=last_outputs,
    call=call,
    say=say,
    first_output=first_output,
    shell=("bash", {"command": SHELL_COMMAND, "description": "probe"}),
)


def test_every_tool_reaches_the_model_request(
    copilot_executable: Path, client_home: Path, tmp_path: Path
) -> None:
    fake, _ = scenarios.offered_session(
        COPILOT_RIG, copilot_executable, client_home, scenarios.project(tmp_path),
        steps=[say("Nothing to do.")], marker="DJ-TOOLS",
    )  # fmt: skip
    offered = fake.offered_tools()
    scenarios.check_our_tools_offered(COPILOT_RIG, offered, lambda tool: tool["input_schema"])
    assert {"bash", "create", "edit", "view"} <= set(offered), sorted(offered)


def test_present_is_answered_in_the_window_and_reaches_the_next_request(
    copilot_executable: Path, client_desktop: Desktop, tmp_path: Path
) -> None:
    scenarios.check_present_answered(
        COPILOT_RIG, copilot_executable, client_desktop, scenarios.project(tmp_path)
    )


def test_pending_blocks_shell_and_edits_but_not_our_tools_and_resume_works(
    copilot_executable: Path, client_desktop: Desktop, tmp_path: Path
) -> None:
    workspace = scenarios.project(tmp_path)
    written = workspace / "written.txt"
    create = call("create", {"path": str(written), "file_text": "pending\n"})
    view = call("view", {"path": str(workspace)})
    outputs = scenarios.check_pending_gates(
        COPILOT_RIG, copilot_executable, client_desktop, workspace, edits={"create": create},
        reads=[view],
    )  # fmt: skip
    assert "Denied" not in outputs[3].text, outputs[3].text
    assert "Denied by preToolUse hook" in outputs[1].text, outputs[1].text
    assert not written.exists()


def test_a_pinned_journal_is_the_one_our_server_and_hook_share(
    copilot_executable: Path, client_home: Path, tmp_path: Path
) -> None:
    pinned = tmp_path / "pinned-journal"
    scenarios.check_pinned_journal(
        COPILOT_RIG, copilot_executable, client_home, scenarios.project(tmp_path), pinned
    )


COPILOT_CONFIG = """// User settings belong in settings.json.
// This file is managed automatically.
{
  "trustedFolders": [
    "%s"
  ],
  "firstLaunchAt": "2026-03-11T00:00:00.000Z"
}
"""
"""`~/.copilot/config.json` as Copilot CLI 1.0.102 rewrites it after the user trusted a folder
(comment lines included)."""


def test_project_scope_works_in_a_folder_copilot_trusts(
    copilot_executable: Path, tmp_path: Path
) -> None:
    """`setup copilot --write --scope project` writes .github/mcp.json and
    .github/hooks/decision-journal.json with the bare `decision-journal`; `--check` fails
    until the user trusted the folder (here its parent, as Copilot records it), and then a
    teammate who has `decision-journal` on PATH gets our server and the gating, with no app."""
    home = tmp_path / "home"
    home.mkdir()
    workspace = scenarios.project(tmp_path)
    configure("copilot", home, workspace, "--scope", "project")
    check = ("--check", "--scope", "project")
    untrusted = run_setup("copilot", home, workspace, *check)
    assert untrusted.returncode == 1 and "trust" in untrusted.stdout, untrusted.stdout
    config = home / ".copilot" / "config.json"
    config.parent.mkdir(exist_ok=True)
    config.write_text(COPILOT_CONFIG % tmp_path, encoding="utf-8")
    trusted = run_setup("copilot", home, workspace, *check)
    assert trusted.returncode == 0, trusted.stdout + trusted.stderr
    scenarios.check_teammate_on_path(COPILOT_RIG, copilot_executable, home, workspace)


def test_the_recorded_event_is_the_one_the_hook_reads() -> None:
    """The event Copilot CLI 1.0.102 sent its `preToolUse` hook for a shell command, recorded
    from a real session: the hook reads its tool and session."""
    text = (DATA / "copilot_bash.input.json").read_text(encoding="utf-8")
    event = parse_event(text, COPILOT)
    assert event is not None
    assert (event.tool_name, event.tool_input["command"]) == ("bash", "touch shell-ran.txt")
    assert event.session_id and event.cwd
