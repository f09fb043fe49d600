"""`GoTime.parse` and `GoTime.format` against step-by-step models built on the standard
library (`calendar.timegm`, `time.gmtime`), on generated RFC 3339 text and instants."""

from __future__ import annotations

import calendar
import re
import time
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from core.gocompat.gotime import GoTime

_RFC3339 = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$"
)


def reference_parse_time(text: str) -> GoTime:
    match = _RFC3339.match(text)
    if match is None:
        raise ValueError(f"timestamp {text!r} is not RFC 3339")
    year, month, day, hour, minute, second = (int(match.group(i)) for i in range(1, 7))
    fraction = (match.group(7) or "").ljust(9, "0")
    zone = match.group(8)
    offset = 0
    if zone != "Z":
        sign = -1 if zone[0] == "-" else 1
        offset = sign * (int(zone[1:3]) * 3600 + int(zone[4:6]) * 60)
    if not (1 <= month <= 12 and 1 <= day <= 31 and hour < 24 and minute < 60 and second < 60):
        raise ValueError(f"timestamp {text!r} is out of range")
    seconds = calendar.timegm((year, month, day, hour, minute, second, 0, 0, 0)) - offset
    return GoTime(seconds * 1_000_000_000 + int(fraction), offset)


def reference_format_time(value: GoTime) -> str:
    seconds, ns = divmod(value.unix_ns + value.offset_seconds * 1_000_000_000, 1_000_000_000)
    parts = time.gmtime(seconds)
    text = (
        f"{parts.tm_year:04d}-{parts.tm_mon:02d}-{parts.tm_mday:02d}"
        f"T{parts.tm_hour:02d}:{parts.tm_min:02d}:{parts.tm_sec:02d}"
    )
    if ns:
        text += "." + f"{ns:09d}".rstrip("0")
    if value.offset_seconds == 0:
        return text + "Z"
    sign = "-" if value.offset_seconds < 0 else "+"
    hours, minutes = divmod(abs(value.offset_seconds) // 60, 60)
    return f"{text}{sign}{hours:02d}:{minutes:02d}"


def _two_digits(low: int, high: int) -> st.SearchStrategy[str]:
    return st.integers(low, high).map("{:02d}".format) | st.text(alphabet="0123456789", max_size=3)


@settings(max_examples=500, deadline=None)
@given(
    text=st.one_of(
        st.builds(
            "{}-{}-{}T{}:{}:{}{}{}".format,
            st.sampled_from(["0000", "0001", "1969", "2024", "9999", "٢٠٢٤", "12345"]),
            _two_digits(0, 13),
            _two_digits(0, 32),
            _two_digits(0, 24),
            _two_digits(0, 60),
            _two_digits(0, 60),
            st.sampled_from(["", ".", ".5", ".000000001", ".1234567890", ".120"]),
            st.sampled_from(["Z", "+05:30", "-12:59", "+99:99", "z", "", "Z\n"]),
        ),
        st.text(max_size=30),
    )
)
@example("2024-01-31T23:59:59.999999999+05:30")
@example("2023-02-29T00:00:00Z")
@example("2024-12-31T00:00:00-00:01")
@example("0000-12-31T00:00:00Z")
@example("2024-01-01T24:00:00Z")
def test_timestamp_parsing_matches_the_reference(text: str) -> None:
    def outcome(parse: Any) -> tuple[Any, ...]:
        try:
            value = parse(text)
        except ValueError as exc:
            return (type(exc), str(exc))
        return (value.unix_ns, value.offset_seconds)

    assert outcome(GoTime.parse) == outcome(reference_parse_time)


@settings(max_examples=500, deadline=None)
@given(
    unix_ns=st.integers(-62_135_510_400 * 10**9, 253_402_214_399 * 10**9),  # a day inside 1-9999
    offset=st.integers(-18 * 3600, 18 * 3600),
)
def test_timestamp_formatting_matches_the_reference(unix_ns: int, offset: int) -> None:
    value = GoTime(unix_ns, offset)
    assert value.format() == reference_format_time(value)


def test_parse_or_none_reads_what_parse_reads_and_none_for_the_rest() -> None:
    assert GoTime.parse_or_none("2025-10-09T10:28:23Z") == GoTime.parse("2025-10-09T10:28:23Z")
    assert GoTime.parse_or_none("") is None
    assert GoTime.parse_or_none("yesterday") is None
    assert GoTime.parse_or_none("2025-13-01T00:00:00Z") is None
