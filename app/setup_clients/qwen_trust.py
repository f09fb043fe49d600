"""Whether Qwen Code starts MCP servers in a folder: with folder trust on, only in one it trusts.

Qwen Code 0.24.4 (its bundled sources): folder trust is off unless the user settings say
`security.folderTrust.enabled: true`; then in a folder with no rule, or one marked
`DO_NOT_TRUST`, Qwen discovers no MCP server at all (those in the user settings included) and
ignores the project's `.qwen/settings.json`; hooks from the user settings still run. Rules
live in `$QWEN_HOME/trustedFolders.json` (or `QWEN_CODE_TRUSTED_FOLDERS_PATH`) as
`{"<folder>": "TRUST_FOLDER" | "TRUST_PARENT" | "DO_NOT_TRUST"}`; the rule for the deepest
folder covering the project wins (`TRUST_PARENT` stands for the folder's parent),
`DO_NOT_TRUST` on a tie.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

TRUSTED = ("TRUST_FOLDER", "TRUST_PARENT")
LEVELS = (*TRUSTED, "DO_NOT_TRUST")


def _read_object(path: Path) -> dict[str, Any]:
    """The JSON object in `path`; empty when missing or unreadable (Qwen treats it alike)."""
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def folder_trust_enabled(qwen_dir: Path) -> bool:
    security = _read_object(qwen_dir / "settings.json").get("security")
    folder_trust = security.get("folderTrust") if isinstance(security, dict) else None
    return isinstance(folder_trust, dict) and folder_trust.get("enabled") is True


def trusted_folders_file(qwen_dir: Path, env: Mapping[str, str]) -> Path:
    explicit = env.get("QWEN_CODE_TRUSTED_FOLDERS_PATH")
    return Path(explicit) if explicit else qwen_dir / "trustedFolders.json"


def rule_for(folder: Path, rules: Mapping[str, Any]) -> str | None:
    """The level of the rule Qwen Code applies to `folder`, or None when none covers it."""
    real = os.path.realpath(folder)
    best: tuple[int, bool, str] | None = None
    for rule, level in rules.items():
        if level not in LEVELS:
            continue
        base = os.path.realpath(os.path.dirname(rule) if level == "TRUST_PARENT" else rule)
        if not (real == base or real.startswith(base.rstrip(os.sep) + os.sep)):
            continue
        rank = (len(Path(base).parts), level == "DO_NOT_TRUST", level)
        best = rank if best is None or rank[:2] > best[:2] else best
    return best[2] if best else None


def folder_problem(folder: Path, qwen_dir: Path, env: Mapping[str, str]) -> str:
    """Why Qwen Code would start no MCP server in `folder`, in words, or "" when it would."""
    if not folder_trust_enabled(qwen_dir):
        return ""
    path = trusted_folders_file(qwen_dir, env)
    level = rule_for(folder, _read_object(path))
    if level in TRUSTED:
        return ""
    state = "marks it as not trusted" if level == "DO_NOT_TRUST" else "does not trust it"
    return (
        f"Qwen Code has folder trust on and will start no MCP server in {folder}, ours "
        f"included, nor read its .qwen/settings.json: {path} {state}. Start `qwen` there and "
        "trust the folder"
    )
