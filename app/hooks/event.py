"""The hook's stdin event, read once the same way by the quick path and the full path.

Why `None` for some events: clients send one hook command every event it is registered for
(and users register broadly). Only the client's pre-tool event is answered; for anything else
(PostToolUse, PermissionRequest, Notification, ...) the hook prints nothing and exits 0, since
a PreToolUse answer to another event is at best ignored and at worst misread.
"""

from __future__ import annotations

import json
import os

from app.hooks.clients import ClientHook
from core.bulk.named_tuple import NamedTuple

TYPE_CHECKING = False  # `typing` stays out of the quick path (core.bulk.named_tuple)
if TYPE_CHECKING:
    from typing import Any

STDIN_MAX = 8 * 1024 * 1024
"""The most of stdin a hook reads: a tool event is small, and a runaway input must not be."""


class HookEvent(NamedTuple):
    """The fields of a pre-tool event the hook uses; everything else is ignored.

    `mcp_server` and `mcp_tool` come from Gemini CLI's `mcp_context` (the server as configured
    and the tool's own name); other clients put both in `tool_name`. A light named tuple,
    not a dataclass: importing `dataclasses` (and `inspect`) or `typing` would cost the quick
    path more than its own work.
    """

    session_id: str
    cwd: str
    tool_name: str
    tool_input: dict[str, Any]
    tool_use_id: str = ""
    mcp_server: str = ""
    mcp_tool: str = ""

    @property
    def workspace(self) -> str:
        """CLAUDE_PROJECT_DIR (the project root Claude Code sets for hooks, and Gemini CLI too),
        else the event's cwd, else ours: the same precedence the MCP server uses, so both see
        one project."""
        return os.path.abspath(os.environ.get("CLAUDE_PROJECT_DIR") or self.cwd or os.getcwd())


def parse_event(text: str, hook: ClientHook) -> HookEvent | None:
    """The pre-tool event, or None for an event this hook does not answer.

    An event without `hook_event_name` counts as the pre-tool event (fail closed); GitHub
    Copilot CLI sends none at all.

    Raises:
        ValueError: not a JSON object, or a pre-tool event without a tool name.
    """
    value = json.loads(text)
    if not isinstance(value, dict):
        raise ValueError("hook input is not a JSON object")
    if hook.shape == "copilot":
        return _copilot(value, hook)
    if hook.shape == "cursor":
        return _cursor(value)
    name = value.get("hook_event_name", hook.event)
    if name != hook.event:
        return None
    tool_input = value.get("tool_input")
    context = value.get("mcp_context")
    context = context if isinstance(context, dict) else {}
    return HookEvent(
        session_id=_text(value.get("session_id")),
        cwd=_text(value.get("cwd")),
        tool_name=_tool_name(value.get("tool_name")),
        tool_input=tool_input if isinstance(tool_input, dict) else {},
        tool_use_id=_text(value.get("tool_use_id")),
        mcp_server=_text(context.get("server_name")),
        mcp_tool=_text(context.get("tool_name")),
    )


def _copilot(value: dict[str, Any], hook: ClientHook) -> HookEvent | None:
    """Copilot CLI's `preToolUse` input: `sessionId`, `cwd`, `toolName` and `toolArgs` (an
    object in 1.0.102; a JSON text is read as well), with no event name."""
    name = value.get("hook_event_name", hook.event)
    if name not in (hook.event, "PreToolUse"):
        return None
    args = value.get("toolArgs")
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except ValueError:
            args = {}
    return HookEvent(
        session_id=_text(value.get("sessionId")),
        cwd=_text(value.get("cwd")),
        tool_name=_tool_name(value.get("toolName")),
        tool_input=args if isinstance(args, dict) else {},
    )


CURSOR_SHELL = "Shell"
"""The name a Cursor `beforeShellExecution` event is judged under (its agent's terminal tool)."""


def _cursor(value: dict[str, Any]) -> HookEvent | None:
    """One of Cursor's gated events: a terminal command, an MCP call or a tool call (its
    file edits); every other event (reads, prompts, after-the-fact events) gets no answer. An
    event without a name counts as a tool call (fail closed)."""
    name = value.get("hook_event_name", "preToolUse")
    if name == "beforeShellExecution":
        tool, tool_input = CURSOR_SHELL, {"command": _text(value.get("command"))}
    elif name in ("beforeMCPExecution", "preToolUse"):
        tool, raw = _tool_name(value.get("tool_name")), value.get("tool_input")
        tool_input = raw if isinstance(raw, dict) else {}
    else:
        return None
    roots = value.get("workspace_roots")
    root = roots[0] if isinstance(roots, list) and roots and isinstance(roots[0], str) else ""
    return HookEvent(
        session_id=_text(value.get("conversation_id")),
        cwd=_text(value.get("cwd")) or root,
        tool_name=tool,
        tool_input=tool_input,
        tool_use_id=_text(value.get("tool_use_id")),
    )


def _tool_name(value: object) -> str:
    if not isinstance(value, str) or not value:
        raise ValueError("hook input has no tool name")
    return value


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""
