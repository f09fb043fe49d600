"""Timestamps with nanosecond precision, read and written as Go's RFC 3339 "Nano" layout.

Why: Python's datetime keeps microseconds only; a journal written by the Go reference holds
nanoseconds, and a record must survive a read/write round trip byte for byte.
"""

from __future__ import annotations

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

    @classmethod
    def parse_or_none(cls, text: str) -> GoTime | None:
        """`parse`, with None for empty or unreadable text: for times a missing or odd
        timestamp must not fail (imported transcripts, agent notes)."""
        try:
            return cls.parse(text)
        except ValueError:
            return None

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
