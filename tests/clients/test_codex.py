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
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from core.agents.tools import CODEX_NAMESPACE, PRESENT_TOOL, TOOL_NAMES
from tests.clients.support import scenarios
from tests.clients.support.agent_desktop import configure, run_setup
from tests.clients.support.fake_openai import (
    MODEL,
    CustomCall,
    FakeResponses,
    FunctionCall,
    Script,
    ToolSearch,
    namespace_tools,
    tool_outputs,
)
from tests.clients.support.sessions import SHELL_COMMAND, run_bounded
from tests.integration.agent_support import Desktop

pytestmark = [pytest.mark.xvfb, pytest.mark.timeout(180)]

MCP_GRACE_MS = 30000
PATCH = (
    "*** Begin Patch\n*** Add File: patched.txt\n+written while a decision was pending\n"
    "*** End Patch\n"
)


@pytest.fixture(scope="module")
def client_home(tmp_path_factory: pytest.TempPathFactory, codex_executable: Path) -> Path:
    """A HOME set up by `setup codex --write --trust-hook` (user scope), as a new user would."""
    home = tmp_path_factory.mktemp("codex-home")
    configure("codex", home, home, "--trust-hook", "--codex", str(codex_executable))
    return home


def our_call(tool: str, arguments: dict[str, Any]) -> FunctionCall:
    """The model calls one of our tools the way Codex's model does: namespace + bare name."""
    return FunctionCall(tool, arguments, CODEX_NAMESPACE)


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


CODEX = scenarios.Rig(
    client="codex",
    server=FakeResponses,
    script=Script,
    run=run_codex,
    outputs=scenarios.from_last_request(lambda body: tool_outputs(body["input"])),
    call=FunctionCall,
    shell=("exec_command", {"cmd": SHELL_COMMAND}),
    call_ours=our_call,
)


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


def test_every_tool_reaches_the_model_request(
    codex_executable: Path, client_home: Path, tmp_path: Path
) -> None:
    """Codex defers a catalog model's MCP tools: the first request names our namespace and
    the model loads the tools with `tool_search`. Both must work from the first prompt, with
    exactly the config our setup wrote (no extra startup wait)."""
    workspace = scenarios.project(tmp_path)

    def run(executable: Path, env: dict[str, str], workspace: Path, fake: FakeResponses) -> Any:
        return run_codex(executable, env, workspace, fake, wait_for_mcp=False)

    steps = [ToolSearch("decision journal implementation decision"), "Done."]
    rig = replace(CODEX, run=run)
    fake, _ = scenarios.offered_session(
        rig, codex_executable, client_home, workspace, steps=steps, marker="DJ-TOOLS"
    )
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
    codex_executable: Path, client_desktop: Desktop, tmp_path: Path
) -> None:
    fake = scenarios.check_present_answered(
        CODEX, codex_executable, client_desktop, scenarios.project(tmp_path)
    )
    assert len(fake.main_requests) == 2


def test_pending_blocks_shell_and_patch_but_not_our_tools(
    codex_executable: Path, client_desktop: Desktop, tmp_path: Path
) -> None:
    workspace = scenarios.project(tmp_path)
    patch = CustomCall("apply_patch", PATCH)
    scenarios.check_pending_gates(
        CODEX, codex_executable, client_desktop, workspace, edits={"apply_patch": patch}
    )
    assert not (workspace / "patched.txt").exists()


def test_a_pinned_journal_is_the_one_our_server_and_hook_share(
    codex_executable: Path, client_home: Path, tmp_path: Path
) -> None:
    """Codex hands hooks the whole environment but MCP servers only a few variables, and both
    must still use the pinned journal."""
    pinned = tmp_path / "pinned-journal"
    scenarios.check_pinned_journal(
        CODEX, codex_executable, client_home, scenarios.project(tmp_path), pinned
    )


def test_project_scope_works_for_a_teammate_with_decision_journal_on_path(
    codex_executable: Path, tmp_path: Path
) -> None:
    """`setup codex --write --scope project` writes the bare `decision-journal` into the
    project's .codex files; a teammate who has it on PATH and trusted the project (Codex's
    folder prompt) and the hook gets our server and the gating, with no app running."""
    home = tmp_path / "home"
    workspace = scenarios.project(tmp_path)
    (home / ".codex").mkdir(parents=True)
    trust = f'[projects."{workspace}"]\ntrust_level = "trusted"\n'
    (home / ".codex" / "config.toml").write_text(trust, encoding="utf-8")
    codex = ("--codex", str(codex_executable))
    configure("codex", home, workspace, "--scope", "project", "--trust-hook", *codex)
    scenarios.check_teammate_on_path(CODEX, codex_executable, home, workspace)


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
