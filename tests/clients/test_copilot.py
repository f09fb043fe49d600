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

import json
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from app.hooks.clients import COPILOT
from app.hooks.event import parse_event
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
from tests.clients.support.fake_anthropic import (
    Exchange,
    FakeAnthropic,
    Script,
    ToolResult,
    call,
    say,
)
from tests.clients.support.npm_clients import cache_root
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
from tests.integration.hook_support import DATA

pytestmark = [pytest.mark.xvfb, pytest.mark.timeout(180)]

MODEL = "claude-sonnet-4.5"
"""A model in Copilot CLI's own catalog, so it gets its usual tools and prompts."""


def ours(tool: str) -> str:
    return client_tool_name("copilot", tool)


@pytest.fixture(scope="module")
def copilot_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new user's HOME after `setup copilot --write` (user scope), and nothing else."""
    home = tmp_path_factory.mktemp("copilot-home")
    configure("copilot", home, home)
    return home


@pytest.fixture(scope="module")
def copilot_desktop(copilot_home: Path) -> Iterator[Desktop]:
    with desktop_for(copilot_home) as desk:
        yield desk


def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


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
        return json.JSONDecoder().raw_decode(self.text.lstrip())[0]


def outputs(results: list[ToolResult]) -> list[Output]:
    return [Output(result.text) for result in results]


def finished(
    done: subprocess.CompletedProcess[str], fake: FakeAnthropic, person: Person | None = None
) -> list[Output]:
    """The tool results of the session's last request, oldest first, once it ended cleanly."""
    results = outputs(list(fake.results().values()))
    check_clean("copilot", done, fake, results, person)
    return results


def unattended(
    executable: Path, home: Path, workspace: Path, *flags: str, **env: str
) -> list[Output]:
    """A session with no app and nobody at a window: present (it stays pending), then a shell
    command the hook must block; `flags` go to `copilot`, `env` adds to the user's
    environment."""
    script = Script(
        "DJ-UNATTENDED",
        [
            call(ours(PRESENT_TOOL), proposal_dict()),
            call("bash", {"command": SHELL_COMMAND, "description": "probe"}),
            say("Stopped."),
        ],
    )
    with short_runtime_dir() as runtime, FakeAnthropic(script) as fake:
        done = run_copilot(executable, home_env(home, runtime, **env), workspace, fake, *flags)
        return finished(done, fake)


def test_every_tool_reaches_the_model_request(
    copilot_executable: Path, copilot_home: Path, tmp_path: Path
) -> None:
    script = Script("DJ-TOOLS", [say("Nothing to do.")])
    with short_runtime_dir() as runtime, FakeAnthropic(script) as fake:
        done = run_copilot(
            copilot_executable, home_env(copilot_home, runtime), project(tmp_path), fake
        )
        finished(done, fake)
    offered = fake.offered_tools()
    missing = [ours(name) for name in TOOL_NAMES if ours(name) not in offered]
    assert not missing, f"missing {missing}; offered {sorted(offered)}"
    fields = offered[ours(PRESENT_TOOL)]["input_schema"]["properties"]
    assert {"decision_id", "options", "problem"} <= set(fields), sorted(fields)
    assert {"bash", "create", "edit", "view"} <= set(offered), sorted(offered)


def test_present_is_answered_in_the_window_and_reaches_the_next_request(
    copilot_executable: Path, copilot_desktop: Desktop, tmp_path: Path
) -> None:
    script = Script(
        "DJ-PRESENT", [call(ours(PRESENT_TOOL), proposal_dict()), say("The human chose.")]
    )
    with FakeAnthropic(script) as fake, Person(copilot_desktop, CHOOSE_FIRST) as person:
        done = run_copilot(copilot_executable, copilot_desktop.env, project(tmp_path), fake)
        results = finished(done, fake, person)
    assert len(results) == 1, results
    check_chosen_first(structured(results[0]))


def test_pending_blocks_shell_and_edits_but_not_our_tools_and_resume_works(
    copilot_executable: Path, copilot_desktop: Desktop, tmp_path: Path
) -> None:
    workspace = project(tmp_path)
    written = workspace / "written.txt"

    def resume(exchange: Exchange) -> object:
        decision_id = structured(Output(exchange.results[0].text))["decision_id"]
        return call(ours(PRESENT_TOOL), {"decision_id": decision_id})

    script = Script(
        "DJ-GATING",
        [
            call(ours(PRESENT_TOOL), proposal_dict()),
            call("bash", {"command": SHELL_COMMAND, "description": "probe"}),
            call("create", {"path": str(written), "file_text": "pending\n"}),
            call("view", {"path": str(workspace)}),
            call(ours(RECENT_TOOL), {}),
            resume,  # type: ignore[list-item]
            resume,  # type: ignore[list-item]
            say("Resumed with the human's answer."),
        ],
    )
    with FakeAnthropic(script) as fake, Person(copilot_desktop, CLOSE, CHOOSE_FIRST) as person:
        done = run_copilot(copilot_executable, copilot_desktop.env, workspace, fake)
        results = finished(done, fake, person)
    view = results.pop(3)
    assert "Denied" not in view.text, view.text
    check_gated(results, ["bash", "create"], ours(PRESENT_TOOL))
    assert "Denied by preToolUse hook" in results[1].text, results[1].text
    assert not (workspace / SHELL_PROBE).exists()
    assert not written.exists()


def test_a_pinned_journal_is_the_one_our_server_and_hook_share(
    copilot_executable: Path, copilot_home: Path, tmp_path: Path
) -> None:
    """A user who pins DECISION_JOURNAL_HOME in their shell: Copilot's MCP server and hook
    must both use that journal; with no app the present stays pending and the shell call
    after it is blocked."""
    workspace = project(tmp_path)
    pinned = tmp_path / "pinned-journal"
    results = unattended(
        copilot_executable, copilot_home, workspace, DECISION_JOURNAL_HOME=str(pinned)
    )
    check_pending_then_blocked(pinned, results, workspace)


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
    workspace = project(tmp_path)
    configure("copilot", home, workspace, "--scope", "project")
    check = ("--check", "--scope", "project")
    untrusted = run_setup("copilot", home, workspace, *check)
    assert untrusted.returncode == 1 and "trust" in untrusted.stdout, untrusted.stdout
    config = home / ".copilot" / "config.json"
    config.parent.mkdir(exist_ok=True)
    config.write_text(COPILOT_CONFIG % tmp_path, encoding="utf-8")
    trusted = run_setup("copilot", home, workspace, *check)
    assert trusted.returncode == 0, trusted.stdout + trusted.stderr
    results = unattended(copilot_executable, home, workspace, PATH=path_with_installed())
    check_pending_then_blocked(home_journal(home), results, workspace)


def test_the_recorded_event_is_the_one_the_hook_reads() -> None:
    """The event Copilot CLI 1.0.102 sent its `preToolUse` hook for a shell command, recorded
    from a real session: the hook reads its tool and session."""
    text = (DATA / "copilot_bash.input.json").read_text(encoding="utf-8")
    event = parse_event(text, COPILOT)
    assert event is not None
    assert (event.tool_name, event.tool_input["command"]) == ("bash", "touch shell-ran.txt")
    assert event.session_id and event.cwd
