"""What each client's tool hook receives and answers: its event, read-only tools, deny shape.

Why per client: each client names its built-in tools and its pre-tool event differently, and
reads a different answer. The names below were checked in the installed clients: the tool
lists each sends its model (Claude Code 2.1.332, Codex 0.171.0, Gemini CLI 0.61.0, GitHub
Copilot CLI 1.0.102, Qwen Code 0.24.4, opencode 1.18.33, against a local stand-in for the model
API), Claude Code's binary, Codex's hook schemas, Gemini's and Qwen's bundled sources, and real
sessions of all six ran this hook while a decision was pending. Cursor's come from its hooks
documentation. A tool not listed as read-only is blocked while a decision is pending: unknown
tools fail closed. Our own MCP tools are recognised under every client's spelling by
`core.agents.tools`.

Light on purpose: the hook's quick path imports this before deciding to load anything else.
"""

from __future__ import annotations

from core.agents.tools import SERVER_NAME, TOOL_NAMES, allowed_while_pending, resume_call
from core.bulk.named_tuple import NamedTuple

TYPE_CHECKING = False  # `typing` stays out of the quick path (core.bulk.named_tuple)
if TYPE_CHECKING:
    from typing import Any

    from core.agents.tools import Client


class ClientHook(NamedTuple):
    """One client's tool hook (a named tuple: `dataclasses` and `typing` cost the quick path
    too much).

    Args:
        client: the client, as `core.agents.tools` names it.
        event: the `hook_event_name` of the event before a tool runs; other events get no
            answer.
        read_only: built-in tools that only read, allowed while a decision is pending.
        named: the read-only tools the deny text suggests (ones every session of that client
            lists, so the agent is never pointed at a tool it does not have).
        blocked_note: what the deny text says about the client's editing tools.
        answers_questions: the hook may answer the client's question tool through the app.
        shape: the event and answer format: "claude" (Claude Code's, which Codex and Qwen Code
            read too), "gemini", "copilot" (`toolName`/`toolArgs` in, `permissionDecision`
            out), "cursor" (one event per kind of action, `permission` out) or "opencode"
            (our plugin's: Claude's fields in, Gemini's answer out); see `app.hooks.event`.
    """

    client: Client
    event: str
    read_only: frozenset[str]
    named: tuple[str, ...]
    blocked_note: str = ""
    answers_questions: bool = False
    shape: str = "claude"

    def allows_while_pending(
        self, tool_name: str, mcp_server: str = "", mcp_tool: str = ""
    ) -> bool:
        """Read-only built-ins and our own tools run whatever is pending."""
        if tool_name in self.read_only or allowed_while_pending(tool_name):
            return True
        return bool(mcp_server) and _ours(mcp_server, mcp_tool)

    def deny_output(self, reason: str) -> dict[str, Any]:
        """The client's documented "do not run this tool" answer, and nothing else."""
        if self.shape in ("gemini", "opencode"):
            return {"decision": "deny", "reason": reason}
        if self.shape == "copilot":
            return {"permissionDecision": "deny", "permissionDecisionReason": reason}
        if self.shape == "cursor":
            return {
                "permission": "deny",
                "user_message": CURSOR_USER_MESSAGE,
                "agent_message": reason,
            }
        return {
            "hookSpecificOutput": {
                "hookEventName": self.event,
                "permissionDecision": "deny",
                "permissionDecisionReason": reason,
            }
        }

    def resume(self, decision_id: str) -> str:
        return resume_call(self.client, decision_id)


def _ours(server: str, tool: str) -> bool:
    """Gemini's `mcp_context`: the server as configured and the tool's own name."""
    return server == SERVER_NAME and tool in TOOL_NAMES


CLAUDE_CODE = ClientHook(
    client="claude-code",
    event="PreToolUse",
    read_only=frozenset(
        {
            "Read",
            "Glob",
            "Grep",
            "ToolSearch",
            "ListAgents",
            "WebFetch",
            "WebSearch",
            "ListMcpResourcesTool",
            "ReadMcpResourceTool",
            "ReadMcpResourceDirTool",
            "TaskList",
            "TaskOutput",
            "TaskGet",
            "CronList",
        }
    ),
    named=("Read", "WebFetch", "WebSearch"),
    answers_questions=True,
)
"""Glob and Grep exist only in builds without the embedded search tools, and ToolSearch only
where tools are deferred (Claude Code 2.1.197 against another API endpoint lists none), so
they are allowed but not suggested."""

CODEX = ClientHook(
    client="codex",
    event="PreToolUse",
    read_only=frozenset(
        {
            "view_image",
            "list_mcp_resources",
            "list_mcp_resource_templates",
            "read_mcp_resource",
            "get_goal",
        }
    ),
    named=("view_image", "read_mcp_resource"),
    blocked_note="Shell commands (Bash) and apply_patch stay blocked, reading ones included.",
)
"""Codex runs this hook for Bash, apply_patch and MCP tools; the read-only names cover the
built-ins it may add, so none of them is blocked for nothing."""

