"""Timestamps with nanosecond precision, read and written as Go's RFC 3339 "Nano" layout.

Why: Python's datetime keeps microseconds only; a journal written by the Go reference holds
nanoseconds, and a record must survive a read/write round trip byte for byte.
"""

from __future__ import annotations

import functools
import re
import time
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta, timezone

_RFC3339 = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$"
)
_NS = 1_000_000_000
_EPOCH_ORDINAL = date(1970, 1, 1).toordinal()


@dataclass(frozen=True, order=True, slots=True)
class GoTime:
    """An instant as nanoseconds since the Unix epoch, plus the UTC offset it was written with."""

    unix_ns: int
    offset_seconds: int = 0

    @classmethod
    def now(cls) -> GoTime:
        return cls(time.time_ns())

    @classmethod
    def parse(cls, text: str) -> GoTime:
        match = _RFC3339.match(text)
        if match is None:
            raise ValueError(f"timestamp {text!r} is not RFC 3339")
        year, month, day, hour, minute, second, fraction, zone = match.groups()
        month_n, day_n, hour_n, minute_n, second_n = map(int, (month, day, hour, minute, second))
        offset = 0
        if zone != "Z":
            sign = -1 if zone[0] == "-" else 1
            offset = sign * (int(zone[1:3]) * 3600 + int(zone[4:6]) * 60)
        if not (
            1 <= month_n <= 12
            and 1 <= day_n <= 31
            and hour_n < 24
            and minute_n < 60
            and second_n < 60
        ):
            raise ValueError(f"timestamp {text!r} is out of range")
        # calendar.timegm's arithmetic inline (a day past the month's end rolls over, year 0
        # is an error): two timestamps are parsed for every record read.
        days = date(int(year), month_n, 1).toordinal() - _EPOCH_ORDINAL + day_n - 1
        seconds = ((days * 24 + hour_n) * 60 + minute_n) * 60 + second_n - offset
        return cls(seconds * _NS + (int(fraction.ljust(9, "0")) if fraction else 0), offset)

    def utc(self) -> GoTime:
        return GoTime(self.unix_ns, 0)

    def to_datetime(self) -> datetime:
        """Microsecond precision is enough for display and date filters."""
        zone = UTC if self.offset_seconds == 0 else timezone(timedelta(seconds=self.offset_seconds))
        seconds, ns = divmod(self.unix_ns, _NS)
        return datetime.fromtimestamp(seconds, zone).replace(microsecond=ns // 1000)

    def format(self) -> str:
        """RFC3339Nano: fractional zeros trimmed, 'Z' for UTC, otherwise '+hh:mm'."""
        local_ns = self.unix_ns + self.offset_seconds * _NS
        seconds, ns = divmod(local_ns, _NS)
        # Percent formatting on purpose: one C call for all six fields, measurably faster.
        text = "%04d-%02d-%02dT%02d:%02d:%02d" % time.gmtime(seconds)[:6]  # noqa: UP031
        if ns:
            text += "." + ("%09d" % ns).rstrip("0")  # noqa: UP031
        if self.offset_seconds == 0:
            return text + "Z"
        sign = "-" if self.offset_seconds < 0 else "+"
        hours, minutes = divmod(abs(self.offset_seconds) // 60, 60)
        return f"{text}{sign}{hours:02d}:{minutes:02d}"

    def compact_stamp(self) -> str:
        """YYYYMMDD-HHMMSS in UTC, for export file names."""
        return time.strftime("%Y%m%d-%H%M%S", time.gmtime(self.unix_ns // _NS))

    def __str__(self) -> str:
        return self.format()


_CANONICAL = re.compile(
    r"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}):(\d{2})(?:\.(\d{0,8}[1-9]))?(?:Z|([+-])(\d{2}):(\d{2}))"
)
"""Every text `GoTime.format` can write: fraction without trailing zeros, zone Z or +hh:mm."""


def parse_canonical(text: str) -> GoTime | None:
    """The time, when `text` is exactly how Go writes it (format(parse(text)) == text); else None.

    Why: a bulk read must confirm both timestamps of every record are canonical. Parsing and
    formatting each one costs about 5 µs; here a regex splits the text, the wall-clock minute is
    checked once per distinct minute (cached) and only seconds, fraction and zone are read.
    """
    match = _CANONICAL.fullmatch(text)
    if match is None:
        return None
    minute, second, fraction, sign, hours, minutes = match.groups()
    base = _minute_seconds(minute)
    second_n = int(second)
    if base is None or second_n >= 60:
        return None
    offset = 0
    if sign is not None:
        hours_n, minutes_n = int(hours), int(minutes)
        if minutes_n >= 60 or hours_n == minutes_n == 0:  # Go writes a zero offset as Z
            return None
        offset = (hours_n * 3600 + minutes_n * 60) * (-1 if sign == "-" else 1)
    nanos = int(fraction.ljust(9, "0")) if fraction else 0
    return GoTime((base + second_n - offset) * _NS + nanos, offset)


@functools.lru_cache(maxsize=4096)
def _minute_seconds(minute: str) -> int | None:
    """Seconds since the epoch of a wall-clock minute read as UTC, or None when it is not a
    real minute (month 13, 30 February, hour 24, year 0) that Go would write back the same."""
    text = minute + ":00Z"
    try:
        parsed = GoTime.parse(text)
        if parsed.format() != text:
            return None
    except (ValueError, OSError, OverflowError):
        return None
    return parsed.unix_ns // _NS
