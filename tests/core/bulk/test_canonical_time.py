"""`core.bulk.canonical_time.parse_canonical` against `GoTime.parse` and `GoTime.format`, which
it stands in for: it reads every time Go writes, and only text that formats back to itself."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from core.bulk.canonical_time import parse_canonical
from core.gocompat.gotime import GoTime

_NS = 1_000_000_000


@settings(max_examples=400, deadline=None)
@given(
    seconds=st.integers(-62_135_596_800 + 86_400, 253_402_300_799 - 86_400),
    nanos=st.integers(0, _NS - 1) | st.sampled_from([0, 500_000_000, 1]),
    offset_minutes=st.integers(-23 * 60 - 59, 23 * 60 + 59) | st.just(0),
)
def test_canonical_parse_reads_every_time_go_writes(
    seconds: int, nanos: int, offset_minutes: int
) -> None:
    written = GoTime(seconds * _NS + nanos, offset_minutes * 60)
    assert parse_canonical(written.format()) == written


_STAMP_PIECES = (
    ["0000", "0001", "1969", "1970", "2024", "2025", "9999"],
    ["-"],
    ["00", "01", "02", "09", "12", "13"],
    ["-"],
    ["00", "01", "28", "29", "30", "31", "32"],
    ["T"],
    ["00", "23", "24"],
    [":"],
    ["00", "59", "60"],
    [":"],
    ["00", "59", "60"],
    ["", ".", ".0", ".5", ".50", ".000000001", ".123456789", ".1234567890"],
    ["Z", "z", "+00:00", "-00:00", "+09:00", "-07:30", "+05:75", "+99:59", ""],
)
_STAMPS = st.tuples(*(st.sampled_from(piece) for piece in _STAMP_PIECES)).map("".join)


@settings(max_examples=600, deadline=None)
@given(text=_STAMPS)
@example(text="2024-02-29T00:00:00Z")
def test_canonical_parse_accepts_only_what_go_writes_back(text: str) -> None:
    found = parse_canonical(text)
    if found is not None:
        assert GoTime.parse(text) == found
        assert found.format() == text
