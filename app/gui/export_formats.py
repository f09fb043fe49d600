"""The formats the export dialog offers, mapped onto `core.exporters`, and an export's outcome.

Why the names carry a UTC stamp: every export is a new file (or folder for MADR) next to the
previous ones, so exporting twice never silently replaces a file someone may already have
shared or edited. JSON keeps the reference dashboard's name, kernforge-decisions-<stamp>.json.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from core import exporters
from core.exporters import Progress
from core.models import DecisionRecord


@dataclass(frozen=True, slots=True)
class ExportFormat:
    key: str
    title: str
    description: str
    exporter: str
    name_pattern: str
    folder: bool = False
    private: bool = False

    def target_name(self, stamp: str) -> str:
        return self.name_pattern.format(stamp=stamp)

    def run(
        self,
        records: Sequence[DecisionRecord],
        directory: Path,
        stamp: str,
        progress: Progress,
        cancel: threading.Event,
    ) -> Path:
        """Writes the export under `directory`; returns the file or folder written."""
        name = self.target_name(stamp)
        if self.folder:
            target = directory / name
            exporters.export(
                self.exporter,
                records,
                target,
                include_private=self.private,
                progress=progress,
                cancel=cancel,
            )
            return target
        written = exporters.export(
            self.exporter,
            records,
            directory,
            include_private=self.private,
            file_name=name,
            progress=progress,
            cancel=cancel,
        )
        return written[0] if written else directory / name


FORMATS: tuple[ExportFormat, ...] = (
    ExportFormat(
        "json",
        "JSON, privacy-reduced (recommended)",
        "Canonical records without session IDs, workspace paths, aliases and evidence refs",
        "json",
        "kernforge-decisions-{stamp}.json",
    ),
    ExportFormat(
        "json-private",
        "JSON with private local metadata",
        "Canonical records including workspace paths, session IDs and evidence refs",
        "json",
        "kernforge-decisions-{stamp}-private.json",
        private=True,
    ),
    ExportFormat(
        "madr",
        "MADR folder (one Markdown file per decision)",
        "Architecture decision records in MADR 4.0 format plus an index",
        "madr",
        "decisions-madr-{stamp}",
        folder=True,
    ),
    ExportFormat(
        "markdown",
        "decisions.md (one table of all decisions)",
        "A single Markdown decision log",
        "markdown",
        "decisions-{stamp}.md",
    ),
    ExportFormat(
        "csv",
        "CSV (spreadsheet)",
        "One row per decision; cells that look like formulas are defused",
        "csv",
        "decisions-{stamp}.csv",
    ),
)


@dataclass(frozen=True, slots=True)
class ExportOutcome:
    """`cancel` identifies the request (the dialog compares it); `path` is set on success."""

    cancel: threading.Event
    path: Path | None
    count: int
    ok: bool
    message: str = ""
