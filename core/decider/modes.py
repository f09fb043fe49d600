"""Each decision kind's mode, `ask` (the default) or `auto`, and every change of it, in
`decider/modes.json`.

Why a small file of its own: modes change rarely and by the person (or by a demotion), they
must survive a profile rebuild, and the history of each kind (when it was raised, when and why it
was set back) is what the person reads to trust it. Writes are atomic under the file's lock, and
a file that cannot be read fails closed: every kind is asked until it is mended.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from core.decider.fold import fold_name
from core.decider.ledger import parse_time, time_text
from core.decider.policy import DECIDER_DIR
from core.decider.route import MODE_ASK, MODES
from core.errors import JournalDamaged
from core.store.locking import locked
from core.store.safefs import atomic_write, ensure_private_dir, read_regular_file

MODES_FILE = "modes.json"
MODES_MAX_BYTES = 1024 * 1024
HISTORY_MAX = 50
"""Changes kept per kind, newest last."""


@dataclass(frozen=True, slots=True)
class ModeChange:
    at: str
    mode: str
    reason: str

    @property
    def moment(self) -> datetime:
        return parse_time(self.at)


@dataclass(slots=True)
class KindMode:
    kind_label: str
    mode: str = MODE_ASK
    history: list[ModeChange] = field(default_factory=list)

    @property
    def since(self) -> datetime | None:
        """When the current mode was set, or None when it was never changed."""
        return self.history[-1].moment if self.history else None

    def last_demotion(self) -> ModeChange | None:
        return next((c for c in reversed(self.history) if c.reason.startswith("demoted")), None)


def _damaged(path: Path, problem: str) -> JournalDamaged:
    return JournalDamaged(
        f"decision modes {path} cannot be read: {problem}; every kind is asked until it is mended",
        path=str(path),
        anchor="decider-modes-damaged",
    )


def _parse(data: bytes, path: Path) -> dict[str, KindMode]:
    try:
        raw = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise _damaged(path, f"not valid JSON ({exc})") from exc
    kinds = raw.get("kinds") if isinstance(raw, dict) else None
    if not isinstance(kinds, dict):
        raise _damaged(path, "no 'kinds' object")
    out: dict[str, KindMode] = {}
    for key, value in kinds.items():
        try:
            history = [
                ModeChange(str(c["at"]), str(c["mode"]), str(c["reason"])) for c in value["history"]
            ]
            entry = KindMode(str(value["kind_label"]), str(value["mode"]), history)
            for change in history:
                change.moment  # noqa: B018  # must parse
        except (KeyError, TypeError, ValueError) as exc:
            raise _damaged(path, f"kind {key[:80]!r} is malformed") from exc
        if entry.mode not in MODES or fold_name(key) != key:
            raise _damaged(path, f"kind {key[:80]!r} has mode {entry.mode[:20]!r}")
        out[key] = entry
    return out


class ModeBook:
    """The modes of one journal; a kind that is not listed is `ask`."""

    def __init__(self, journal_root: Path) -> None:
        self.root = Path(journal_root)
        self.path = self.root / DECIDER_DIR / MODES_FILE

    def read(self) -> dict[str, KindMode]:
        if not self.path.exists():
            return {}
        return _parse(read_regular_file(self.root, self.path, MODES_MAX_BYTES), self.path)

    def mode_of(self, kind: str) -> str:
        entry = self.read().get(fold_name(kind))
        return entry.mode if entry else MODE_ASK

    def set(self, kind: str, mode: str, *, reason: str, now: datetime) -> KindMode:
        """Records the change (even to the same mode, so the history says who set it)."""
        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}")
        key = fold_name(kind)
        ensure_private_dir(self.root, self.path.parent)
        with locked(self.root, self.path):
            kinds = self.read()
            entry = kinds.get(key) or KindMode(kind.strip())
            entry.mode = mode
            entry.history = [*entry.history, ModeChange(time_text(now), mode, reason)][
                -HISTORY_MAX:
            ]
            kinds[key] = entry
            atomic_write(self.root, self.path, _encode(kinds))
        return entry


def _encode(kinds: dict[str, KindMode]) -> bytes:
    data: dict[str, Any] = {
        "kinds": {
            key: {
                "kind_label": entry.kind_label,
                "mode": entry.mode,
                "history": [
                    {"at": c.at, "mode": c.mode, "reason": c.reason} for c in entry.history
                ],
            }
            for key, entry in sorted(kinds.items())
        }
    }
    return (json.dumps(data, ensure_ascii=False, indent=2) + "\n").encode("utf-8")
