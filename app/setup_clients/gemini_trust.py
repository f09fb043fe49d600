"""Whether Gemini CLI trusts a folder: without that it starts no MCP server and runs no hook.

Gemini CLI 0.61 (folder trust on by default) shows every MCP server as "Disabled" and runs no
hook in a folder it does not trust, those in `~/.gemini/settings.json` included. Trust
is recorded in `~/.gemini/trustedFolders.json` (or `GEMINI_CLI_TRUSTED_FOLDERS_PATH`) as
`{"<folder>": "TRUST_FOLDER" | "TRUST_PARENT" | "DO_NOT_TRUST"}`; the longest matching rule
wins, and `TRUST_PARENT` trusts the folder's parent. `GEMINI_CLI_TRUST_WORKSPACE=true|false`
overrides the file, and `security.folderTrust.enabled = false` turns the check off.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

TRUSTED = ("TRUST_FOLDER", "TRUST_PARENT")
HOW_TO_TRUST = (
    "Gemini CLI starts MCP servers and runs hooks (also those in ~/.gemini/settings.json) only "
    "in a folder you trust: start `gemini` in the project and choose to trust it (or use "
    "/permissions; `gemini --skip-trust` trusts it for one session). Gemini keeps the choice in "
    "~/.gemini/trustedFolders.json."
)


def trusted_folders_file(home: Path, env: Mapping[str, str]) -> Path:
    explicit = env.get("GEMINI_CLI_TRUSTED_FOLDERS_PATH")
    return Path(explicit) if explicit else home / ".gemini" / "trustedFolders.json"


def _read_object(path: Path) -> dict[str, Any] | None:
    """The JSON object in `path`; None when missing or unreadable (the caller says which)."""
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def _is_within(folder: str, base: str) -> bool:
    return folder == base or folder.startswith(base.rstrip(os.sep) + os.sep)


def rule_for(folder: Path, rules: Mapping[str, Any]) -> str | None:
    """The trust level of the longest rule covering `folder`, as Gemini CLI picks it."""
    real = os.path.realpath(folder)
    covering = [
        (len(rule), level)
        for rule, level in rules.items()
        if isinstance(level, str)
        and _is_within(
            real, os.path.realpath(os.path.dirname(rule) if level == "TRUST_PARENT" else rule)
        )
    ]
    return max(covering)[1] if covering else None


def folder_trust_enabled(home: Path) -> bool:
    settings = _read_object(home / ".gemini" / "settings.json") or {}
    security = settings.get("security")
    folder_trust = security.get("folderTrust") if isinstance(security, dict) else None
    return not (isinstance(folder_trust, dict) and folder_trust.get("enabled") is False)


def folder_problem(folder: Path, home: Path, env: Mapping[str, str]) -> str:
    """Why Gemini CLI would not run our hook in `folder`, in words, or "" when it would."""
    override = env.get("GEMINI_CLI_TRUST_WORKSPACE")
    if env.get("GEMINI_RESTRICTED_MODE") == "true" or override == "false":
        return f"Gemini CLI is told not to trust {folder} (GEMINI_CLI_TRUST_WORKSPACE/restricted)"
    if override == "true" or not folder_trust_enabled(home):
        return ""
    path = trusted_folders_file(home, env)
    level = rule_for(folder, _read_object(path) or {})
    if level in TRUSTED:
        return ""
    state = "marks it as not trusted" if level == "DO_NOT_TRUST" else "does not trust it"
    return (
        f"Gemini CLI will neither start our server nor run our hook in {folder}: {path} "
        f"{state}. Start `gemini` there and choose to trust the folder (or /permissions)"
    )