CURSOR_USER_MESSAGE = (
    "Blocked: a decision is pending in Decision Journal (answer it in its window)."
)
"""What Cursor shows the human beside a denied action; the agent reads the full reason."""

GEMINI = ClientHook(
    client="gemini",
    shape="gemini",
    event="BeforeTool",
    read_only=frozenset(
        {
            "read_file",
            "read_many_files",
            "glob",
            "grep_search",
            "search_file_content",
            "list_directory",
            "google_web_search",
            "web_fetch",
            "get_internal_docs",
            "list_mcp_resources",
            "read_mcp_resource",
            "tracker_get_task",
            "tracker_list_tasks",
            "list_background_processes",
            "read_background_output",
        }
    ),
    named=("read_file", "glob", "grep_search", "list_directory", "web_fetch", "google_web_search"),
)
"""`search_file_content` is the older name Gemini CLI still maps to `grep_search`;
`read_many_files` serves only its `@file` prompts in 0.61.0 and is never offered to the
model, so it is allowed but not suggested."""

COPILOT = ClientHook(
    client="copilot",
    shape="copilot",
    event="preToolUse",
    read_only=frozenset(
        {
            "view",
            "grep",
            "glob",
            "read_bash",
            "list_bash",
            "read_agent",
            "list_agents",
            "web_fetch",
            "fetch_copilot_cli_documentation",
        }
    ),
    named=("view", "grep", "glob"),
    blocked_note="Shell commands (bash) stay blocked, reading ones included.",
)
"""GitHub Copilot CLI 1.0.102 offers its model bash, read_bash, stop_bash, list_bash, view,
create, edit, grep, glob, sql, skill, task, read_agent, list_agents, write_agent and
fetch_copilot_cli_documentation (web_fetch too when it is online); its `preToolUse` hook gets
every one of them, and ours as `decision-journal-<tool>`. `sql`, `skill` and `task` (a
sub-agent) are not known to only read, so they wait like edits."""

CURSOR = ClientHook(
    client="cursor",
    shape="cursor",
    event="preToolUse",
    read_only=frozenset({"Read", "Grep", "Glob", "LS", "SemanticSearch", "WebSearch", "WebFetch"}),
    named=("Read",),
    blocked_note="Terminal commands stay blocked, reading ones included.",
)
"""Cursor's hooks (its documented contract; no Cursor client runs here): `beforeShellExecution`
for terminal commands, `beforeMCPExecution` for MCP tools, and `preToolUse` for its file-edit
tools. File reads are never hooked: they run whatever is pending."""

QWEN = ClientHook(
    client="qwen",
    event="PreToolUse",
    read_only=frozenset(
        {
            "read_file",
            "grep_search",
            "glob",
            "list_directory",
            "web_fetch",
            "web_search",
            "tool_search",
            "read_mcp_resource",
            "zoom_image",
            "list_agents",
            "task_list",
            "cron_list",
            "get_goal",
        }
    ),
    named=("read_file", "grep_search", "glob"),
    blocked_note="Shell commands (run_shell_command) stay blocked, reading ones included.",
)
"""Qwen Code 0.24.4 offers its model agent, edit, get_goal, glob, grep_search, list_agents,
notebook_edit, read_file, run_shell_command, skill, tool_call, tool_search, update_goal and
write_file, and reaches the rest (list_directory, web_fetch, ...) through tool_search; its
PreToolUse hook gets every tool by that name, ours as Claude Code spells them, and reads
Claude Code's answer. `tool_call` runs a deferred tool (hooks see the tool it runs), `skill`
and `agent` are not known to only read, so they wait like edits."""

OPENCODE = ClientHook(
    client="opencode",
    shape="opencode",
    event="tool.execute.before",
    read_only=frozenset(
        {
            "read",
            "glob",
            "grep",
            "list",
            "webfetch",
            "websearch",
            "codesearch",
            "todoread",
            "list_mcp_resources",
            "list_mcp_resource_templates",
            "read_mcp_resource",
        }
    ),
    named=("read", "glob", "grep", "webfetch"),
    blocked_note="Shell commands (bash) stay blocked, reading ones included.",
)
"""opencode has no command hook: our plugin (resources/opencode/decision-journal.js, installed
by `setup opencode`) sends each `tool.execute.before` as this event and throws when we deny.
opencode 1.18.33 offers its model bash, edit, glob, grep, read, skill, task, todowrite,
webfetch, write and the MCP resource tools, ours as `decision-journal_<tool>`."""

HOOKS: dict[str, ClientHook] = {
    hook.client: hook for hook in (CLAUDE_CODE, CODEX, GEMINI, COPILOT, CURSOR, QWEN, OPENCODE)
}
"""`decision-journal hook <client>` for each client with a tool hook."""
