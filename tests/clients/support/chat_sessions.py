"""What the clients that talk to `fake_chat.FakeChat` (Qwen Code, opencode) share: a fresh
project folder, the tool results of a session that ended cleanly, and the unattended script.

Why here: the two clients differ in how they are started and how they name their tools; how
a finished session is read back and what an unattended session asks are the same.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from core.agents.tools import PRESENT_TOOL, Client, client_tool_name
from tests.clients.support.agent_desktop import Person
from tests.clients.support.fake_chat import FakeChat, FunctionCall, Script, ToolResult, tool_results
from tests.clients.support.sessions import check_clean
from tests.factories import proposal_dict


def project(tmp_path: Path) -> Path:
    """An empty project folder for one session."""
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


def finished(
    client: Client,
    done: subprocess.CompletedProcess[str],
    fake: FakeChat,
    person: Person | None = None,
) -> list[ToolResult]:
    """The tool results of the session's last request, oldest first, once it ended cleanly."""
    results = tool_results(fake.main_requests[-1]["messages"]) if fake.main_requests else []
    check_clean(client, done, fake, results, person)
    return results


def unattended_script(client: Client, shell: FunctionCall) -> Script:
    """Present (with no app it stays pending), then `shell`, which the gate must block."""
    present = FunctionCall(client_tool_name(client, PRESENT_TOOL), proposal_dict())
    return Script("DJ-UNATTENDED", [present, shell, "Stopped."])
