"""Our MCP server's name, its tools, and how each agent client spells them.

Why one module: the MCP server registers the tools, the hooks must recognise them while a
decision is pending (or an agent can neither read nor resume), and the deny text must name
the exact call the agent makes. Each client qualifies an MCP tool differently, checked in
the installed clients:

- Claude Code: `mcp__<server>__<tool>`, server name as configured
  (`mcp__decision-journal__recent_decisions`).
- Codex: the same shape with every character outside `[A-Za-z0-9_]` turned into `_`
  (`mcp__decision_journal__recent_decisions`); its model's function call carries the
  prefix separately as `namespace: "mcp__decision_journal"` and the bare tool name.
- Gemini CLI: `mcp_<server>_<tool>` (`mcp_decision-journal_recent_decisions`).
- GitHub Copilot CLI: `<server>-<tool>` (`decision-journal-recent_decisions`), in the model's
  tool list and in its `preToolUse` hook's `toolName` alike (seen in Copilot CLI 1.0.102).
- Qwen Code: Claude Code's spelling (`mcp__decision-journal__recent_decisions`), in its model's
  tool list and its PreToolUse hook's `tool_name` (seen in Qwen Code 0.24.4).
- opencode: `<server>_<tool>` (`decision-journal_recent_decisions`), in its model's tool list
  and in its plugins' `tool.execute.before` input (seen in opencode 1.18.33).
- Cursor: its `beforeMCPExecution` hook passes `MCP:<server>:<tool>` (newer releases) or the
  tool's own name (older ones), by third-party descriptions of its hooks; no Cursor client
  could be run here, so both are recognised.

Pure data and string work, so the hook's quick path can import it without loading the
journal's code.
"""

from __future__ import annotations

TYPE_CHECKING = False  # the hook's quick path imports this module; `typing` costs it
if TYPE_CHECKING:
    from typing import Final, Literal

SERVER_NAME: Final = "decision-journal"
"""The name every client's config registers our MCP server under."""

PRESENT_TOOL: Final = "present_implementation_decision"
NOTE_TOOL: Final = "note_decision"
RECENT_TOOL: Final = "recent_decisions"
PREFERENCES_TOOL: Final = "get_preferences"
OUTCOME_TOOL: Final = "report_outcome"
TOOL_NAMES: Final = (PRESENT_TOOL, NOTE_TOOL, RECENT_TOOL, PREFERENCES_TOOL, OUTCOME_TOOL)

RESUME_TOOL: Final = PRESENT_TOOL
"""The tool an agent calls with only `decision_id` to collect a pending decision's answer."""
READ_ONLY_TOOLS: Final = frozenset({RECENT_TOOL, PREFERENCES_TOOL})
"""Our tools that only read the journal."""
ALLOWED_WHILE_PENDING: Final = frozenset(TOOL_NAMES)
"""Every one of our tools runs while a decision is pending: reading and resuming must stay
possible, a note or an outcome touches only the journal, and a second present is refused
by the server itself with the pending decision's id."""

if TYPE_CHECKING:
    Client = Literal["claude-code", "codex", "gemini", "copilot", "cursor", "qwen", "opencode"]
else:
    Client = str
CLIENTS: Final[tuple[Client, ...]] = (
    "claude-code",
    "codex",
    "gemini",
    "copilot",
    "cursor",
    "qwen",
    "opencode",
)


def codex_server_name(server: str = SERVER_NAME) -> str:
    """Codex's spelling of a server name: anything outside `[A-Za-z0-9_]` becomes `_`."""
    return "".join(ch if ch.isascii() and (ch.isalnum() or ch == "_") else "_" for ch in server)


_PREFIXES: Final[dict[Client, str]] = {
    "claude-code": f"mcp__{SERVER_NAME}__",
    "codex": f"mcp__{codex_server_name()}__",
    "gemini": f"mcp_{SERVER_NAME}_",
    "copilot": f"{SERVER_NAME}-",
    "cursor": "",
    "qwen": f"mcp__{SERVER_NAME}__",
    "opencode": f"{SERVER_NAME}_",
}
_HOOK_ONLY_PREFIXES: Final = (f"MCP:{SERVER_NAME}:",)
"""Spellings seen only in hook events, never offered to a model (Cursor's)."""
CODEX_NAMESPACE: Final = f"mcp__{codex_server_name()}"
"""The `namespace` Codex sends beside the bare tool name in the model's function call."""


def client_tool_name(client: Client, tool: str) -> str:
    """`tool` as `client` names it to the model and to its hooks."""
    return _PREFIXES[client] + tool


def own_tool(tool_name: str, namespace: str = "") -> str | None:
    """Our bare tool name if `tool_name` is one of our tools as any client spells it.

    Args:
        tool_name: the name a hook event or a function call carries.
        namespace: Codex's separate `namespace` field, when the caller has one; with it,
            `tool_name` is the bare name.

    Returns:
        The bare tool name (`recent_decisions`), or None for any other tool. A bare name
        without a namespace counts only when no client prefix could apply, i.e. exactly one
        of our names (Cursor's hooks pass those).
    """
    if namespace:
        if namespace.rstrip("_") != CODEX_NAMESPACE:
            return None
        return tool_name if tool_name in TOOL_NAMES else None
    for prefix in dict.fromkeys((*_PREFIXES.values(), *_HOOK_ONLY_PREFIXES)):
        if tool_name.startswith(prefix) and tool_name[len(prefix) :] in TOOL_NAMES:
            return tool_name[len(prefix) :]
    return None


def allowed_while_pending(tool_name: str, namespace: str = "") -> bool:
    """One of our tools, which stay usable while a decision is pending."""
    bare = own_tool(tool_name, namespace)
    return bare is not None and bare in ALLOWED_WHILE_PENDING


def resume_call(client: Client, decision_id: str = "") -> str:
    """The exact call that resumes a pending decision, as `client` spells the tool.

    With a `decision_id` the call carries it as its only argument; without, it names the
    tool and says which argument to pass.
    """
    name = client_tool_name(client, RESUME_TOOL)
    if client == "cursor":
        name = f"{RESUME_TOOL} (MCP server {SERVER_NAME})"
    if decision_id:
        return f'{name} with only {{"decision_id": "{decision_id}"}}'
    return f'{name} with only {{"decision_id": "<id>"}}'
