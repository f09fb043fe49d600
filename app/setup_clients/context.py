"""What every client module needs to know: scope, where home and the project are, and how to
launch us. Tests point `home` at a temporary directory; nothing reads the real home then."""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from app.setup_clients.command import Launcher
from core.agents.tools import SERVER_NAME

Scope = Literal["user", "project"]
TOOL_TIMEOUT_SECONDS = 3600
"""One hour for a human to answer; progress keeps idle timers alive meanwhile."""
HOOK_TIMEOUT_SECONDS = 3600
"""The Claude Code hook waits for AskUserQuestion answers in the window."""


@dataclass(frozen=True, slots=True)
class SetupContext:
    scope: Scope
    home: Path
    project_dir: Path
    launcher: Launcher
    journal: str | None = None

    def server_entry(self, **extra: Any) -> dict[str, Any]:
        """The stdio server entry most clients share: command, args, env when needed."""
        entry: dict[str, Any] = {
            "command": self.launcher.program,
            "args": self.launcher.argv(self.journal, "mcp"),
        }
        if self.launcher.env:
            entry["env"] = dict(self.launcher.env)
        entry.update(extra)
        return entry

    def hook_command(self, client: str) -> str:
        return self.launcher.shell(self.journal, "hook", client)

    def setup_call(self, words: str) -> str:
        """`decision-journal setup WORDS` as this run must repeat it: with its pinned
        `--journal` and its project scope, so following a printed hint never rewrites the
        entries for another journal or scope."""
        pinned = ["--journal", self.journal] if self.journal else []
        scope = (
            ["--scope", "project", "--project-dir", str(self.project_dir)]
            if self.scope == "project"
            else []
        )
        return shlex.join(["decision-journal", *pinned, "setup", *shlex.split(words), *scope])

    def own_calls(self, text: str) -> str:
        """`text` with every quoted `decision-journal setup …` call made this run's own."""
        return _SETUP_CALL.sub(lambda found: f"`{self.setup_call(found[1])}`", text)


_SETUP_CALL = re.compile(r"`decision-journal setup ([^`]*)`")


def json_snippet(value: dict[str, Any]) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


__all__ = ["SERVER_NAME", "Scope", "SetupContext", "json_snippet"]
