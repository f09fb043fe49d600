"""Which project a source file belongs to, and its path inside that project.

Why: a stable source key must not depend on where the checkout happens to be opened from, and
records from a repository's ADR folder belong to that repository's project, so keys use the
path relative to the repository root (the nearest directory with `.git`).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from core.record.identity import ProjectIdentity, project_identity


def repo_root(path: Path) -> Path:
    """The nearest ancestor holding `.git`, else the file's own directory."""
    start = Path(os.path.abspath(path))
    base = start if start.is_dir() else start.parent
    for candidate in (base, *base.parents):
        if (candidate / ".git").exists():
            return candidate
    return base


def locate(path: Path) -> tuple[ProjectIdentity, str]:
    """(project identity of the repository, path of `path` relative to it, '/'-separated)."""
    root = repo_root(path)
    relative = os.path.relpath(os.path.abspath(path), root).replace(os.sep, "/")
    return project_identity(str(root)), relative


def named_identity(namespace: str, name: str) -> ProjectIdentity:
    """A stable project for a source that names its project but gives no path (a Claude
    project folder without `cwd` lines, a ledger initiative)."""
    digest = hashlib.sha256(f"{namespace}:{name}".encode("utf-8", "surrogatepass")).hexdigest()
    return ProjectIdentity("project-" + digest[:16], digest, name, "", "")
