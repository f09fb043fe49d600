"""A single `decisions.md` in the style of a hand-kept decision log: newest first, one table row
per decision with its date, what was decided and among what, and why (including why each
alternative was not taken). Soft-deleted decisions, when exported, are marked withdrawn.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from pathlib import Path

from core.exporters.markdown_text import md_cell
from core.exporters.staging import Progress, utf8, write_single
from core.exporters.stand_in import options_without_stand_in, rejections_without_stand_in
from core.gocompat.text import go_trim
from core.record.filters import sort_key
from core.record.models import DecisionRecord
from core.record.origin import is_automatic

HEADER = (
    "# Decisions\n\n"
    "Newest first. Exported from Decision Journal; each row is the current revision of one "
    "decision.\n\n"
    "## Decided\n\n"
    "| Date | Decision | Reason |\n"
    "|---|---|---|\n"
)


def _period(text: str) -> str:
    text = go_trim(text)
    return text if not text or text.endswith((".", "!", "?")) else text + "."


def decision_cell(record: DecisionRecord) -> str:
    parts = [_period(record.problem), f"Chosen: {_period(record.selected_label())}"]
    alternatives = [
        option.label
        for option in options_without_stand_in(record)
        if option.id != record.selected_option_id or go_trim(record.custom_selection)
    ]
    if alternatives:
        parts.append(f"Alternatives: {_period('; '.join(alternatives))}")
    if is_automatic(record):
        parts.insert(1, "(Answered by the preference profile, not asked.)")
    if record.is_deleted:
        parts.insert(0, "(Withdrawn)")
    return md_cell(" ".join(parts))


def reason_cell(record: DecisionRecord) -> str:
    parts = [_period(record.selection_reason_raw)]
    for rejection in rejections_without_stand_in(record):
        label = record.option_label(rejection.option_id) or rejection.option_id
        parts.append(f"Not {label}: {_period(rejection.reason)}")
    return md_cell(" ".join(part for part in parts if part))


def _date(record: DecisionRecord) -> str:
    return record.updated_at.to_datetime().date().isoformat() if record.updated_at else ""


def render_log(records: Iterable[DecisionRecord]) -> bytes:
    """Rows newest first, whatever order records come in."""
    rows = [
        (sort_key(r), f"| {_date(r)} | {decision_cell(r)} | {reason_cell(r)} |") for r in records
    ]
    rows.sort(key=lambda row: row[0], reverse=True)
    return utf8(HEADER + "".join(line + "\n" for _, line in rows))


def export_log(
    records: Iterable[DecisionRecord],
    directory: Path,
    *,
    file_name: str = "decisions.md",
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
) -> list[Path]:
    return [
        write_single(directory, file_name, render_log, records, progress=progress, cancel=cancel)
    ]
