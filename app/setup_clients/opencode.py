"""opencode: the MCP server in `opencode.json` and our gating plugin in its plugin folder.

User scope: `~/.config/opencode/` (`$XDG_CONFIG_HOME/opencode` when set), project scope: the
project's `opencode.json` and `.opencode/`. An existing `opencode.jsonc` is edited instead of
adding an `opencode.json` beside it (opencode merges both; a file with comments is refused, as
every JSON config we touch). The server is `mcp.decision-journal`, opencode's local shape:
`type: "local"`, `command` as one array, `environment`, `enabled`, and a `timeout` in ms that
opencode applies to every request to the server, tool calls included (progress keeps a long
wait alive): raised to an hour for a slow human, a larger one the user set stays.

opencode has no command hook. Its gate is a plugin: every `*.js` in `plugin/` is loaded at
start, and a `tool.execute.before` that throws keeps the tool from running. Ours ships as
resources/opencode/decision-journal.js; `setup` writes it with this machine's command for
`decision-journal hook opencode` on its `const HOOK = …;` line and rewrites it (after a backup)
whenever that differs.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

import resources
from app.setup_clients.context import SERVER_NAME, TOOL_TIMEOUT_SECONDS, SetupContext, json_snippet
from app.setup_clients.files import FileEdit, SetupError, Transform
from app.setup_clients.json_merge import json_transform, set_entry

CLIENT = "opencode"
PLUGIN = resources.RESOURCES_DIR / "opencode" / "decision-journal.js"
PLUGIN_FILE = f"{SERVER_NAME}.js"
HOOK_LINE = "const HOOK = "
"""The start of the one template line `setup` fills in."""
NOTES = ("opencode loads plugins and MCP servers when it starts: restart any running opencode.",)


def plugins_off(env: Mapping[str, str]) -> str:
    """Why opencode would load no plugin in this environment, in words, or "" when it would
    (`opencode --pure` does the same for one run, which no file shows)."""
    if env.get("OPENCODE_PURE", "").strip().lower() in ("1", "true"):
        return (
            "OPENCODE_PURE is set, so opencode loads no plugin, ours included, and nothing "
            "holds its edits while a decision is pending: unset it"
        )
    return ""


def config_dir(ctx: SetupContext) -> Path:
    """Where opencode reads its global config (`$XDG_CONFIG_HOME/opencode`, default
    `~/.config/opencode`), or the project's `.opencode` folder."""
    if ctx.scope == "project":
        return ctx.project_dir / ".opencode"
    xdg = os.environ.get("XDG_CONFIG_HOME", "")
    return (Path(xdg) if os.path.isabs(xdg) else ctx.home / ".config") / "opencode"


def config_file(ctx: SetupContext) -> Path:
    """`opencode.json` in the config folder (the project's root for project scope), or the
    `opencode.jsonc` there when only that one exists."""
    folder = ctx.project_dir if ctx.scope == "project" else config_dir(ctx)
    plain, commented = folder / "opencode.json", folder / "opencode.jsonc"
    return commented if commented.exists() and not plain.exists() else plain


def plugin_text(ctx: SetupContext) -> str:
    """The shipped plugin with this machine's hook command on its `HOOK` line.

    Raises:
        SetupError: the shipped plugin lacks its one `HOOK` line (a broken install).
    """
    template = PLUGIN.read_text(encoding="utf-8")
    lines = template.splitlines(keepends=True)
    found = [i for i, line in enumerate(lines) if line.startswith(HOOK_LINE)]
    if len(found) != 1:
        raise SetupError(f"{PLUGIN} has no single `{HOOK_LINE}…` line; reinstall Decision Journal")
    launcher = ctx.launcher
    hook = {
        "program": launcher.program,
        "args": launcher.argv(ctx.journal, "hook", CLIENT),
        "env": dict(launcher.env),
    }
    lines[found[0]] = f"{HOOK_LINE}{json.dumps(hook, ensure_ascii=False)};\n"
    return "".join(lines)


def whole_file(text: str) -> Transform:
    """A file that is ours alone: written as `text`, whatever it held before."""

    def transform(old: str | None) -> tuple[str, list[str]]:
        if old == text:
            return text, []
        return text, ["added the plugin" if old is None else "updated the plugin"]

    return transform


def edits(ctx: SetupContext) -> list[FileEdit]:
    config = config_file(ctx)
    plugin = config_dir(ctx) / "plugin" / PLUGIN_FILE
    server = ctx.server_entry()
    entry: dict[str, object] = {"type": "local", "command": [server["command"], *server["args"]]}
    if "env" in server:
        entry["environment"] = server["env"]
    entry |= {"enabled": True, "timeout": TOOL_TIMEOUT_SECONDS * 1000}
    text = plugin_text(ctx)
    return [
        FileEdit(
            config,
            json_snippet({"mcp": {SERVER_NAME: entry}}),
            json_transform(
                str(config), set_entry(("mcp", SERVER_NAME), entry, str(config), ("timeout",))
            ),
        ),
        FileEdit(plugin, text.rstrip("\n"), whole_file(text)),
    ]
