"""CSV export: one row per decision, a header row, UTF-8, RFC 4180 quoting via the csv module.

Lists are joined with "; " inside one cell. A cell that starts with `=`, `+`, `-`, `@`, tab or
carriage return gets a leading `'`: spreadsheets would otherwise run agent-written text as a
formula (CSV injection). Local metadata columns appear only with `include_private`, as in JSON.
The `summary` column is in the reader's language (`core.record.summary.summary_in`): a CSV is
read by people, and KernForge's Korean sentence stays in the JSON export and the records.
"""

from __future__ import annotations

import csv
import io
import threading
from collections.abc import Callable, Iterable
from pathlib import Path

from core.exporters.staging import Progress, utf8, write_single
from core.messages.language import ENGLISH
from core.record.models import DecisionRecord
from core.record.summary import summary_in

Column = tuple[str, Callable[[DecisionRecord], str]]


def _time(value: object) -> str:
    return "" if value is None else str(value)


def _rejections(record: DecisionRecord) -> str:
    return "; ".join(
        f"{record.option_label(r.option_id) or r.option_id}: {r.reason}"
        for r in record.rejected_reasons
    )


COLUMNS: list[Column] = [
    ("id", lambda r: r.id),
    ("created_at", lambda r: _time(r.created_at)),
    ("updated_at", lambda r: _time(r.updated_at)),
    ("revision", lambda r: str(r.revision)),
    ("status", lambda r: r.status),
    ("project_id", lambda r: r.project_id),
    ("decision_kind", lambda r: r.decision_kind),
    ("risk_level", lambda r: r.risk_level),
    ("domains", lambda r: "; ".join(r.domains)),
    ("tags", lambda r: "; ".join(r.tags)),
    ("problem", lambda r: r.problem),
    ("options", lambda r: "; ".join(o.label for o in r.options)),
    ("selected", lambda r: r.selected_label()),
    ("custom_selection", lambda r: r.custom_selection),
    ("selection_reason", lambda r: r.selection_reason_raw),
    ("rejected", _rejections),
    ("summary", lambda r: r.summary_sentence),  # replaced by `summary_in` when rendered
    ("detector_confidence", lambda r: f"{r.detector_confidence:g}"),
    ("deleted_at", lambda r: _time(r.deleted_at)),
]
PRIVATE_COLUMNS: list[Column] = [
    ("project_alias", lambda r: r.project_alias),
    ("workspace", lambda r: r.workspace),
    ("session_id", lambda r: r.session_id),
    ("evidence_refs", lambda r: "; ".join(r.evidence_refs)),
]
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def defuse(cell: str) -> str:
    return "'" + cell if cell.startswith(_FORMULA_START) else cell


def render_csv(
    records: Iterable[DecisionRecord], *, include_private: bool = False, language: str = ENGLISH
) -> bytes:
    summary: Column = ("summary", lambda r: summary_in(r, language))
    columns = [summary if name == "summary" else (name, value) for name, value in COLUMNS]
    columns += PRIVATE_COLUMNS if include_private else []
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer)
    writer.writerow([name for name, _ in columns])
    for record in records:
        writer.writerow([defuse(value(record)) for _, value in columns])
    return utf8(buffer.getvalue())


def export_csv(
    records: Iterable[DecisionRecord],
    directory: Path,
    *,
    include_private: bool = False,
    file_name: str = "decisions.csv",
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
    language: str = ENGLISH,
) -> list[Path]:
    def render(items: Iterable[DecisionRecord]) -> bytes:
        return render_csv(items, include_private=include_private, language=language)

    return [write_single(directory, file_name, render, records, progress=progress, cancel=cancel)]
