"""The real Codex CLI (`codex exec`) against a scripted model, with our setup, app and hooks.

Why the real client: Codex spells our tools its own way (`namespace: "mcp__decision_journal"`
beside the bare name), starts MCP servers with only a few environment variables, and runs
hooks only once they are trusted; a model of the client cannot show any of that. The model
is `fake_openai.FakeResponses` on 127.0.0.1; HOME is a temporary directory that our own
`setup codex --write` configured; the human is a person at the real window under Xvfb.

Codex runs with `--dangerously-bypass-approvals-and-sandbox`, so the only thing between a
scripted edit and the disk is our hook. Codex runs a hook only once the user trusted it; the
HOME here trusted it through `setup codex --write --trust-hook` (Codex's own trust record, no
`--dangerously-bypass-hook-trust`), and `setup codex --check` must say when nobody has.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from core.agents.tools import (
    CODEX_NAMESPACE,
    PRESENT_TOOL,
    RECENT_TOOL,
    TOOL_NAMES,
    client_tool_name,
)
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
from tests.clients.support.fake_openai import (
    MODEL,
    CustomCall,
    FakeResponses,
    FunctionCall,
    Script,
    ToolOutput,
    ToolSearch,
    namespace_tools,
    tool_outputs,
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

MCP_GRACE_MS = 30000
PATCH = (
    "*** Begin Patch\n*** Add File: patched.txt\n+written while a decision was pending\n"
    "*** End Patch\n"
)


@pytest.fixture(scope="module")
def codex_home(tmp_path_factory: pytest.TempPathFactory, codex_executable: Path) -> Path:
    """A HOME set up by `setup codex --write --trust-hook` (user scope), as a new user would."""
    home = tmp_path_factory.mktemp("codex-home")
    configure("codex", home, home, "--trust-hook", "--codex", str(codex_executable))
    return home


@pytest.fixture(scope="module")
def codex_desktop(codex_home: Path) -> Iterator[Desktop]:
    with desktop_for(codex_home) as desk:
        yield desk


def present(arguments: dict[str, Any]) -> FunctionCall:
    """The model calls our present tool the way Codex's model does: namespace + bare name."""
    return FunctionCall(PRESENT_TOOL, arguments, CODEX_NAMESPACE)


def run_codex(
    executable: Path,
    env: dict[str, str],
    workspace: Path,
    fake: FakeResponses,
    *,
    wait_for_mcp: bool = True,
) -> subprocess.CompletedProcess[str]:
    """One `codex exec` session of `fake`'s script in `workspace`, bounded in time.

    `wait_for_mcp` lets Codex wait for MCP servers before the first model request, so a test
    of the window or the hook does not depend on how fast our server starts; the tool-list
    test runs without it, with exactly the config our setup wrote.
    """
    provider = (
        f'model_providers.fake={{name="fake",base_url="{fake.base_url}",'
        'wire_api="responses",env_key="FAKE_KEY"}'
    )
    command = [
        str(executable), "exec", "--skip-git-repo-check", "--color", "never",
        "--dangerously-bypass-approvals-and-sandbox", "-C", str(workspace), "-m", MODEL,
        "-c", 'model_provider="fake"', "-c", provider,
        "-c", "check_for_update_on_startup=false", "-c", "analytics.enabled=false",
        "--disable", "plugins",
        *(["-c", f"mcp_optional_startup_grace_ms={MCP_GRACE_MS}"] if wait_for_mcp else []),
        f"{fake.script.marker}: follow the scripted session.",
    ]  # fmt: skip
    return run_bounded(command, workspace, env | {"FAKE_KEY": "test", "NO_COLOR": "1"})


def finished(
    done: subprocess.CompletedProcess[str], fake: FakeResponses, person: Person | None = None
) -> list[ToolOutput]:
    """The tool outputs of the session's last request, oldest first, once it ended cleanly."""
    outputs = tool_outputs(fake.main_requests[-1]["input"]) if fake.main_requests else []
    check_clean("codex", done, fake, outputs, person)
    return outputs


def unattended(executable: Path, home: Path, workspace: Path, **env: str) -> list[ToolOutput]:
    """A session with no app and nobody at a window: present (it stays pending), then a
    shell command the hook must block; `env` adds to the user's environment."""
    script = Script(
        "DJ-UNATTENDED",
        [
            present(proposal_dict()),
            FunctionCall("exec_command", {"cmd": SHELL_COMMAND}),
            "Stopped.",
        ],
    )
    with short_runtime_dir() as runtime, FakeResponses(script) as fake:
        done = run_codex(executable, home_env(home, runtime, **env), workspace, fake)
        return finished(done, fake)


def announced_namespaces(body: dict[str, Any]) -> set[str]:
    """The namespaces a request offers: in `tools`, or announced as deferred (loaded later
    through `tool_search`) in a developer message."""
    deferred = {
        line.removeprefix("- ").split(":", 1)[0]
        for item in body.get("input", [])
        if item.get("role") == "developer"
        for part in item.get("content", [])
        if "deferred tool namespaces:" in str(part.get("text", "")).lower()
        for line in str(part.get("text", "")).splitlines()
        if line.startswith("- ")
    }
    return deferred | set(namespace_tools(body))


def offered_namespace(fake: FakeResponses, namespace: str) -> dict[str, dict[str, Any]]:
    """Every tool of `namespace` that reached the model: in a request's `tools` or in what a
    `tool_search` returned."""
    found: dict[str, dict[str, Any]] = {}
    for body in fake.main_requests:
        found.update(namespace_tools(body).get(namespace, {}))
        for item in body.get("input", []):
            if item.get("type") == "tool_search_output":
                found.update(namespace_tools({"tools": item.get("tools", [])}).get(namespace, {}))
    return found


