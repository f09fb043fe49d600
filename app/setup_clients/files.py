"""Writing a client's config file: backup first, atomic replace, nothing when unchanged.

Why so careful: these files belong to the user and to other tools (`~/.claude.json` holds
Claude Code's whole state). An edit keeps every unrelated byte the format allows, a second run
changes nothing, and the original is copied to `<file>.bak-YYYYmmdd-HHMMSS` before any write.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from core.errors import JournalError


class SetupError(JournalError):
    """A config file cannot be merged safely (unparsable, unexpected shape); nothing written."""


Transform = Callable[[str | None], tuple[str, list[str]]]
"""Old text (None when the file is missing) → new text and what changed (empty: unchanged)."""


@dataclass(frozen=True, slots=True)
class FileEdit:
    """One file to merge into, what `--print` shows for it, and how to merge."""

    path: Path
    snippet: str
    transform: Transform
    private: bool = False


@dataclass(frozen=True, slots=True)
class EditResult:
    path: Path
    changes: list[str]
    backup: Path | None = None


def read_text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None


def backup_path(path: Path) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    candidate = path.with_name(f"{path.name}.bak-{stamp}")
    number = 2
    while candidate.exists():
        candidate = path.with_name(f"{path.name}.bak-{stamp}-{number}")
        number += 1
    return candidate


def pending_changes(edit: FileEdit) -> list[str]:
    """What `apply_edit` would change, without writing: empty when the file is up to date.

    Raises:
        SetupError: the existing file cannot be parsed or has an unexpected shape.
    """
    old = read_text(Path(os.path.realpath(edit.path)))
    new, changes = edit.transform(old)
    return [] if not changes or new == old else changes


def refuse_links_out_of(edits: list[FileEdit], folder: Path) -> None:
    """Project files must stay in the project: a cloned repository's `.mcp.json` that links to
    a file elsewhere (another tool's config) would have our entry merged into that file.

    Raises:
        SetupError: an edit whose file, once links are followed, is outside `folder`; raised
            before any file is written.
    """
    root = Path(os.path.realpath(folder))
    for edit in edits:
        target = Path(os.path.realpath(edit.path))
        if target != root and root not in target.parents:
            raise SetupError(
                f"{edit.path} leads outside the project, to {target} (a symlink); a project's "
                "setup writes only inside it, so nothing was written"
            )


def apply_edit(edit: FileEdit) -> EditResult:
    """Merges, and writes only when something changed (a symlinked config keeps its link).

    Raises:
        SetupError: the existing file cannot be parsed or has an unexpected shape.
    """
    target = Path(os.path.realpath(edit.path))
    old = read_text(target)
    new, changes = edit.transform(old)
    if not changes or new == old:
        return EditResult(edit.path, [])
    backup = None
    if old is not None:
        backup = backup_path(target)
        shutil.copy2(target, backup)
    mode = stat.S_IMODE(target.stat().st_mode) if old is not None else _new_mode(edit)
    target.parent.mkdir(parents=True, exist_ok=True)
    _atomic_write(target, new, mode)
    return EditResult(edit.path, changes, backup)


def _new_mode(edit: FileEdit) -> int:
    return 0o600 if edit.private else 0o644


def _atomic_write(path: Path, text: str, mode: int) -> None:
    temp = path.with_name(f".{path.name}.tmp-{secrets.token_hex(4)}")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, mode)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
