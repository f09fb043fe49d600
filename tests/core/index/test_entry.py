"""How the index stores a record's compact JSON: plain when it is short, compressed when long."""

from __future__ import annotations

from core.bulk.compact_json import compact_bytes
from core.index.entry import PACK_OVER, IndexEntry, pack_json, unpack_json
from tests.factories import make_record


def test_a_typical_record_is_stored_as_its_compact_json() -> None:
    compact = compact_bytes(make_record())
    assert len(compact) <= PACK_OVER
    assert pack_json(compact) is compact
    assert unpack_json(compact) == compact


def test_a_long_record_is_compressed_and_unpacks_to_its_compact_json() -> None:
    compact = compact_bytes(make_record(problem="Choose the layout of a long record " * 200))
    packed = pack_json(compact)
    assert len(compact) > PACK_OVER
    assert len(packed) < len(compact) / 4
    assert unpack_json(packed) == compact


def test_the_entry_holds_the_packed_json() -> None:
    record = make_record()
    entry = IndexEntry.of("decision-test-1.json", "sig", record)
    assert unpack_json(entry.json) == compact_bytes(record)
