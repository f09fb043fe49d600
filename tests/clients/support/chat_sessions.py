"""The `scenarios.Rig` of a client that talks to `fake_chat.FakeChat` (Qwen Code, opencode),
and the gating scenario both run with a file read among the calls.

Why here: the two clients differ in how they are started and which shell tool they have; their
model's turns, how a finished session's tool results are read back, and what a read while a
decision is pending must show are the same.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from core.agents.tools import Client
from tests.clients.support.fake_chat import FakeChat, FunctionCall, Script, tool_results
from tests.clients.support.scenarios import Rig, check_pending_gates, from_last_request, project
from tests.integration.agent_support import Desktop

ChatRun = Callable[[Path, dict[str, str], Path, FakeChat], subprocess.CompletedProcess[str]]


def chat_rig(client: Client, run: ChatRun, shell: tuple[str, dict[str, Any]]) -> Rig:
    return Rig(
        client=client,
        server=FakeChat,
        script=Script,
        run=run,
        outputs=from_last_request(lambda body: tool_results(body["messages"])),
        call=FunctionCall,
        shell=shell,
    )


def check_gating_with_a_read(
    rig: Rig,
    executable: Path,
    desktop: Desktop,
    tmp_path: Path,
    *,
    write: tuple[str, Callable[[Path], dict[str, Any]]],
    read: tuple[str, Callable[[Path], dict[str, Any]]],
) -> None:
    """`scenarios.check_pending_gates` with the client's write tool among the blocked calls and
    its read tool, reading a note in the project, among those let through: (tool, the
    arguments for a path) each."""
    workspace = project(tmp_path)
    notes = workspace / "notes.txt"
    notes.write_text("read while pending\n", encoding="utf-8")
    written = workspace / "written.txt"
    edits = {write[0]: FunctionCall(write[0], write[1](written))}
    reads = [FunctionCall(read[0], read[1](notes))]
    outputs = check_pending_gates(rig, executable, desktop, workspace, edits=edits, reads=reads)
    assert "read while pending" in outputs[3].text, outputs[3].text
    assert not written.exists()
