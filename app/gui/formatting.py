"""Text the journal window shows for stored values: times, percentages, lists, badges.

Why one module: the list delegate, the details panel, the history diff and the profile panel
must say the same thing the same way, and the list formats 100 rows per page, so these are
plain functions with no Qt objects.
"""

from __future__ import annotations

from core.gotime import GoTime

NO_VALUE = "—"


def display_time(value: GoTime | None) -> str:
    """Local wall-clock time to the minute; the stored UTC text stays in tooltips and exports."""
    if value is None or value.unix_ns <= 0:
        return NO_VALUE
    return value.to_datetime().astimezone().strftime("%Y-%m-%d %H:%M")


def display_time_precise(value: GoTime | None) -> str:
    if value is None or value.unix_ns <= 0:
        return NO_VALUE
    return value.to_datetime().astimezone().strftime("%Y-%m-%d %H:%M:%S %z")


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
