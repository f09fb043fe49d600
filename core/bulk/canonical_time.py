"""Timestamps read only when they are written exactly as Go writes them.

Faster variant of `core.gocompat.gotime.GoTime.parse` followed by `GoTime.format` for bulk
reads: `parse_canonical(text)` is `GoTime.parse(text)` when `format` writes that time back as
`text`, else None. Why: a bulk read must confirm both timestamps of every record are canonical,
and parsing then formatting each costs several times this. Here a regex splits the text, the
wall-clock minute is checked once per distinct minute (cached) and only seconds, fraction and
zone are read. `tests/core/bulk/test_canonical_time.py` holds the two equal.
"""

from __future__ import annotations

import functools
import re

from core.gocompat.gotime import GoTime

_NS = 1_000_000_000
_CANONICAL = re.compile(
    r"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}):(\d{2})(?:\.(\d{0,8}[1-9]))?(?:Z|([+-])(\d{2}):(\d{2}))"
)
"""Every text `GoTime.format` can write: fraction without trailing zeros, zone Z or +hh:mm."""


def parse_canonical(text: str) -> GoTime | None:
    """The time, when `text` is exactly how Go writes it (`format(parse(text)) == text`)."""
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
