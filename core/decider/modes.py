"""Each decision kind's mode, `ask` (the default) or `auto`, and every change of it.

Why changes are ledger lines (`mode` events in `decider/ledger.ndjson`) and not a file of
their own: the ledger moves between machines as a log merged line by line, so a kind set to
auto on the laptop is auto on the desktop, and a demotion on either holds on both; a whole file
rewritten on two machines would make one machine's change overwrite the other's. A kind's mode
is its newest change by time; two changes in the same second resolve to `ask`, which never
widens. A mode line that cannot be read, or a damaged `decider/modes.json` (where modes were
kept before; it is still read, and moved into the ledger at the next change), fails closed:
every kind is asked until it is mended.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from core.decider.fold import fold_name
from core.decider.ledger import DeciderLedger, Event, event_from_dict, parse_time, time_text
from core.decider.policy import DECIDER_DIR
from core.decider.route import MODE_ASK, MODES
from core.errors import JournalDamaged
from core.store.locking import locked
from core.store.safefs import ensure_private_dir, read_regular_file, remove_file

MODES_FILE = "modes.json"
"""Where modes were kept before they were ledger lines; read, and moved at the next change."""
MODES_MAX_BYTES = 1024 * 1024


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


def _change_order(change: ModeChange) -> tuple[datetime, bool]:
    """By time; within one second `ask` last, so a tie never leaves a kind answered for you."""
    return change.moment, change.mode == MODE_ASK


def _with_changes(entry: KindMode | None, label: str, changes: list[Event]) -> KindMode | None:
    history = list(entry.history) if entry else []
    history.extend(ModeChange(e.at, e.mode, e.reason) for e in changes)
    if not history:
        return entry
    history.sort(key=_change_order)
    return KindMode(entry.kind_label if entry else label, history[-1].mode, history)


class ModeBook:
    """The modes of one journal; a kind that is not listed is `ask`."""

    def __init__(self, journal_root: Path, ledger: DeciderLedger | None = None) -> None:
        self.root = Path(journal_root)
        self.path = self.root / DECIDER_DIR / MODES_FILE
        self.ledger = ledger if ledger is not None else DeciderLedger(self.root)

    def _legacy(self) -> dict[str, KindMode]:
        if not self.path.exists():
            return {}
        return _parse(read_regular_file(self.root, self.path, MODES_MAX_BYTES), self.path)

    def _ledger_damaged(self, count: int) -> JournalDamaged:
        return _damaged(
            self.ledger.log.path,
            f"{count} mode change{'s' if count != 1 else ''} cannot be read",
        )

    def read(self, entries: list[dict[str, Any]] | None = None) -> dict[str, KindMode]:
        """Every kind with a mode change, from the ledger's `entries` (default: read now, the
        whole ledger: for listings)."""
        kinds = self._legacy()
        by_kind: dict[str, list[Event]] = {}
        bad = 0
        for raw in self.ledger.log.read().entries if entries is None else entries:
            if raw.get("type") != "mode":
                continue
            event = event_from_dict(raw)
            if event is None:
                bad += 1
            else:
                by_kind.setdefault(event.kind, []).append(event)
        if bad:
            raise self._ledger_damaged(bad)
        for key, changes in by_kind.items():
            entry = _with_changes(kinds.get(key), changes[0].kind_label, changes)
            if entry is not None:
                kinds[key] = entry
        return kinds

    def entry_of(self, kind: str) -> KindMode | None:
        """One kind's mode and history, from that kind's ledger lines only."""
        key = fold_name(kind)
        changes, bad = self.ledger.mode_changes(key)
        if bad:
            raise self._ledger_damaged(bad)
        label = changes[0].kind_label if changes else kind.strip()
        return _with_changes(self._legacy().get(key), label, changes)

    def mode_of(self, kind: str) -> str:
        entry = self.entry_of(kind)
        return entry.mode if entry else MODE_ASK

    def set(self, kind: str, mode: str, *, reason: str, now: datetime) -> KindMode:
        """Records the change (even to the same mode, so the history says who set it)."""
        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}")
        self._move_legacy()
        key = fold_name(kind)
        self.ledger.append([_change(key, kind.strip(), time_text(now), mode, reason)])
        entry = self.entry_of(kind)
        assert entry is not None
        return entry

    def _move_legacy(self) -> None:
        """Copies the changes of a `modes.json` into the ledger (once each) and removes it."""
        if not self.path.exists():
            return
        ensure_private_dir(self.root, self.path.parent)
        with locked(self.root, self.path):
            legacy = self._legacy()
            lines: list[Event] = []
            for key, entry in legacy.items():
                held = {(e.at, e.mode, e.reason) for e in self.ledger.mode_changes(key)[0]}
                lines.extend(
                    _change(key, entry.kind_label, c.at, c.mode, c.reason)
                    for c in entry.history
                    if (c.at, c.mode, c.reason) not in held
                )
            self.ledger.append(lines)
            remove_file(self.root, self.path)


def _change(key: str, label: str, at: str, mode: str, reason: str) -> Event:
    return Event(
        type="mode",
        at=at,
        decision_id="",
        kind=key,
        kind_label=label,
        rule_id="",
        mode=mode,
        reason=reason,
    )
