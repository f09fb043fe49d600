"""VS Code (Copilot agent mode): `servers` with `type: stdio` in `.vscode/mcp.json`, or in the
user profile's `mcp.json` for user scope. VS Code allows comments in this file; a file with
comments is refused (see --print) rather than rewritten without them."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from app.setup_clients.context import SERVER_NAME, SetupContext, json_snippet
from app.setup_clients.files import FileEdit
from app.setup_clients.json_merge import json_transform, set_entry

NOTES = ("VS Code has no hook to block edits while a decision is pending.",)


def user_config_dir(home: Path) -> Path:
    """The default profile's folder: the same places VS Code itself uses."""
    if sys.platform == "darwin":
        return home / "Library" / "Application Support" / "Code" / "User"
    if sys.platform == "win32":
        return Path(os.environ.get("APPDATA", home / "AppData" / "Roaming")) / "Code" / "User"
    xdg = os.environ.get("XDG_CONFIG_HOME", "")
    return (Path(xdg) if os.path.isabs(xdg) else home / ".config") / "Code" / "User"


def edits(ctx: SetupContext) -> list[FileEdit]:
    if ctx.scope == "user":
        path = user_config_dir(ctx.home) / "mcp.json"
    else:
        path = ctx.project_dir / ".vscode" / "mcp.json"
    server = {"type": "stdio", **ctx.server_entry()}
    return [
        FileEdit(
            path,
            json_snippet({"servers": {SERVER_NAME: server}}),
            json_transform(str(path), set_entry(("servers", SERVER_NAME), server, str(path))),
        )
    ]
