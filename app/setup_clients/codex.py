"""OpenAI Codex: `[mcp_servers.decision-journal]` in config.toml and the PreToolUse hook.

Codex's default tool timeout is 60 s, far too short for a human, so `tool_timeout_sec` is
raised to an hour (a larger value the user set stays). `required = true` makes Codex wait for
our server before the first model request: current models get MCP tools through Codex's tool
search, which lists only the servers that had started by then, so a server that took a second
longer was simply missing from the session (seen with Codex 0.171.0). The price: Codex does not
start while our server cannot, which `decision-journal setup codex --check` and the runbook
explain. The hook goes to `hooks.json` beside
config.toml (JSON keeps the merge simple). Codex runs it only once the user trusts it; see
`codex_trust` for how that is checked and granted.
"""

from __future__ import annotations

import os
from pathlib import Path

from app.setup_clients.codex_trust import HOOK_MARKER, HOW_TO_TRUST
from app.setup_clients.context import SERVER_NAME, TOOL_TIMEOUT_SECONDS, SetupContext, json_snippet
from app.setup_clients.files import FileEdit
from app.setup_clients.json_merge import ensure_hook, json_transform
from app.setup_clients.toml_table import render_table, upsert_table

CLIENT = "codex"
HOOK_TIMEOUT_SECONDS = 60
STARTUP_TIMEOUT_SECONDS = 30
MATCHER = ".*"
TIMEOUT_KEYS = ("startup_timeout_sec", "tool_timeout_sec")
PASSED_ENV = (
    "DISPLAY",
    "WAYLAND_DISPLAY",
    "XAUTHORITY",
    "XDG_RUNTIME_DIR",
    "XDG_DATA_HOME",
    "DBUS_SESSION_BUS_ADDRESS",
    "DECISION_JOURNAL_HOME",
)
"""Variables Codex must pass to our server (`env_vars`). Codex starts MCP servers with a few
variables only (HOME, PATH, SHELL, USER, LANG, TERM): without these the server looks for the
app's socket and the journal somewhere else than the app and the hook, and cannot start the
app on the user's display. A user's own `env_vars` entries stay."""
NOTES: tuple[str, ...] = ()
TRUST_NOTE = HOW_TO_TRUST
"""Printed unless Codex itself just confirmed it runs the hook (`--write --trust-hook`)."""
PROJECT_NOTES = (
    "Project scope (.codex/config.toml, .codex/hooks.json) is read only in folders you trusted "
    "in Codex.",
)


def config_dir(ctx: SetupContext) -> Path:
    """`$CODEX_HOME` (default `~/.codex`) for user scope, where Codex itself reads it."""
    if ctx.scope == "project":
        return ctx.project_dir / ".codex"
    codex_home = os.environ.get("CODEX_HOME")
    return Path(codex_home) if codex_home and os.path.isabs(codex_home) else ctx.home / ".codex"


def hooks_file(ctx: SetupContext) -> Path:
    return config_dir(ctx) / "hooks.json"


def edits(ctx: SetupContext) -> list[FileEdit]:
    config = config_dir(ctx) / "config.toml"
    hooks = hooks_file(ctx)
    server = ctx.server_entry(
        startup_timeout_sec=STARTUP_TIMEOUT_SECONDS,
        tool_timeout_sec=TOOL_TIMEOUT_SECONDS,
        env_vars=list(PASSED_ENV),
        required=True,
    )
    table = ("mcp_servers", SERVER_NAME)
    handler = {
        "type": "command",
        "command": ctx.hook_command(CLIENT),
        "timeout": HOOK_TIMEOUT_SECONDS,
    }
    return [
        FileEdit(
            config,
            render_table(table, server).rstrip("\n"),
            upsert_table(table, server, str(config), TIMEOUT_KEYS),
        ),
        FileEdit(
            hooks,
            json_snippet({"hooks": {"PreToolUse": [{"matcher": MATCHER, "hooks": [handler]}]}}),
            json_transform(
                str(hooks), ensure_hook("PreToolUse", MATCHER, handler, HOOK_MARKER, str(hooks))
            ),
        ),
    ]
