"""Never lowering a timeout the user raised: of theirs and ours, the larger one stays.

Why: a user who gave a slow decision more time (Claude Code `timeout` in ms, Codex
`tool_timeout_sec`, a hook's `timeout`) did so on purpose; `setup` re-run after an upgrade must
not undo it. A value that is not a plain number is replaced by ours.
"""

from __future__ import annotations

from typing import Any


def keep_larger(theirs: Any, ours: int) -> int:
    """Their value when it is a whole number larger than ours, else ours."""
    if isinstance(theirs, int) and not isinstance(theirs, bool) and theirs > ours:
        return int(theirs)
    return ours
