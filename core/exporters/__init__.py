"""Exporters of decision records: JSON, MADR 4.0 folders, a decisions.md log, and CSV.

Every exporter takes records, a target folder, an optional progress callback and an optional
cancel event, and writes all of its files or none (see `staging`). `export` picks one by name.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from pathlib import Path

from core.errors import ExportCancelled
from core.exporters.csv_export import export_csv, render_csv
from core.exporters.decision_log import export_log, render_log
from core.exporters.json_export import export_json, render_json
from core.exporters.madr import export_madr
from core.exporters.staging import Progress
from core.messages.language import ENGLISH
from core.record.models import DecisionRecord

__all__ = [
    "FORMATS",
    "SINGLE_FILE_FORMATS",
    "ExportCancelled",
    "Progress",
    "export",
    "render_single",
]

FORMATS = ("json", "madr", "markdown", "csv")
SINGLE_FILE_FORMATS = {"json": "decisions.json", "markdown": "decisions.md", "csv": "decisions.csv"}


def export(
    fmt: str,
    records: Iterable[DecisionRecord],
    directory: Path,
    *,
    include_private: bool = False,
    file_name: str | None = None,
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
    language: str = ENGLISH,
) -> list[Path]:
    """Writes records in format fmt into directory; returns the files written.

    Args:
        file_name: the file of a single-file format (default `SINGLE_FILE_FORMATS[fmt]`);
            ignored by `madr`, which names one file per decision.
        include_private: keep local metadata (alias, workspace, session ids, evidence refs).
        language: the reader's language for the CSV's summaries (`core.messages.language`).
    """
    if fmt == "madr":
        return export_madr(
            records, directory, include_private=include_private, progress=progress, cancel=cancel
        )
    name = file_name or SINGLE_FILE_FORMATS[_known(fmt)]
    if fmt == "json":
        return export_json(
            records,
            directory,
            include_private=include_private,
            file_name=name,
            progress=progress,
            cancel=cancel,
        )
    if fmt == "csv":
        return export_csv(
            records,
            directory,
            include_private=include_private,
            file_name=name,
            progress=progress,
            cancel=cancel,
            language=language,
        )
    return export_log(records, directory, file_name=name, progress=progress, cancel=cancel)


def render_single(
    fmt: str,
    records: Iterable[DecisionRecord],
    *,
    include_private: bool = False,
    language: str = ENGLISH,
) -> bytes:
    """The bytes of a single-file format, for writing to standard output."""
    _known(fmt)
    if fmt == "json":
        return render_json(records, include_private=include_private)
    if fmt == "csv":
        return render_csv(records, include_private=include_private, language=language)
    if fmt == "markdown":
        return render_log(records)
    raise ValueError(f"export format {fmt!r} writes a folder, not a single file")


def _known(fmt: str) -> str:
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r}; use one of {', '.join(FORMATS)}")
    return fmt
