"""Timestamps with nanosecond precision, read and written as Go's RFC 3339 "Nano" layout.

Why: Python's datetime keeps microseconds only; a journal written by the Go reference holds
nanoseconds, and a record must survive a read/write round trip byte for byte.
"""

from __future__ import annotations

import calendar
import re
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone

_RFC3339 = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$"
)
_NS = 1_000_000_000


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
        return cls(seconds * _NS + int(fraction), offset)

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
        parts = time.gmtime(seconds)
        text = (
            f"{parts.tm_year:04d}-{parts.tm_mon:02d}-{parts.tm_mday:02d}"
            f"T{parts.tm_hour:02d}:{parts.tm_min:02d}:{parts.tm_sec:02d}"
        )
        if ns:
            text += "." + f"{ns:09d}".rstrip("0")
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
