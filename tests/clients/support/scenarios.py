"""The scenarios every real-client test module runs, written once: a client described by a
`Rig` (how a session starts, how its model calls a tool, how the outputs come back) goes
through each the same way.

Why shared: Codex, Gemini CLI, Copilot CLI, Qwen Code and opencode differ in their wire
formats, tool names and flags, which each module's `Rig` holds; what the product promises in
every one of them is the same (every tool reaches the model, the human's answer reaches the
agent, a pending decision blocks edits and not our tools, a pinned journal and a project-scope
set-up hold for the server and the hook alike), so each scenario says it once.
"""

from __future__ import annotations

import operator
import subprocess
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.agents.tools import PRESENT_TOOL, RECENT_TOOL, TOOL_NAMES, Client, client_tool_name
from tests.clients.support.agent_desktop import CHOOSE_FIRST, CLOSE, Person, home_env, home_journal
from tests.clients.support.fake_http import RecordingServer
from tests.clients.support.sessions import (
    SHELL_PROBE,
    Output,
    check_chosen_first,
    check_clean,
    check_gated,
    check_pending_then_blocked,
    path_with_installed,
    structured,
)
from tests.factories import proposal_dict
from tests.integration.agent_support import Desktop, short_runtime_dir

Step = Any
"""A scripted model turn in the client's fake's own types, or a function of what came back."""
Fake = Any
"""The client's fake model API (a `fake_http.RecordingServer`)."""


@dataclass(frozen=True)
class Rig:
    """One client as the scenarios drive it.

    Attributes:
        client: its name in `core.agents.tools`.
        server: the fake model API serving a script, to enter (`FakeChat`, `FakeGemini`, …).
        script: the fake's script of a marker and its steps.
        run: one bounded session: (executable, env, workspace, fake) → the finished process.
        outputs: the tool outputs of the fake's last scripted request, oldest first.
        call: the model turn that calls a tool by the client's own name, with arguments.
        shell: the client's shell tool and its arguments running `sessions.SHELL_COMMAND`.
        say: the model turn that answers in text (default: the text itself).
        first_output: from the argument of a step function (default: the outputs so far),
            the session's first tool output.
        call_ours: the turn that calls one of our tools by its plain name (default: `call`
            with the client's spelling, `client_tool_name`).
    """

    client: Client
    server: Callable[[Any], AbstractContextManager[RecordingServer]]
    script: Callable[[str, list[Step]], Any]
    run: Callable[[Path, dict[str, str], Path, Fake], subprocess.CompletedProcess[str]]
    outputs: Callable[[Fake], list[Output]]
    call: Callable[[str, dict[str, Any]], Step]
    shell: tuple[str, dict[str, Any]]
    say: Callable[[str], Step] = str
    first_output: Callable[[Any], Output] = operator.itemgetter(0)
    call_ours: Callable[[str, dict[str, Any]], Step] | None = None

    def ours(self, tool: str) -> str:
        return client_tool_name(self.client, tool)

    def fake(self, marker: str, steps: list[Step]) -> AbstractContextManager[RecordingServer]:
        """The fake model API serving these steps for the session whose prompt holds marker."""
        return self.server(self.script(marker, steps))

    def our_call(self, tool: str, arguments: dict[str, Any]) -> Step:
        if self.call_ours is not None:
            return self.call_ours(tool, arguments)
        return self.call(self.ours(tool), arguments)

    def shell_call(self) -> Step:
        return self.call(*self.shell)

    def resume(self) -> Callable[[Any], Step]:
        """The step that calls present again with the id the first present returned."""

        def step(so_far: Any) -> Step:
            decision_id = structured(self.first_output(so_far))["decision_id"]
            return self.our_call(PRESENT_TOOL, {"decision_id": decision_id})

        return step


def from_last_request(read: Callable[[dict[str, Any]], list[Output]]) -> Callable[[Fake], Any]:
    """`Rig.outputs` for a client whose last request holds every tool output so far: `read`
    takes them from a request body."""

    def outputs(fake: Fake) -> list[Output]:
        return read(fake.main_requests[-1]) if fake.main_requests else []

    return outputs


def finished(
    rig: Rig, done: subprocess.CompletedProcess[str], fake: Fake, person: Person | None = None
) -> list[Output]:
    """The tool outputs of the session's last request, oldest first, once it ended cleanly."""
    outputs = rig.outputs(fake)
    check_clean(rig.client, done, fake, outputs, person)
    return outputs


def project(tmp_path: Path) -> Path:
    """An empty project folder for one session."""
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


