"""How the index stores a record's compact JSON: LZ4-packed, and refused when damaged."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core import limits
from core.bulk.compact_json import compact_bytes
from core.index.entry import DamagedRow, IndexEntry, pack_json, unpack_json
from tests.factories import make_record


def test_a_typical_record_is_stored_in_well_under_half_its_compact_json() -> None:
    compact = compact_bytes(make_record())
    packed = pack_json(compact)
    assert len(packed) < len(compact) / 2
    assert unpack_json(packed) == compact


def test_a_long_record_unpacks_to_its_compact_json() -> None:
    compact = compact_bytes(make_record(problem="Choose the layout of a long record " * 200))
    packed = pack_json(compact)
    assert len(packed) < len(compact) / 4
    assert unpack_json(packed) == compact


@given(st.binary(max_size=5000))
def test_any_bytes_come_back_as_they_went_in(data: bytes) -> None:
    assert unpack_json(pack_json(data)) == data


def test_the_entry_holds_the_packed_json() -> None:
    record = make_record()
    entry = IndexEntry.of("decision-test-1.json", "sig", record)
    assert unpack_json(entry.json) == compact_bytes(record)


@pytest.mark.parametrize(
    "stored",
    [
        b"",
        b'{"id":"plain json of an older format"}',
        (limits.RECORD_FILE_MAX + 1).to_bytes(4, "little") + b"\x00" * 16,
        (100).to_bytes(4, "little") + b"\xff" * 16,
    ],
    ids=["empty", "unpacked", "claims-too-much", "garbage"],
)
def test_a_damaged_row_is_a_database_error(stored: bytes) -> None:
    """Raised as a SQLite database error, the index replaces its file as for any damage."""
    with pytest.raises(DamagedRow):
        unpack_json(stored)
