"""How much sync reads from a remote: per file, per manifest and per sync, checked from git's
object headers before any content is read (`core.sync.screening`, `GitRepo.contents`)."""

from __future__ import annotations

from core import limits

BLOB_MAX = 8 * limits.RECORD_FILE_MAX
"""The largest remote file read: a record is at most `RECORD_FILE_MAX`, its age envelope and
padding add a little, and a log of tens of thousands of lines fits; anything larger is refused
from its header, unread."""
MANIFEST_MAX = 64 * limits.MIB
"""The largest manifest read: one lists every file of the journal (about 200 bytes each, so
this holds a few hundred thousand files)."""
FETCH_MAX = 1024 * limits.MIB
"""The most one sync reads from the remote: far above a join of a hundred thousand records,
far below what would exhaust memory."""
MARKER_MAX = 64 * limits.KIB
"""The most `join` reads of the remote's marker and key check before the key is proven."""