def workspace_in(tmp_path: Path) -> Path:
    path = tmp_path / "project"
    path.mkdir()
    return path


def test_every_tool_reaches_the_model_request(
    codex_executable: Path, codex_home: Path, tmp_path: Path
) -> None:
    """Codex defers a catalog model's MCP tools: the first request names our namespace and
    the model loads the tools with `tool_search`. Both must work from the first prompt, with
    exactly the config our setup wrote (no extra startup wait)."""
    workspace = workspace_in(tmp_path)
    script = Script("DJ-TOOLS", [ToolSearch("decision journal implementation decision"), "Done."])
    with short_runtime_dir() as runtime, FakeResponses(script) as fake:
        env = home_env(codex_home, runtime)
        finished(run_codex(codex_executable, env, workspace, fake, wait_for_mcp=False), fake)
    first = fake.main_requests[0]
    assert CODEX_NAMESPACE in announced_namespaces(first), (
        f"the first request does not offer {CODEX_NAMESPACE}: {sorted(namespace_tools(first))}"
    )
    ours = offered_namespace(fake, CODEX_NAMESPACE)
    assert sorted(ours) == sorted(TOOL_NAMES), f"{CODEX_NAMESPACE} offers {sorted(ours)}"
    for name, tool in ours.items():
        assert tool["parameters"].get("properties"), f"{name} reaches the model without fields"
    fields = ours[PRESENT_TOOL]["parameters"]["properties"]
    assert {"decision_id", "options", "problem"} <= set(fields), sorted(fields)


def test_present_is_answered_in_the_window_and_reaches_the_next_request(
    codex_executable: Path, codex_desktop: Desktop, tmp_path: Path
) -> None:
    workspace = workspace_in(tmp_path)
    script = Script("DJ-PRESENT", [present(proposal_dict()), "The human chose; proceeding."])
    with FakeResponses(script) as fake, Person(codex_desktop, CHOOSE_FIRST) as person:
        done = run_codex(codex_executable, codex_desktop.env, workspace, fake)
        outputs = finished(done, fake, person)
    assert len(outputs) == 1, outputs
    check_chosen_first(structured(outputs[0]))
    assert len(fake.main_requests) == 2


def test_pending_blocks_shell_and_patch_but_not_our_tools(
    codex_executable: Path, codex_desktop: Desktop, tmp_path: Path
) -> None:
    workspace = workspace_in(tmp_path)

    def resume(outputs: list[ToolOutput]) -> FunctionCall:
        return present({"decision_id": structured(outputs[0])["decision_id"]})

    script = Script(
        "DJ-GATING",
        [
            present(proposal_dict()),
            FunctionCall("exec_command", {"cmd": SHELL_COMMAND}),
            CustomCall("apply_patch", PATCH),
            FunctionCall(RECENT_TOOL, {}, CODEX_NAMESPACE),
            resume,
            resume,
            "Resumed with the human's answer.",
        ],
    )
    with FakeResponses(script) as fake, Person(codex_desktop, CLOSE, CHOOSE_FIRST) as person:
        done = run_codex(codex_executable, codex_desktop.env, workspace, fake)
        outputs = finished(done, fake, person)
    check_gated(outputs, ["exec_command", "apply_patch"], client_tool_name("codex", PRESENT_TOOL))
    assert not (workspace / SHELL_PROBE).exists()
    assert not (workspace / "patched.txt").exists()


def test_a_pinned_journal_is_the_one_our_server_and_hook_share(
    codex_executable: Path, codex_home: Path, tmp_path: Path
) -> None:
    """A user who pins DECISION_JOURNAL_HOME in their shell: Codex hands hooks the whole
    environment but MCP servers only a few variables, and both must still use that journal.
    No app runs for it, so the present call stays pending, and the shell call must be blocked."""
    workspace = workspace_in(tmp_path)
    pinned = tmp_path / "pinned-journal"
    outputs = unattended(codex_executable, codex_home, workspace, DECISION_JOURNAL_HOME=str(pinned))
    check_pending_then_blocked(pinned, outputs, workspace)


def test_project_scope_works_for_a_teammate_with_decision_journal_on_path(
    codex_executable: Path, tmp_path: Path
) -> None:
    """`setup codex --write --scope project` writes the bare `decision-journal` into the
    project's .codex files; a teammate who has it on PATH and trusted the project (Codex's
    folder prompt) and the hook gets our server and the gating, with no app running."""
    home = tmp_path / "home"
    workspace = workspace_in(tmp_path)
    (home / ".codex").mkdir(parents=True)
    trust = f'[projects."{workspace}"]\ntrust_level = "trusted"\n'
    (home / ".codex" / "config.toml").write_text(trust, encoding="utf-8")
    codex = ("--codex", str(codex_executable))
    configure("codex", home, workspace, "--scope", "project", "--trust-hook", *codex)
    outputs = unattended(codex_executable, home, workspace, PATH=path_with_installed())
    check_pending_then_blocked(home_journal(home), outputs, workspace)


def test_setup_check_tells_whether_codex_trusts_the_hook(
    codex_executable: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    codex = ("--codex", str(codex_executable))
    configure("codex", home, home)
    untrusted = run_setup("codex", home, home, "--check", *codex)
    report = untrusted.stdout + untrusted.stderr
    assert untrusted.returncode == 1, report
    assert re.search(r"hook.*not trusted", report, re.IGNORECASE), report
    configure("codex", home, home, "--trust-hook", *codex)
    trusted = run_setup("codex", home, home, "--check", *codex)
    assert trusted.returncode == 0, trusted.stdout + trusted.stderr
    assert not re.search(r"not trusted", trusted.stdout + trusted.stderr, re.IGNORECASE)
