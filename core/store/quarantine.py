"""Moving a damaged journal file aside, into the journal's own quarantine folder.

Why a move and not a delete: a record file that cannot be read may still hold the only copy
of a decision, and the runbook's repair starts from it. Moving it to
`quarantine/<UTC stamp>/<its path in the journal>` lets the index, export and profile
rebuild go on without it, keeps every byte for a later repair, and leaves nothing outside
the journal. Only regular files inside the journal's records or history folders move, never
through a link, and nothing already in quarantine is overwritten.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from core.errors import UnsafePath
from core.gocompat.gotime import GoTime
from core.store.safefs import atomic_write, check_no_links, ensure_private_dir, fsync_dir

FOLDER = "quarantine"
MOVABLE = ("records", "history")
"""The journal folders whose files may be moved aside."""


def quarantine_target(root: Path, path: Path, when: GoTime | None = None) -> Path:
    """Where `path` goes: its place under the journal, below a stamped quarantine folder.

    Raises:
        UnsafePath: the file is not inside the journal's records or history folders.
    """
    relative = _inside(root, path)
    stamp = (when or GoTime.now()).compact_stamp()
    return root / FOLDER / stamp / relative


def move_aside(root: Path, path: Path, when: GoTime | None = None) -> Path:
    """Moves one damaged file into quarantine and returns where it now is.

    Raises:
        UnsafePath: outside the movable folders, a link on the way, not a regular file, or
            the target exists already.
        FileNotFoundError: the file is gone (another process moved or repaired it).
    """
    target = quarantine_target(root, path, when)
    check_no_links(root, path)
    info = os.lstat(path)
    if not stat.S_ISREG(info.st_mode):
        raise UnsafePath(f"only a regular file can be moved aside: {path.name}", path=str(path))
    ensure_private_dir(root, root / FOLDER)
    folder = root / FOLDER
    for part in target.parent.relative_to(folder).parts:
        folder = folder / part
        ensure_private_dir(root, folder)
    if os.path.lexists(target):
        raise UnsafePath(f"{target.name} is already in quarantine", path=str(target))
    os.replace(path, target)
    fsync_dir(target.parent)
    fsync_dir(path.parent)
    return target


RECEIVED = "received"
"""The quarantine subfolder of files another machine sent that this journal refused to write."""


def keep_aside(root: Path, relative: str, data: bytes, when: GoTime | None = None) -> Path:
    """Keeps the bytes of a file that never became a journal file (one sync received and the
    store's rules refused) at `quarantine/<stamp>/received/<its journal path>`; returns where.

    Raises:
        UnsafePath: the path is absolute, climbs out, or a link is on the way.
    """
    parts = Path(relative).parts
    if not parts or Path(relative).is_absolute() or any(p in ("", ".", "..") for p in parts):
        raise UnsafePath(f"{relative} is not a path inside the journal", path=relative)
    stamp = (when or GoTime.now()).compact_stamp()
    target = root / FOLDER / stamp / RECEIVED / Path(*parts)
    ensure_private_dir(root, target.parent)
    atomic_write(root, target, data)
    return target


def _inside(root: Path, path: Path) -> Path:
    try:
        relative = Path(os.path.abspath(path)).relative_to(os.path.abspath(root))
    except ValueError:
        raise UnsafePath(f"{path.name} is not inside the journal", path=str(path)) from None
    if len(relative.parts) < 2 or relative.parts[0] not in MOVABLE or ".." in relative.parts:
        raise UnsafePath(
            f"{path.name} is not in the journal's records or history folder", path=str(path)
        )
    return relative
