"""Text the journal window shows for stored values: times, percentages, lists, badges.

Why one module: the list delegate, the details panel, the history diff and the profile panel
must say the same thing the same way, and the list formats 100 rows per page, so these are
plain functions (QLocale is a value type, not a QObject). Times follow the user's locale and
zone: the stored UTC text stays in exports and tooltips, never on screen as "+0000".
"""

from __future__ import annotations

import re
from datetime import datetime

from PySide6.QtCore import QDate, QLocale, QTime

from core.gocompat.gotime import GoTime
from core.messages.wording import count

NO_VALUE = "—"
_ZONE_TOKENS = re.compile(r"\s*t+")


def _local(value: GoTime | None) -> datetime | None:
    if value is None or value.unix_ns <= 0:
        return None
    return value.to_datetime().astimezone()


def _locale_text(moment: datetime, *, seconds: bool) -> str:
    locale = QLocale()
    if locale.language() == QLocale.Language.C:
        # The C locale's short date is "1 12 2026": without a real locale, ISO reads best.
        return moment.strftime("%Y-%m-%d %H:%M:%S" if seconds else "%Y-%m-%d %H:%M")
    day = locale.toString(
        QDate(moment.year, moment.month, moment.day), QLocale.FormatType.ShortFormat
    )
    clock = QTime(moment.hour, moment.minute, moment.second)
    if not seconds:
        return f"{day} {locale.toString(clock, QLocale.FormatType.ShortFormat)}"
    # The long time format spells the zone out ("Coordinated Universal Time"); the caller adds
    # its abbreviation instead, so the zone words are dropped from the pattern.
    pattern = _ZONE_TOKENS.sub("", locale.timeFormat(QLocale.FormatType.LongFormat)).strip()
    return f"{day} {locale.toString(clock, pattern)}"


def display_time(value: GoTime | None) -> str:
    """Local time to the minute in the locale's short format (the list, history, profile)."""
    moment = _local(value)
    return NO_VALUE if moment is None else _locale_text(moment, seconds=False)


def display_time_precise(value: GoTime | None) -> str:
    """Local time to the second with the zone's abbreviation ("CET", "UTC"), for the details."""
    moment = _local(value)
    if moment is None:
        return NO_VALUE
    return f"{_locale_text(moment, seconds=True)} {moment.tzname() or ''}".rstrip()


count_text = count
"""`core.messages.wording.count` under the name the journal window's modules use."""


def percent(value: float) -> str:
    return f"{value:.0%}"


def joined(items: list[str] | tuple[str, ...], separator: str = ", ") -> str:
    return separator.join(item for item in items if item) or NO_VALUE


def split_list(text: str) -> list[str]:
    """ "a, b ,, c" → ["a", "b", "c"]: how the edit dialog reads domains and tags."""
    return [part.strip() for part in text.split(",") if part.strip()]


def short_id(project_id: str) -> str:
    """The last six characters, enough to tell two projects with one alias apart."""
    return project_id[-6:] if project_id else ""
