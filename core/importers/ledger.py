"""The import ledger: which stable source key became which journal item, with what content.

Why a ledger beside the store: a record's ID is derived from its source key, so the store alone
already makes a repeated import idempotent. The ledger adds what the store cannot know: that a
source item *changed* since it was imported (an edited ADR, a rewritten answer), which must be
reported as a conflict instead of becoming a second record; and idempotency for notes, pending
decisions and outcome signals, which have no store of their own. Losing the ledger is safe: the
next run falls back to the store's same-ID-same-content rule.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.gocompat.gotime import GoTime
from core.store.append_log import AppendLog

IMPORTS_DIR = "imports"
_KIND = re.compile(r"[a-z0-9-]{1,40}")
_FLUSH_EVERY = 256


@dataclass(frozen=True, slots=True)
class LedgerEntry:
    key: str
    target: str
    digest: str
    what: str


class ImportLedger:
    """`<journal>/imports/<kind>.ndjson`; the latest entry for a key wins.

    Latest by its `at` time, then by place in the file: sync unites two machines' ledgers in
    one canonical order (`core.sync.merge.merge_lines`), so the file's order alone is not the
    order the entries were written in."""

    def __init__(
        self, journal_root: Path, kind: str, *, before_flush: Callable[[], None] | None = None
    ) -> None:
        """`before_flush` writes whatever the entries describe first (buffered signals), so
        the ledger never claims an item that a crash kept from being written."""
        if not _KIND.fullmatch(kind):
            raise ValueError(f"invalid import kind {kind!r}")
        self._before_flush = before_flush
        self.log = AppendLog(journal_root, Path(journal_root) / IMPORTS_DIR / f"{kind}.ndjson")
        self._entries: dict[str, LedgerEntry] | None = None
        self._buffer: list[dict[str, Any]] = []

    def _load(self) -> dict[str, LedgerEntry]:
        if self._entries is None:
            entries: dict[str, LedgerEntry] = {}
            for raw in sorted(self.log.read().entries, key=_written_at):
                key, target = raw.get("key"), raw.get("target")
                if isinstance(key, str) and isinstance(target, str):
                    entries[key] = LedgerEntry(
                        key, target, str(raw.get("digest", "")), str(raw.get("what", ""))
                    )
            self._entries = entries
        return self._entries

    def get(self, key: str) -> LedgerEntry | None:
        return self._load().get(key)

    def __len__(self) -> int:
        return len(self._load())

    def add(self, key: str, target: str, digest: str, what: str) -> None:
        """Remembers an item; written in batches, and always by `flush`."""
        entry = LedgerEntry(key, target, digest, what)
        self._load()[key] = entry
        self._buffer.append(
            {
                "key": key,
                "target": target,
                "digest": digest,
                "what": what,
                "at": GoTime.now().format(),
            }
        )
        if len(self._buffer) >= _FLUSH_EVERY:
            self.flush()

    def flush(self) -> None:
        if self._before_flush is not None:
            self._before_flush()
        if self._buffer:
            self.log.append(self._buffer)
            self._buffer = []


def _written_at(raw: dict[str, Any]) -> int:
    """An entry's time in Unix nanoseconds (0 for one without a readable `at`); `sorted` is
    stable, so entries of one time keep their order."""
    at = raw.get("at")
    found = GoTime.parse_or_none(at) if isinstance(at, str) else None
    return found.unix_ns if found is not None else 0
