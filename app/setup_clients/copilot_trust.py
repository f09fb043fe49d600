"""Whether GitHub Copilot CLI trusts a project folder: without that it loads neither the
project's `.github/mcp.json` nor its `.github/hooks/`.

Copilot CLI 1.0.102 keeps the folders the user trusted in `$COPILOT_HOME/config.json` (default
`~/.copilot`), a file it manages itself and writes with `//` comment lines, under
`trustedFolders` (older releases: `trusted_folders`); a trusted folder covers every folder
inside it (both checked with the real client). `COPILOT_ALLOW_ALL=true` (exactly "true")
trusts the working directory too. User-scope files under `~/.copilot` need no trust.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

TRUST_KEYS = ("trustedFolders", "trusted_folders")


def _config(path: Path) -> dict[str, object]:
    """The object in Copilot's `config.json` (its `//` comment lines left out); {} when the
    file is missing or unreadable."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
        value = json.loads("\n".join(line for line in lines if not line.lstrip().startswith("//")))
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def trusted(folder: Path, config: Path) -> bool:
    """A folder Copilot CLI trusts: it, or a folder around it, is in `config`'s list."""
    data = _config(config)
    real = os.path.realpath(folder)
    for key in TRUST_KEYS:
        entries = data.get(key)
        for entry in entries if isinstance(entries, list) else []:
            if isinstance(entry, str) and entry:
                base = os.path.realpath(entry)
                if real == base or real.startswith(base.rstrip(os.sep) + os.sep):
                    return True
    return False


def folder_problem(folder: Path, config_dir: Path, env: Mapping[str, str]) -> str:
    """Why Copilot CLI would not load our project files in `folder`, or "" when it would."""
    if env.get("COPILOT_ALLOW_ALL") == "true":
        return ""
    config = config_dir / "config.json"
    if trusted(folder, config):
        return ""
    return (
        f"Copilot CLI will neither start our server nor run our hook from {folder}/.github: "
        f"{config} does not list the folder as trusted. Start `copilot` there and choose to "
        "trust it (or pass --trust-folder for one prompt)"
    )