def offered_session(
    rig: Rig, executable: Path, home: Path, workspace: Path, *, steps: list[Step], marker: str
) -> tuple[Fake, list[Output]]:
    """A session with no app, for what the client offers its model: the fake and the outputs."""
    with short_runtime_dir() as runtime, rig.fake(marker, steps) as fake:
        outputs = finished(rig, rig.run(executable, home_env(home, runtime), workspace, fake), fake)
    return fake, outputs


def check_our_tools_offered(
    rig: Rig,
    offered: Mapping[str, dict[str, Any]],
    schema: Callable[[dict[str, Any]], dict[str, Any]],
) -> None:
    """Every tool of ours in a request's tools (by the client's spelling), present with the
    fields a proposal needs; `schema` reads a tool's JSON schema in the client's format."""
    missing = [rig.ours(name) for name in TOOL_NAMES if rig.ours(name) not in offered]
    assert not missing, f"missing {missing}; offered {sorted(offered)}"
    fields = schema(offered[rig.ours(PRESENT_TOOL)]).get("properties", {})
    assert {"decision_id", "options", "problem"} <= set(fields), sorted(fields)


def unattended(rig: Rig, executable: Path, home: Path, workspace: Path, **env: str) -> list[Output]:
    """A session with no app and nobody at a window: present (it stays pending), then a shell
    command the gate must block; `env` adds to the user's environment."""
    steps = [rig.our_call(PRESENT_TOOL, proposal_dict()), rig.shell_call(), rig.say("Stopped.")]
    with short_runtime_dir() as runtime, rig.fake("DJ-UNATTENDED", steps) as fake:
        done = rig.run(executable, home_env(home, runtime, **env), workspace, fake)
        return finished(rig, done, fake)


def check_present_answered(rig: Rig, executable: Path, desktop: Desktop, workspace: Path) -> Fake:
    """Present, answered by a person at the window, and the answer in the next request; the
    fake, for what a client's test checks besides."""
    steps = [rig.our_call(PRESENT_TOOL, proposal_dict()), rig.say("The human chose; proceeding.")]
    with rig.fake("DJ-PRESENT", steps) as fake, Person(desktop, CHOOSE_FIRST) as person:
        outputs = finished(rig, rig.run(executable, desktop.env, workspace, fake), fake, person)
    assert len(outputs) == 1, outputs
    check_chosen_first(structured(outputs[0]))
    return fake


def check_pending_gates(
    rig: Rig,
    executable: Path,
    desktop: Desktop,
    workspace: Path,
    *,
    edits: Mapping[str, Step],
    reads: Sequence[Step] = (),
) -> list[Output]:
    """Present, closed unanswered; then the shell call and each of `edits` (by tool name),
    which the gate must block; `reads`, which it must let through; our read tool; and two
    resumes by id, which return the person's answer. Returns every output, in that order."""
    steps = [
        rig.our_call(PRESENT_TOOL, proposal_dict()),
        rig.shell_call(),
        *edits.values(),
        *reads,
        rig.our_call(RECENT_TOOL, {}),
        rig.resume(),
        rig.resume(),
        rig.say("Resumed with the human's answer."),
    ]
    with rig.fake("DJ-GATING", steps) as fake, Person(desktop, CLOSE, CHOOSE_FIRST) as person:
        outputs = finished(rig, rig.run(executable, desktop.env, workspace, fake), fake, person)
    read_at = 2 + len(edits)
    gated = outputs[:read_at] + outputs[read_at + len(reads) :]
    check_gated(gated, [rig.shell[0], *edits], rig.ours(PRESENT_TOOL))
    assert not (workspace / SHELL_PROBE).exists()
    return outputs


def check_pinned_journal(
    rig: Rig, executable: Path, home: Path, workspace: Path, pinned: Path
) -> None:
    """A user who pins DECISION_JOURNAL_HOME (`pinned`) in their shell: the client's MCP
    server and its gate must both use that journal; with no app the present stays pending and
    the shell call after it is blocked."""
    outputs = unattended(rig, executable, home, workspace, DECISION_JOURNAL_HOME=str(pinned))
    check_pending_then_blocked(pinned, outputs, workspace)


def check_teammate_on_path(rig: Rig, executable: Path, home: Path, workspace: Path) -> None:
    """A project-scope set-up, used by a teammate who has `decision-journal` on PATH: our
    server and the gate work, with no app running, on the journal of the teammate's home."""
    outputs = unattended(rig, executable, home, workspace, PATH=path_with_installed())
    check_pending_then_blocked(home_journal(home), outputs, workspace)
