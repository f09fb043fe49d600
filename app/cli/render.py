"""Human-readable output for the CLI: aligned tables and record details, with times on the
user's clock (`--json` keeps the stored UTC text)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING

from core.messages.language import ENGLISH, KOREAN, summary_language
from core.record.shape import option_label_of

if TYPE_CHECKING:  # records come from the caller; rendering needs none of their code
    from core.gocompat.gotime import GoTime
    from core.index.rows import ListRow
    from core.record.shape import RecordShape
    from core.sync.conflicts import Conflict

IN_CONFLICT = "sync conflict"
"""Beside the status of a decision that waits for a choice of version after a sync."""


def ellipsize(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [len(h) for h in headers]
    for row in rows:
        for index, cell in enumerate(row):
            widths[index] = max(widths[index], len(cell))
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)).rstrip()]
    for row in rows:
        lines.append("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())
    return "\n".join(lines)


def when(record: RecordShape | ListRow) -> str:
    """The last update to the minute, on the user's clock (as the journal window shows it)."""
    if record.updated_at is None:
        return ""
    return local_time(record.updated_at, "%Y-%m-%d %H:%M")


def local_time(value: GoTime | None, pattern: str = "%Y-%m-%d %H:%M:%S %Z") -> str:
    """A stored UTC time on the user's clock; "-" when there is none."""
    if value is None:
        return "-"
    return value.to_datetime().astimezone().strftime(pattern)


def status(record: RecordShape | ListRow, conflicted: Collection[str] = ()) -> str:
    """The record's status, with `IN_CONFLICT` when it waits for a choice of version."""
    return f"{record.status}, {IN_CONFLICT}" if record.id in conflicted else record.status


def list_cells(row: ListRow, conflicted: Collection[str] = ()) -> list[str]:
    """One line of `list`'s table (`LIST_HEADERS`), from the index's list row."""
    return [
        row.id,
        when(row),
        row.project_alias or row.project_id,
        row.decision_kind,
        status(row, conflicted),
        ellipsize(row.selected_label, 28),
        ellipsize(row.problem, 48),
    ]


def table_lines(
    headers: Sequence[str], rows: Callable[[], Iterable[Sequence[str]]]
) -> Iterator[str]:
    """`table`'s lines, from rows read twice (once for the column widths, once to print)
    instead of held: a listing of a whole journal never holds every row at once."""
    widths = [len(h) for h in headers]
    for row in rows():
        for index, cell in enumerate(row):
            widths[index] = max(widths[index], len(cell))
    yield "  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)).rstrip()
    for row in rows():
        yield "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()


LIST_HEADERS = ("ID", "UPDATED", "PROJECT", "KIND", "STATUS", "SELECTED", "PROBLEM")


def conflict_line(record_id: str, conflict: Conflict) -> str:
    """Which machines wrote which version, the one the record shows now, and how to settle."""
    sides = ", ".join(
        f"{info.get('name') or machine} ({machine}"
        f"{', shown here' if machine == conflict.current else ''})"
        for machine, info in conflict.versions.items()
    )
    return (
        f"Conflict:   two versions of revision {conflict.fork} after a sync: {sides}; keep one "
        f"with `decision-journal sync resolve {record_id} --keep local|remote|MACHINE`"
    )


def summary_lines(record: RecordShape, language: str) -> list[str]:
    """The summary in the reader's language, then in the other (the Korean one is the sentence
    KernForge stores); a record without a choice yet has none."""
    from core.record.summary import summary_in  # only details show a summary

    other = ENGLISH if language == KOREAN else KOREAN
    first, second = summary_in(record, language), summary_in(record, other)
    if not first:
        return []
    label = "In English: " if other == ENGLISH else "In Korean:  "
    return [f"Summary:    {first}", f"{label}{second}"]


def details(record: RecordShape, conflict: Conflict | None = None) -> str:
    conflicted = () if conflict is None else (record.id,)
    lines = [
        f"{record.id}  (revision {record.revision}, {status(record, conflicted)})",
        f"Problem:    {record.problem}",
        f"Project:    {record.project_alias or '-'} ({record.project_id or 'no project id'})",
        f"Kind:       {record.decision_kind}    Risk: {record.risk_level or '-'}    "
        f"Confidence: {record.detector_confidence:.2f}",
    ]
    if conflict is not None:
        lines.insert(1, conflict_line(record.id, conflict))
    if record.domains:
        lines.append(f"Domains:    {', '.join(record.domains)}")
    if record.tags:
        lines.append(f"Tags:       {', '.join(record.tags)}")
    lines.append("Approaches:")
    for option in record.options:
        marks = []
        if option.id == record.selected_option_id:
            marks.append("selected")
        if option.recommended:
            marks.append("recommended")
        suffix = f"  [{', '.join(marks)}]" if marks else ""
        lines.append(f"  {option.order}. {option.label} ({option.id}){suffix}")
        if option.description:
            lines.append(f"     {option.description}")
    if record.custom_selection:
        lines.append(f"  Other: {record.custom_selection}  [selected]")
    lines.append(f"Why chosen: {record.selection_reason_raw}")
    for rejection in record.rejected_reasons:
        label = option_label_of(record, rejection.option_id) or rejection.option_id
        lines.append(f"Why not {label}: {rejection.reason}")
    lines.extend(summary_lines(record, summary_language()))
    created, updated = local_time(record.created_at), local_time(record.updated_at)
    lines.append(f"Created:    {created}    Updated: {updated}")
    if record.deleted_at:
        lines.append(f"Deleted:    {local_time(record.deleted_at)}")
    if record.redaction.redacted:
        lines.append(f"Redacted:   {', '.join(record.redaction.patterns)}")
    return "\n".join(lines)
