"""The import ledger reads the same whatever order its lines are in: sync unites two machines'
ledgers in one canonical order, which need not be the order the entries were written in."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from core.importers.ledger import ImportLedger

ENTRIES = [
    {
        "key": "adr-1",
        "target": "decision-a",
        "digest": "d1",
        "what": "record",
        "at": "2026-12-01T09:00:00Z",
    },
    {
        "key": "adr-1",
        "target": "decision-a",
        "digest": "d2",
        "what": "record",
        "at": "2026-12-01T10:00:00+02:00",
    },
    {
        "key": "adr-1",
        "target": "decision-a",
        "digest": "d3",
        "what": "record",
        "at": "2026-12-01T09:30:00Z",
    },
    {
        "key": "adr-2",
        "target": "decision-b",
        "digest": "e1",
        "what": "record",
        "at": "2026-12-01T08:00:00Z",
    },
]
"""adr-1's latest is d3 (09:30 UTC); d2 is 08:00 UTC despite its later-looking local time."""


@given(st.permutations(ENTRIES))
def test_the_latest_entry_by_time_wins_in_any_file_order(
    tmp_path_factory: object, order: list[dict[str, str]]
) -> None:
    root: Path = tmp_path_factory.mktemp("journal")  # type: ignore[attr-defined]
    (root / "imports").mkdir()
    lines = "".join(json.dumps(entry) + "\n" for entry in order)
    (root / "imports" / "decisions-md.ndjson").write_text(lines)
    ledger = ImportLedger(root, "decisions-md")
    found = ledger.get("adr-1")
    assert found is not None and found.digest == "d3"
    assert len(ledger) == 2
